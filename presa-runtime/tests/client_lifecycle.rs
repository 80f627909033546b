//! Regression tests for the client's connection and subscription lifecycle:
//! requests once the connection is gone, streams the server tears down,
//! cancellations the client must not send, notifications for closed
//! streams, input requests without a handler, malformed responses, and
//! poll pacing.
//!
//! Each test scripts a fake server: it reads the client's raw frames and
//! writes the server's answers. Time is paused, so waits are exact and a
//! hang shows up as a guard timeout instead of a stuck test.

mod scripted;

use scripted::*;

use std::sync::atomic::Ordering;
use std::time::Duration;

use presa_runtime::client::{AwaitOptions, Client, ClientError, SubscriptionEnd, TaskSubscription};
use presa_runtime::transport::byte_stream;
use presa_runtime::wire::{InputRequests, Notification, TaskStatus};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};

/// An elicitation (key `a_confirm`, answered first in key order) and a
/// sampling request (key `b_sample`) the test clients have no handler for.
fn elicitation_and_sampling() -> Value {
    json!({
        "a_confirm": confirm_request("Build?"),
        "b_sample": {"method": "sampling/createMessage",
                     "params": {"messages": [], "maxTokens": 10}}
    })
}

fn no_sampling_handler() -> ClientError {
    ClientError::NoHandler {
        method: "sampling/createMessage".into(),
    }
}

// ---------------------------------------------------------------------------
// Requests once the connection is gone
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_request_after_the_connection_closed_fails_with_closed() {
    let (client, mut peer, _) = tasks_client();
    let first = tokio::spawn({
        let client = client.clone();
        async move { client.get_task("t0").await }
    });
    peer.expect("tasks/get").await;
    let _input = peer.close_output();
    // The in-flight request learns of the close, so the client has too.
    assert_eq!(first.await.unwrap(), Err(ClientError::Closed));

    // The client's writes still succeed; the request must not wait for an
    // answer nobody will deliver.
    let asked_at = Instant::now();
    let second = timeout(GUARD, client.get_task("t1")).await;
    assert_eq!(
        second.map_err(|_| "hung"),
        Ok(Err(ClientError::Closed)),
        "a request after the close"
    );
    assert_eq!(asked_at.elapsed(), Duration::ZERO, "fails at once");
}

#[tokio::test(start_paused = true)]
async fn a_request_after_a_stdio_server_exited_fails_with_closed() {
    let (ours, theirs) = tokio::io::duplex(4096);
    let (reader, writer) = tokio::io::split(ours);
    let client = Client::builder()
        .tasks(true)
        .force_era(presa_runtime::client::Era::Modern)
        .connect(byte_stream(reader, writer, 1 << 20));
    // An open stream, to learn when the client has seen the server go.
    let listening = tokio::spawn({
        let client = client.clone();
        async move { client.listen_tasks(vec!["a".into()]).await }
    });
    let (server_reader, mut server_writer) = tokio::io::split(theirs);
    let mut lines = tokio::io::BufReader::new(server_reader).lines();
    let listen: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                     "params": {"_meta": { SUBSCRIPTION_ID: listen["id"] },
                                "notifications": {"taskIds": ["a"]}}});
    server_writer
        .write_all(format!("{ack}\n").as_bytes())
        .await
        .unwrap();
    let mut subscription = listening.await.unwrap().unwrap();
    drop((lines, server_writer)); // the server process exits
    assert_eq!(subscription.next().await, None, "the stream ends with it");

    // Kept open, the stream sends no cancellation that would stop the
    // client's writer: the request below is written, and must still fail.
    let asked_at = Instant::now();
    let got = timeout(GUARD, client.get_task("t1")).await;
    assert_eq!(got.map_err(|_| "hung"), Ok(Err(ClientError::Closed)));
    assert_eq!(asked_at.elapsed(), Duration::ZERO, "fails at once");
    drop(subscription);
}

#[tokio::test(start_paused = true)]
async fn await_task_fails_when_the_connection_closes_between_polls() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "working", json!({}))).await;
    let _input = peer.close_output();
    let done = timeout(GUARD, awaiting).await.expect("await_task hangs");
    assert_eq!(done.unwrap(), Err(ClientError::Closed));
}

#[tokio::test(start_paused = true)]
async fn await_task_in_listen_mode_fails_when_the_connection_closes() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    peer.push(&listen, task("t1", "working", json!({}))).await;
    let _input = peer.close_output();
    let done = timeout(GUARD, awaiting).await.expect("await_task hangs");
    assert_eq!(done.unwrap(), Err(ClientError::Closed));
}

// ---------------------------------------------------------------------------
// Streams the server tears down
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_server_cancellation_ends_a_subscription_without_a_response() {
    let (client, mut peer, _) = tasks_client();
    let listening = tokio::spawn({
        let client = client.clone();
        async move { client.listen_tasks(vec!["a".into()]).await }
    });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["a"])).await;
    let mut subscription = listening.await.unwrap().unwrap();

    peer.push(&listen, task("a", "completed", completed_with("ok")))
        .await;
    peer.cancel_stream(&listen).await; // and no response follows
    let first = subscription.next().await.unwrap();
    assert_eq!(first.task.status, TaskStatus::Completed, "before the end");
    let end = timeout(GUARD, subscription.next()).await;
    assert_eq!(end.ok(), Some(None), "the server's cancellation ends it");
    assert_eq!(subscription.next().await, None);

    drop(subscription);
    assert_eq!(
        peer.sent_next().await,
        None,
        "no cancellation of a stream the server already cancelled"
    );
    drop(client);
}

#[tokio::test(start_paused = true)]
async fn await_task_polls_at_once_when_the_server_cancels_its_stream() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn(async move { client.await_task("t1", options).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    let cancelled_at = Instant::now();
    peer.cancel_stream(&listen).await;

    // Not a `notifications/cancelled` of its own, and no wait for the
    // fallback period.
    let get = peer.expect("tasks/get").await;
    assert_eq!(cancelled_at.elapsed(), Duration::ZERO, "polls at once");
    peer.reply(&get, got("t1", "completed", completed_with("polled")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("polled"));
    assert_eq!(peer.sent_next().await, None);
}

/// How the server ends a stream it tears down: the `complete` result then
/// `notifications/cancelled` (what it does now), or the other way round.
#[derive(Debug, Clone, Copy)]
enum Teardown {
    ResultFirst,
    CancellationFirst,
}

impl Teardown {
    async fn send(self, peer: &Peer, listen: &Value) {
        match self {
            Teardown::ResultFirst => {
                peer.end_stream(listen).await;
                peer.cancel_stream(listen).await;
            }
            Teardown::CancellationFirst => {
                peer.cancel_stream(listen).await;
                peer.end_stream(listen).await;
            }
        }
    }
}

/// An open subscription to task `a`, on a client that passes every
/// notification no stream takes to the returned receiver.
async fn subscribed() -> (
    Client,
    Peer,
    Value,
    TaskSubscription,
    mpsc::UnboundedReceiver<Notification>,
) {
    let (client, mut peer, seen) = observed_client();
    let listening = tokio::spawn({
        let client = client.clone();
        async move { client.listen_tasks(vec!["a".into()]).await }
    });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["a"])).await;
    let subscription = listening.await.unwrap().unwrap();
    (client, peer, listen, subscription, seen)
}

#[tokio::test(start_paused = true)]
async fn a_result_then_cancellation_ends_a_subscription_gracefully() {
    let logs = Logs::capture();
    let (client, mut peer, listen, mut subscription, mut seen) = subscribed().await;

    peer.push(&listen, task("a", "completed", completed_with("ok")))
        .await;
    Teardown::ResultFirst.send(&peer, &listen).await;
    marker(&peer).await;
    let first = subscription.next().await.unwrap();
    assert_eq!(first.task.status, TaskStatus::Completed, "before the end");
    assert_eq!(subscription.next().await, None);
    assert_eq!(subscription.end(), Some(&SubscriptionEnd::Completed));
    assert_eq!(subscription.next().await, None, "stays ended");

    drop(subscription);
    assert_eq!(peer.sent_next().await, None, "nothing is sent back");
    let first = timeout(GUARD, seen.recv()).await.unwrap().unwrap();
    assert_eq!(first.method, "notifications/message", "{first:?}");
    assert!(
        logs.mention("notification for a closed subscription"),
        "the trailing cancellation is read as the closed stream's: {:?}",
        logs.lines()
    );
    assert!(
        !logs.mention("no pending request"),
        "a response was taken for an unknown one: {:?}",
        logs.lines()
    );
    drop(client);
}

#[tokio::test(start_paused = true)]
async fn a_cancellation_then_result_ends_a_subscription_too() {
    let (client, mut peer, listen, mut subscription, mut seen) = subscribed().await;

    peer.push(&listen, task("a", "completed", completed_with("ok")))
        .await;
    Teardown::CancellationFirst.send(&peer, &listen).await;
    marker(&peer).await;
    let first = subscription.next().await.unwrap();
    assert_eq!(first.task.status, TaskStatus::Completed, "before the end");
    assert_eq!(subscription.next().await, None);
    assert_eq!(
        subscription.end(),
        Some(&SubscriptionEnd::CancelledByServer)
    );

    drop(subscription);
    assert_eq!(peer.sent_next().await, None, "nothing is sent back");
    let first = timeout(GUARD, seen.recv()).await.unwrap().unwrap();
    assert_eq!(first.method, "notifications/message", "{first:?}");
    drop(client);
}

#[tokio::test(start_paused = true)]
async fn a_cancellation_without_subscription_meta_ends_its_stream() {
    let (client, mut peer, listen, mut subscription, mut seen) = subscribed().await;

    let params = json!({"requestId": listen["id"], "reason": "shutting down"});
    peer.notify("notifications/cancelled", params).await;
    marker(&peer).await;
    let end = timeout(GUARD, subscription.next()).await;
    assert_eq!(
        end.ok(),
        Some(None),
        "the cancellation names the stream's request"
    );
    assert_eq!(
        subscription.end(),
        Some(&SubscriptionEnd::CancelledByServer)
    );

    drop(subscription);
    assert_eq!(peer.sent_next().await, None, "nothing is sent back");
    let first = timeout(GUARD, seen.recv()).await.unwrap().unwrap();
    assert_eq!(first.method, "notifications/message", "{first:?}");
    drop(client);
}

#[tokio::test(start_paused = true)]
async fn await_task_polls_on_when_the_server_ends_its_stream_in_either_order() {
    for order in [Teardown::ResultFirst, Teardown::CancellationFirst] {
        let logs = Logs::capture();
        let (client, mut peer, _) = tasks_client();
        let options = AwaitOptions::default().listen(true);
        let awaiting = tokio::spawn({
            let client = client.clone();
            async move { client.await_task("t1", options).await }
        });
        let listen = peer.expect("subscriptions/listen").await;
        peer.acknowledge(&listen, json!(["t1"])).await;
        peer.push(&listen, task("t1", "working", json!({}))).await;
        let ended_at = Instant::now();
        order.send(&peer, &listen).await;

        // It polls at once, then at the task's interval, to the end.
        let get = peer.expect("tasks/get").await;
        assert_eq!(
            ended_at.elapsed(),
            Duration::ZERO,
            "{order:?}: polls at once"
        );
        peer.reply(&get, got("t1", "working", json!({}))).await;
        let get = peer.expect("tasks/get").await;
        assert_eq!(
            ended_at.elapsed(),
            Duration::from_millis(250),
            "{order:?}: then at the interval"
        );
        peer.reply(&get, got("t1", "completed", completed_with("polled")))
            .await;
        let done = awaiting.await.unwrap();
        assert_eq!(done.unwrap().text(), Some("polled"), "{order:?}");
        assert_eq!(peer.sent_next().await, None, "{order:?}: no cancellation");
        if let Teardown::ResultFirst = order {
            assert!(
                !logs.mention("no pending request"),
                "a response was taken for an unknown one: {:?}",
                logs.lines()
            );
        }
        drop(client);
    }
}

#[tokio::test(start_paused = true)]
async fn a_late_result_after_the_servers_cancellation_does_not_disturb_polling() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_task("t1", options).await }
    });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    peer.cancel_stream(&listen).await;

    let get = peer.expect("tasks/get").await;
    // The stream's result arrives while the poll waits for its own.
    peer.end_stream(&listen).await;
    peer.reply(&get, got("t1", "completed", completed_with("polled")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("polled"));
    assert_eq!(peer.sent_next().await, None, "no cancellation");
    drop(client);
}

// ---------------------------------------------------------------------------
// Cancellations the client must not send
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn no_cancellation_is_sent_for_a_listen_request_already_answered() {
    let (client, mut peer, _) = tasks_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_task("t1", options).await }
    });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    // The server's whole teardown arrives before await_task acts on the
    // terminal state: that state, the cancellation, then the response.
    peer.push(&listen, task("t1", "completed", completed_with("built")))
        .await;
    peer.cancel_stream(&listen).await;
    peer.reply(
        &listen,
        json!({"resultType": "complete", "_meta": { SUBSCRIPTION_ID: listen["id"] }}),
    )
    .await;

    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("built"));
    assert_eq!(
        peer.sent_next().await,
        None,
        "cancelled a request whose response had arrived"
    );
    drop(client);
}

// ---------------------------------------------------------------------------
// Notifications for streams that are not open
// ---------------------------------------------------------------------------

/// A client passing every notification it does not consume itself to `seen`.
fn observed_client() -> (Client, Peer, mpsc::UnboundedReceiver<Notification>) {
    let (seen_tx, seen) = mpsc::unbounded_channel::<Notification>();
    let builder = Client::builder()
        .tasks(true)
        .on_notification(move |n| seen_tx.send(n).unwrap());
    let (client, peer) = connect(builder);
    (client, peer, seen)
}

/// Sends a plain log message; once the handler has it, everything the peer
/// sent before has been routed.
async fn marker(peer: &Peer) {
    peer.notify(
        "notifications/message",
        json!({"level": "info", "data": "marker"}),
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_notification_for_a_subscription_that_is_not_open_is_dropped() {
    let (_client, peer, mut seen) = observed_client();
    let stray = json!({"taskId": "z", "status": "working", "_meta": { SUBSCRIPTION_ID: 999 }});
    peer.notify("notifications/tasks", stray).await;
    marker(&peer).await;

    let first = timeout(GUARD, seen.recv()).await.unwrap().unwrap();
    assert_eq!(
        first.method, "notifications/message",
        "a notification for subscription 999 reached the handler: {first:?}"
    );
    assert!(seen.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn the_servers_teardown_of_a_closed_stream_stays_out_of_on_notification() {
    let (client, mut peer, mut seen) = observed_client();
    let options = AwaitOptions::default().listen(true);
    let awaiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_task("t1", options).await }
    });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["t1"])).await;
    peer.push(&listen, task("t1", "completed", completed_with("built")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("built"));
    let cancelled = peer.expect("notifications/cancelled").await;
    assert_eq!(cancelled["params"]["requestId"], listen["id"]);

    // The server had already started tearing the stream down.
    peer.push(&listen, task("t1", "completed", completed_with("built")))
        .await;
    peer.cancel_stream(&listen).await;
    peer.reply(
        &listen,
        json!({"resultType": "complete", "_meta": { SUBSCRIPTION_ID: listen["id"] }}),
    )
    .await;
    marker(&peer).await;

    let first = timeout(GUARD, seen.recv()).await.unwrap().unwrap();
    assert_eq!(
        first.method, "notifications/message",
        "the stream's teardown reached the handler: {first:?}"
    );
    assert!(seen.try_recv().is_err());
    drop(client);
}

// ---------------------------------------------------------------------------
// Input requests without a handler
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_missing_handler_fails_before_any_handler_is_called() {
    let (client, _peer, asked) = tasks_client();
    let requests: InputRequests = serde_json::from_value(elicitation_and_sampling()).unwrap();
    let answered = client.answer_input_requests(requests).await;
    assert_eq!(answered, Err(no_sampling_handler()));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the user was asked a question whose answer is thrown away"
    );
}

#[tokio::test(start_paused = true)]
async fn await_task_with_a_missing_handler_fails_without_asking_or_updating() {
    let (client, mut peer, asked) = tasks_client();
    let awaiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_task("t1", AwaitOptions::default()).await }
    });
    let get = peer.expect("tasks/get").await;
    let input = json!({"inputRequests": elicitation_and_sampling()});
    peer.reply(&get, got("t1", "input_required", input)).await;

    assert_eq!(awaiting.await.unwrap(), Err(no_sampling_handler()));
    assert_eq!(asked.load(Ordering::SeqCst), 0, "no handler was called");
    assert_eq!(peer.sent_next().await, None, "no tasks/update");
    drop(client);
}

// ---------------------------------------------------------------------------
// Poll pacing
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn await_task_honours_a_long_poll_interval() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "working", json!({"pollIntervalMs": 60000})))
        .await;
    let answered_at = Instant::now();
    let get = peer.expect("tasks/get").await;
    assert_eq!(
        answered_at.elapsed(),
        Duration::from_secs(60),
        "the server asked for 60 s between polls"
    );
    peer.reply(&get, got("t1", "completed", completed_with("ok")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("ok"));
}

#[tokio::test(start_paused = true)]
async fn after_an_update_await_task_waits_the_poll_interval_before_polling_again() {
    let (client, mut peer, asked) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    let input = json!({"inputRequests": {"confirm": confirm_request("Build?")},
                       "pollIntervalMs": 2000});
    peer.reply(&get, got("t1", "input_required", input)).await;
    let update = peer.expect("tasks/update").await;
    peer.reply(&update, json!({"resultType": "complete"})).await;
    let updated_at = Instant::now();

    let get = peer.expect("tasks/get").await;
    assert_eq!(
        updated_at.elapsed(),
        Duration::from_secs(2),
        "the next poll waits for the interval after an update too"
    );
    peer.reply(&get, got("t1", "completed", completed_with("built")))
        .await;
    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("built"));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_refused_version_that_the_server_lists_is_tried_once_more() {
    let (client, mut peer) = connect(Client::builder());
    let discovering = tokio::spawn(async move { client.discover().await });
    let first = peer.expect("server/discover").await;
    let refusal = json!({"jsonrpc": "2.0", "id": first["id"], "error": {
        "code": -32022, "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}});
    peer.send(refusal.clone()).await;
    let second = peer.expect("server/discover").await;
    assert_ne!(second["id"], first["id"], "a retry is a new request");
    assert_eq!(
        second["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // Refused again: one retry only, then the error.
    let mut again = refusal;
    again["id"] = second["id"].clone();
    peer.send(again).await;
    let error = discovering.await.unwrap().unwrap_err();
    assert_eq!(error.code(), Some(-32022), "{error}");
    assert_eq!(peer.try_recv(), None, "no third attempt");
}

/// A malformed response still answers its request: the request fails with
/// an invalid response instead of waiting for an answer that has come.
#[tokio::test(start_paused = true)]
async fn a_malformed_response_fails_its_request() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move { client.list_tools().await });
    let request = peer.expect("tools/list").await;
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": "boom"}))
        .await;
    match asking.await.unwrap() {
        Err(ClientError::InvalidResponse(message)) => assert_eq!(
            message,
            "malformed response: `error` must be an object with a code and a message"
        ),
        other => panic!("expected an invalid response, got {other:?}"),
    }
}
