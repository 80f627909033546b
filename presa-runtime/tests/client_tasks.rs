//! The client side of the Tasks extension, against a scripted fake server:
//! the test reads the client's raw frames and writes the server's answers.
//! Time is paused, so poll intervals are exact and no test sleeps for real.

mod scripted;

use scripted::*;

use std::sync::atomic::Ordering;
use std::time::Duration;

use presa_runtime::client::{AwaitOptions, CallOutcome, CallStep, Client, ClientError, ToolCall};
use presa_runtime::wire::{ElicitResult, InputResponse, Notification, TaskStatus};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

#[tokio::test(start_paused = true)]
async fn a_declaring_client_gets_a_task_handle() {
    let (client, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    assert_eq!(
        params(&call, true),
        json!({"name": "build", "arguments": {}})
    );
    peer.reply(&call, created("t1")).await;

    let outcome = calling.await.unwrap().unwrap();
    assert!(outcome.is_task());
    assert_eq!(outcome.text(), None);
    let handle = outcome.task().unwrap();
    assert_eq!(handle.id(), "t1");
    assert_eq!(handle.task().status, TaskStatus::Working);
    assert_eq!(handle.task().poll_interval_ms, Some(250));
    assert_eq!(AsRef::<str>::as_ref(handle), "t1");
}

#[tokio::test(start_paused = true)]
async fn into_complete_on_a_task_says_to_await_it() {
    let (client, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    peer.reply(&call, created("t1")).await;

    let err = calling.await.unwrap().unwrap().into_complete().unwrap_err();
    assert_eq!(
        err,
        ClientError::UnexpectedTask {
            task_id: "t1".into()
        }
    );
    assert!(err.to_string().contains("await_task"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_complete_result_stays_complete_for_a_declaring_client() {
    let (client, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    peer.reply(
        &call,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "now"}]}),
    )
    .await;
    let outcome = calling.await.unwrap().unwrap();
    assert!(!outcome.is_task());
    assert_eq!(outcome.text(), Some("now"));
    assert_eq!(outcome.into_complete().unwrap().text(), Some("now"));
}

#[tokio::test(start_paused = true)]
async fn a_client_that_did_not_declare_tasks_rejects_one() {
    let (client, mut peer) = connect(Client::builder());
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    params(&call, false);
    peer.reply(&call, created("t1")).await;
    let err = calling.await.unwrap().unwrap_err();
    assert!(
        matches!(err, ClientError::InvalidResponse(ref m) if m.contains("did not declare")),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn mrtr_rounds_before_a_task_still_work() {
    let (client, mut peer, asked) = tasks_client();
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let first = peer.expect("tools/call").await;
    peer.reply(
        &first,
        json!({"resultType": "input_required", "requestState": "s1",
               "inputRequests": {"confirm": confirm_request("Build?")}}),
    )
    .await;
    let retry = peer.expect("tools/call").await;
    assert_eq!(
        params(&retry, true),
        json!({"name": "build", "arguments": {},
               "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
               "requestState": "s1"})
    );
    peer.reply(&retry, created("t1")).await;
    assert_eq!(calling.await.unwrap().unwrap().task().unwrap().id(), "t1");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn call_tool_step_reports_a_task() {
    let (client, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move {
        let call = ToolCall::new("build", serde_json::Map::new());
        client.call_tool_step(&call).await
    });
    let call = peer.expect("tools/call").await;
    peer.reply(&call, created("t1")).await;
    let step = calling.await.unwrap().unwrap();
    assert!(
        matches!(step, CallStep::Task(ref t) if t.id() == "t1"),
        "{step:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn await_polls_and_answers_each_input_request_once() {
    let (client, mut peer, asked) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });

    let get = peer.expect("tasks/get").await;
    assert_eq!(params(&get, true), json!({"taskId": "t1"}));
    peer.reply(&get, got("t1", "working", json!({}))).await;

    let get = peer.expect("tasks/get").await;
    let confirm = json!({"inputRequests": {"confirm": confirm_request("Build?")}});
    peer.reply(&get, got("t1", "input_required", confirm.clone()))
        .await;
    let update = peer.expect("tasks/update").await;
    assert_eq!(
        params(&update, true),
        json!({"taskId": "t1",
               "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}})
    );
    peer.reply(&update, json!({"resultType": "complete"})).await;

    // After an update too, the next poll waits the interval: the server
    // may rate-limit faster polling.
    let answered_at = Instant::now();
    let get = peer.expect("tasks/get").await;
    assert_eq!(
        answered_at.elapsed(),
        Duration::from_millis(250),
        "waits the poll interval after an update"
    );
    peer.reply(&get, got("t1", "input_required", confirm)).await;

    // The same key again, with a new one: only the new one is answered.
    let get = peer.expect("tasks/get").await;
    assert!(answered_at.elapsed() >= Duration::from_millis(250));
    let both = json!({"inputRequests": {"confirm": confirm_request("Build?"),
                                        "again": confirm_request("Really?")}});
    peer.reply(&get, got("t1", "input_required", both)).await;
    let update = peer.expect("tasks/update").await;
    assert_eq!(
        params(&update, true),
        json!({"taskId": "t1",
               "inputResponses": {"again": {"action": "accept", "content": {"ok": true}}}})
    );
    peer.reply(&update, json!({"resultType": "complete"})).await;

    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "completed", completed_with("built")))
        .await;

    let result = awaiting.await.unwrap().unwrap();
    assert_eq!(result.text(), Some("built"));
    assert_eq!(asked.load(Ordering::SeqCst), 2, "one elicitation per key");
    assert_eq!(peer.try_recv(), None);
}

#[tokio::test(start_paused = true)]
async fn polling_honours_the_interval_within_bounds() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    // (suggested interval, expected wait before the next poll)
    let cases = [
        (json!(1), Duration::from_millis(10)),
        (Value::Null, Duration::from_secs(1)),
        (json!(60_000), Duration::from_secs(60)),
        (json!(86_400_000), Duration::from_secs(3600)),
    ];
    let mut get = peer.expect("tasks/get").await;
    for (suggested, wait) in cases {
        let mut working = got("t1", "working", json!({}));
        match suggested {
            Value::Null => working.as_object_mut().unwrap().remove("pollIntervalMs"),
            n => working
                .as_object_mut()
                .unwrap()
                .insert("pollIntervalMs".into(), n),
        };
        peer.reply(&get, working).await;
        let asked_at = Instant::now();
        get = peer.expect("tasks/get").await;
        let waited = asked_at.elapsed();
        assert!(
            waited >= wait && waited < wait + Duration::from_millis(5),
            "{waited:?} for {wait:?}"
        );
    }
    peer.reply(&get, got("t1", "completed", completed_with("ok")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("ok"));
}

#[tokio::test(start_paused = true)]
async fn the_state_observer_sees_each_polled_state_with_its_message() {
    let (client, mut peer, _) = tasks_client();
    let (seen, mut states) = mpsc::unbounded_channel();
    let options = AwaitOptions::default().on_state(move |task| {
        let _ = seen.send((task.status, task.status_message.clone()));
    });
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    let get = peer.expect("tasks/get").await;
    let working = got("t1", "working", json!({"statusMessage": "building all"}));
    peer.reply(&get, working).await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "completed", completed_with("ok")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("ok"));

    assert_eq!(
        states.recv().await,
        Some((TaskStatus::Working, Some("building all".into())))
    );
    assert_eq!(
        states.recv().await.map(|(status, _)| status),
        Some(TaskStatus::Completed)
    );
    assert!(states.try_recv().is_err(), "each state is seen once");
}

#[tokio::test(start_paused = true)]
async fn a_failed_task_is_task_failed_with_its_error() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    let error = json!({"error": {"code": -32603, "message": "API rate limit exceeded"},
                       "statusMessage": "Tool execution failed"});
    peer.reply(&get, got("t1", "failed", error)).await;

    let err = awaiting.await.unwrap().unwrap_err();
    let ClientError::TaskFailed(ref e) = err else {
        panic!("expected TaskFailed, got {err:?}");
    };
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32603, "API rate limit exceeded")
    );
    assert_eq!(err.code(), Some(-32603));
    assert!(err.to_string().contains("API rate limit exceeded"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_task_is_task_cancelled() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "cancelled", json!({}))).await;
    let err = awaiting.await.unwrap().unwrap_err();
    assert_eq!(
        err,
        ClientError::TaskCancelled {
            task_id: "t1".into()
        }
    );
    assert!(err.to_string().contains("t1"));
}

#[tokio::test(start_paused = true)]
async fn a_restarted_client_resumes_from_the_bare_id() {
    let (first, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move { first.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    peer.reply(&call, created("t-persisted")).await;
    let saved: String = calling
        .await
        .unwrap()
        .unwrap()
        .task()
        .unwrap()
        .id()
        .to_owned();
    drop(peer);

    let (second, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { second.await_task(saved, AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    assert_eq!(params(&get, true), json!({"taskId": "t-persisted"}));
    peer.reply(
        &get,
        got("t-persisted", "completed", completed_with("resumed")),
    )
    .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("resumed"));
}

#[tokio::test(start_paused = true)]
async fn await_gives_up_after_its_timeout_without_cancelling() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().timeout(Duration::from_secs(2));
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    // Polls at 0 s and 1.5 s; the limit lapses while it waits for the third.
    for _ in 0..2 {
        let get = peer.expect("tasks/get").await;
        let slow = got("t1", "working", json!({"pollIntervalMs": 1500}));
        peer.reply(&get, slow).await;
    }
    let err = awaiting.await.unwrap().unwrap_err();
    assert_eq!(
        err,
        ClientError::TaskTimeout {
            task_id: "t1".into(),
            limit: Duration::from_secs(2)
        }
    );
    assert_eq!(peer.try_recv(), None, "no tasks/cancel");
}

#[tokio::test(start_paused = true)]
async fn listening_follows_notifications_and_then_cancels_the_stream() {
    let (client, mut peer, asked) = tasks_client();
    let start = Instant::now();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });

    let listen = peer.expect("subscriptions/listen").await;
    assert_eq!(
        params(&listen, true),
        json!({"notifications": {"taskIds": ["t1"]}})
    );
    peer.acknowledge(&listen, json!(["t1"])).await;
    peer.push(&listen, task("t1", "working", json!({}))).await;
    peer.push(
        &listen,
        task(
            "t1",
            "input_required",
            json!({"inputRequests": {"confirm": confirm_request("Build?")}}),
        ),
    )
    .await;
    let update = peer.expect("tasks/update").await;
    assert_eq!(
        params(&update, true),
        json!({"taskId": "t1",
               "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}})
    );
    peer.reply(&update, json!({"resultType": "complete"})).await;

    // Quiet for most of the fallback period (virtual time): nothing is polled.
    tokio::time::sleep(Duration::from_millis(4900)).await;
    assert_eq!(peer.try_recv(), None);
    peer.push(&listen, task("t1", "completed", completed_with("built")))
        .await;

    let cancelled = peer.expect("notifications/cancelled").await;
    assert_eq!(cancelled["params"]["requestId"], listen["id"]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("built"));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(peer.try_recv(), None, "no tasks/get was needed");
}

#[tokio::test(start_paused = true)]
async fn listening_polls_after_the_fallback_period_of_silence() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    let acknowledged_at = Instant::now();

    let get = peer.expect("tasks/get").await;
    assert_eq!(acknowledged_at.elapsed(), Duration::from_secs(5));
    peer.reply(&get, got("t1", "completed", completed_with("polled")))
        .await;
    let cancelled = peer.expect("notifications/cancelled").await;
    assert_eq!(cancelled["params"]["requestId"], listen["id"]);
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("polled"));
}

#[tokio::test(start_paused = true)]
async fn a_stream_the_server_closes_falls_back_to_polling() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    peer.push(&listen, task("t1", "working", json!({}))).await;
    let closed_at = Instant::now();
    peer.reply(
        &listen,
        json!({"resultType": "complete", "_meta": { SUBSCRIPTION_ID: listen["id"] }}),
    )
    .await;

    let get = peer.expect("tasks/get").await;
    assert_eq!(closed_at.elapsed(), Duration::ZERO, "polls at once");
    peer.reply(&get, got("t1", "completed", completed_with("done")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("done"));
    assert_eq!(peer.try_recv(), None, "a closed stream is not cancelled");
}

#[tokio::test(start_paused = true)]
async fn a_refused_or_unacknowledged_stream_falls_back_to_polling() {
    for refuse in [true, false] {
        let (client, mut peer, _) = tasks_client();
        let options = AwaitOptions::default().listen(true);
        let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
        let listen = peer.expect("subscriptions/listen").await;
        if refuse {
            peer.reply_error(&listen, -32021, "Missing required client capability")
                .await;
        } else {
            peer.acknowledge(&listen, json!([])).await;
            let cancelled = peer.expect("notifications/cancelled").await;
            assert_eq!(cancelled["params"]["requestId"], listen["id"]);
        }
        let get = peer.expect("tasks/get").await;
        peer.reply(&get, got("t1", "completed", completed_with("polled")))
            .await;
        assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("polled"));
    }
}

#[tokio::test(start_paused = true)]
async fn listen_tasks_streams_states_and_routes_other_notifications_away() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel::<Notification>();
    let builder = Client::builder()
        .tasks(true)
        .on_notification(move |n| seen_tx.send(n).unwrap());
    let (client, mut peer) = connect(builder);
    let listening =
        tokio::spawn(async move { client.listen_tasks(vec!["a".into(), "b".into()]).await });
    let listen = peer.expect("subscriptions/listen").await;
    assert_eq!(
        params(&listen, true),
        json!({"notifications": {"taskIds": ["a", "b"]}})
    );
    peer.acknowledge(&listen, json!(["a"])).await;
    let mut subscription = listening.await.unwrap().unwrap();
    assert_eq!(subscription.acknowledged(), ["a"]);

    peer.push(&listen, task("a", "working", json!({}))).await;
    // A notification of a subscription that is not open is dropped; a plain
    // one goes to the handler.
    let stray = json!({"taskId": "z", "status": "working", "_meta": { SUBSCRIPTION_ID: 999 }});
    peer.notify("notifications/tasks", stray).await;
    peer.notify(
        "notifications/message",
        json!({"level": "info", "data": "hi"}),
    )
    .await;
    peer.push(&listen, task("a", "completed", completed_with("ok")))
        .await;

    let first = subscription.next().await.unwrap();
    assert_eq!(
        (first.task.task_id.as_str(), first.task.status),
        ("a", TaskStatus::Working)
    );
    let second = subscription.next().await.unwrap();
    assert_eq!(second.task.status, TaskStatus::Completed);
    assert_eq!(second.result.unwrap()["content"][0]["text"], "ok");
    assert_eq!(seen.recv().await.unwrap().method, "notifications/message");
    assert!(
        seen.try_recv().is_err(),
        "the stray notification was dropped"
    );

    drop(subscription);
    let cancelled = peer.expect("notifications/cancelled").await;
    assert_eq!(cancelled["params"]["requestId"], listen["id"]);
}

#[tokio::test(start_paused = true)]
async fn a_subscription_ends_when_the_server_answers_its_request() {
    let (client, mut peer, _) = tasks_client();
    let listening = tokio::spawn(async move { client.listen_tasks(vec!["a".into()]).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["a"])).await;
    let mut subscription = listening.await.unwrap().unwrap();

    peer.push(&listen, task("a", "working", json!({}))).await;
    peer.reply_error(&listen, -32603, "shutting down").await;
    assert_eq!(
        subscription.next().await.unwrap().task.task_id,
        "a",
        "before the end"
    );
    assert_eq!(subscription.next().await, None);
    assert_eq!(subscription.next().await, None);
    drop(subscription);
    assert_eq!(peer.try_recv(), None, "an ended stream is not cancelled");
}

#[tokio::test(start_paused = true)]
async fn a_refused_listen_is_the_servers_error() {
    let (client, mut peer) = connect(Client::builder());
    let listening = tokio::spawn(async move { client.listen_tasks(vec!["a".into()]).await });
    let listen = peer.expect("subscriptions/listen").await;
    params(&listen, false);
    peer.reply_error(&listen, -32021, "Missing required client capability")
        .await;
    assert_eq!(listening.await.unwrap().unwrap_err().code(), Some(-32021));
}

#[tokio::test(start_paused = true)]
async fn one_step_calls_send_their_params_with_the_meta() {
    let (client, mut peer, _) = tasks_client();
    let stepping = tokio::spawn(async move {
        let task = client.get_task("t1").await?;
        let answers = [(
            "k".to_owned(),
            InputResponse::Elicit(ElicitResult::decline()),
        )];
        client
            .update_task("t1", answers.into_iter().collect())
            .await?;
        client.cancel_task("t1").await?;
        Ok::<_, ClientError>(task)
    });

    let get = peer.expect("tasks/get").await;
    assert_eq!(params(&get, true), json!({"taskId": "t1"}));
    let input = json!({"inputRequests": {"k": confirm_request("Go?")}});
    peer.reply(&get, got("t1", "input_required", input)).await;

    let update = peer.expect("tasks/update").await;
    assert_eq!(
        params(&update, true),
        json!({"taskId": "t1", "inputResponses": {"k": {"action": "decline"}}})
    );
    peer.reply(&update, json!({"resultType": "complete"})).await;

    let cancel = peer.expect("tasks/cancel").await;
    assert_eq!(params(&cancel, true), json!({"taskId": "t1"}));
    assert_eq!(
        cancel["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
        "presa-client"
    );
    peer.reply(&cancel, json!({"resultType": "complete"})).await;

    let task = stepping.await.unwrap().unwrap();
    assert_eq!(task.task.status, TaskStatus::InputRequired);
    assert!(task.input_requests.unwrap().contains_key("k"));
}

#[tokio::test(start_paused = true)]
async fn get_task_rejects_another_tasks_state() {
    let (client, mut peer, _) = tasks_client();
    let getting = tokio::spawn(async move { client.get_task("t1").await });
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t2", "working", json!({}))).await;
    assert!(matches!(
        getting.await.unwrap().unwrap_err(),
        ClientError::InvalidResponse(_)
    ));
}

#[test]
fn call_outcome_accessors() {
    let outcome = CallOutcome::Complete(serde_json::from_value(json!({"content": []})).unwrap());
    assert!(outcome.task().is_none());
    assert!(outcome.complete().is_some());
    assert_eq!(outcome.text(), None);
}
