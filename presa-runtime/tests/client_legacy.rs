//! The client in a legacy (2025-11-25) session: the same API as with a
//! modern server, with the server's own requests answered through the
//! same handlers, and legacy tasks followed to their end.
//!
//! Each test scripts the server (see `scripted/legacy.rs`), which checks
//! every frame against the 2025-11-25 schema; time is paused.

mod scripted;

use scripted::legacy::{LegacyPeer, connect_legacy, legacy_task};

use std::sync::{Arc, Mutex};

use presa_runtime::client::{
    AwaitOptions, CallOutcome, Client, ClientBuilder, ClientError, PendingInput, SamplingDeclined,
    SubscriptionEnd, SubscriptionEvent,
};
use presa_runtime::wire::{
    CreateMessageResult, ElicitRequestParams, ElicitResult, Role, Root, SamplingContent,
    SubscriptionFilter, TaskStatus,
};
use serde_json::{Value, json};

/// What the elicitation handler was given, by call.
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A client that accepts every form with `{"name": "Ada"}`, recording the
/// key and task of each question, and answers sampling and roots.
fn answering_client() -> (ClientBuilder, Seen) {
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let builder = Client::builder()
        .on_elicitation(move |input: PendingInput<ElicitRequestParams>| {
            record.lock().unwrap().push((input.key, input.task_id));
            async { ElicitResult::accept(json!({"name": "Ada"})) }
        })
        .on_sampling(|_| async {
            CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContent::One(presa_runtime::wire::Content::text("Paris")),
                model: "m".into(),
                stop_reason: None,
            }
        })
        .on_roots(|_| async {
            vec![Root {
                uri: "file:///work".into(),
                name: None,
            }]
        });
    (builder, seen)
}

/// Calls `name` in the background; the test plays the server.
fn call(client: &Client, name: &str) -> tokio::task::JoinHandle<Result<CallOutcome, ClientError>> {
    let (client, name) = (client.clone(), name.to_owned());
    tokio::spawn(async move { client.call_tool(&name, json!({"x": 1})).await })
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn form() -> Value {
    json!({"message": "Your name?", "requestedSchema": {"type": "object", "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "default": 30},
        "role": {"type": "string", "enum": ["dev", "ops"], "default": "ops"}}}})
}

/// Capabilities of a server that runs tool calls as tasks.
fn task_server() -> Value {
    json!({"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}})
}

/// Answers the `tools/list` a task-minded client sends before its first
/// call, listing `tool` with `support`.
async fn list_for_tasks(peer: &mut LegacyPeer, tool: &str, support: &str) {
    let list = peer.expect("tools/list").await;
    peer.reply(
        &list,
        json!({"tools": [{"name": tool, "inputSchema": {"type": "object"},
                                          "execution": {"taskSupport": support}}]}),
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_legacy_servers_questions_reach_the_same_handlers() {
    let (builder, seen) = answering_client();
    let (client, mut peer) = connect_legacy(builder);
    let calling = call(&client, "greet");
    let initialize = peer.open_session(json!({"tools": {}})).await;
    assert_eq!(
        initialize["params"]["capabilities"],
        json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
    );
    let request = peer.expect("tools/call").await;
    assert_eq!(
        request["params"],
        json!({"name": "greet", "arguments": {"x": 1}})
    );

    peer.ask(json!(7), "elicitation/create", form()).await;
    let answer = peer.recv().await;
    assert_eq!(answer["id"], 7);
    assert_eq!(
        answer["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 30, "role": "ops"}}),
        "the schema's defaults fill what the user left out"
    );
    peer.ask(
        json!("s"),
        "sampling/createMessage",
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Capital?"}}],
                    "maxTokens": 10}),
    )
    .await;
    let sampled = peer.recv().await;
    assert_eq!(sampled["result"]["content"]["text"], "Paris");
    peer.ask(json!("r"), "roots/list", json!({})).await;
    let roots = peer.recv().await;
    assert_eq!(roots["result"], json!({"roots": [{"uri": "file:///work"}]}));

    peer.reply(&request, text("Hello, Ada")).await;
    let outcome = calling.await.unwrap().unwrap();
    assert_eq!(outcome.text(), Some("Hello, Ada"));
    assert_eq!(
        *seen.lock().unwrap(),
        [("7".to_owned(), None)],
        "a legacy question's key is its request id"
    );
}

#[tokio::test(start_paused = true)]
async fn a_declined_sampling_request_is_the_spec_s_refusal() {
    let builder = Client::builder().on_sampling(|input| async move {
        match input.key.as_str() {
            "1" => Err(SamplingDeclined::because("not today")),
            _ => Err::<CreateMessageResult, _>(SamplingDeclined::new()),
        }
    });
    let (client, mut peer) = connect_legacy(builder);
    let calling = call(&client, "summarize");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    let asking = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Sum up"}}],
                        "maxTokens": 10});
    peer.ask(json!(1), "sampling/createMessage", asking.clone())
        .await;
    let refused = peer.recv().await;
    assert_eq!(
        refused["error"],
        json!({"code": -1, "message": "User rejected sampling request",
               "data": {"reason": "not today"}})
    );
    peer.ask(json!(2), "sampling/createMessage", asking).await;
    let refused = peer.recv().await;
    assert_eq!(
        refused["error"],
        json!({"code": -1, "message": "User rejected sampling request"}),
        "no reason, no data"
    );
    peer.reply(&request, text("no summary")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("no summary"));
}

#[tokio::test(start_paused = true)]
async fn a_question_without_a_handler_or_with_bad_params_is_an_error_answer() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let calling = call(&client, "greet");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    peer.ask(json!(1), "elicitation/create", form()).await;
    let refused = peer.recv().await;
    assert_eq!(refused["error"]["code"], -32601);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("elicitation/create")
    );
    peer.send_malformed(
        json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create",
                               "params": {"message": 5}}),
    )
    .await;
    assert_eq!(peer.recv().await["error"]["code"], -32602);
    peer.send_malformed(json!({"jsonrpc": "2.0", "id": 3, "method": "x/unknown", "params": {}}))
        .await;
    assert_eq!(peer.recv().await["error"]["code"], -32601);
    peer.reply(&request, text("ok")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("ok"));
}

#[tokio::test(start_paused = true)]
async fn a_question_the_server_cancels_is_dropped_unanswered() {
    let asked = Arc::new(tokio::sync::Notify::new());
    let dropped = Arc::new(tokio::sync::Notify::new());
    let (on_ask, on_drop) = (Arc::clone(&asked), Arc::clone(&dropped));
    let builder = Client::builder().on_elicitation(move |_| {
        let (asked, dropped) = (Arc::clone(&on_ask), Arc::clone(&on_drop));
        async move {
            let _guard = NotifyOnDrop(dropped);
            asked.notify_one();
            std::future::pending::<ElicitResult>().await
        }
    });
    let (client, mut peer) = connect_legacy(builder);
    let calling = call(&client, "greet");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    peer.ask(json!(5), "elicitation/create", form()).await;
    asked.notified().await;
    peer.notify(
        "notifications/cancelled",
        json!({"requestId": 5, "reason": "timed out"}),
    )
    .await;
    dropped.notified().await;
    assert_eq!(
        peer.sent_next().await,
        None,
        "no answer to a cancelled request"
    );
    peer.reply(&request, text("ok")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("ok"));
}

#[tokio::test(start_paused = true)]
async fn the_end_of_the_connection_drops_the_questions_being_answered() {
    let asked = Arc::new(tokio::sync::Notify::new());
    let dropped = Arc::new(tokio::sync::Notify::new());
    let (on_ask, on_drop) = (Arc::clone(&asked), Arc::clone(&dropped));
    let builder = Client::builder().on_elicitation(move |_| {
        let guard = NotifyOnDrop(Arc::clone(&on_drop));
        on_ask.notify_one();
        async move {
            let _guard = guard;
            std::future::pending::<ElicitResult>().await
        }
    });
    let (client, mut peer) = connect_legacy(builder);
    let calling = call(&client, "greet");
    peer.open_session(json!({"tools": {}})).await;
    peer.expect("tools/call").await;
    peer.ask(json!(5), "elicitation/create", form()).await;
    asked.notified().await;
    drop(peer);
    dropped.notified().await;
    assert_eq!(calling.await.unwrap(), Err(ClientError::Closed));
}

/// Wakes its `Notify` when dropped.
struct NotifyOnDrop(Arc<tokio::sync::Notify>);

impl Drop for NotifyOnDrop {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_cannot_make_the_client_answer_without_bound() {
    let builder = Client::builder()
        .on_elicitation(|_| async { std::future::pending::<ElicitResult>().await });
    let (client, mut peer) = connect_legacy(builder);
    let calling = call(&client, "greet");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    for id in 0..64 {
        peer.ask(json!(id), "elicitation/create", form()).await;
    }
    peer.ask(json!(64), "elicitation/create", form()).await;
    let busy = peer.recv().await;
    assert_eq!(busy["id"], 64);
    assert_eq!(busy["error"]["code"], -32603);
    peer.ask(json!(3), "elicitation/create", form()).await;
    let duplicate = peer.recv().await;
    assert_eq!(
        (duplicate["id"].clone(), duplicate["error"]["code"].clone()),
        (json!(3), json!(-32600))
    );
    peer.reply(&request, text("ok")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("ok"));
}

#[tokio::test(start_paused = true)]
async fn dropping_a_legacy_call_cancels_it_on_the_server() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let calling = call(&client, "slow");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    calling.abort();
    let cancelled = peer.expect("notifications/cancelled").await;
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
}

#[tokio::test(start_paused = true)]
async fn a_legacy_task_is_created_and_awaited_through_its_questions() {
    let (builder, seen) = answering_client();
    let (client, mut peer) = connect_legacy(builder.tasks(true));
    let calling = call(&client, "build");
    peer.open_session(task_server()).await;
    list_for_tasks(&mut peer, "build", "optional").await;
    let request = peer.expect("tools/call").await;
    assert_eq!(
        request["params"]["task"],
        json!({}),
        "the client asks for a task"
    );
    peer.reply(&request, json!({"task": legacy_task("t1", "working")}))
        .await;
    let outcome = calling.await.unwrap().unwrap();
    let handle = outcome.task().expect("a task").clone();
    assert_eq!(handle.id(), "t1");
    assert_eq!(handle.task().poll_interval_ms, Some(250));

    let awaiting = {
        let client = client.clone();
        tokio::spawn(async move { client.await_task(&handle, AwaitOptions::default()).await })
    };
    let get = peer.expect("tasks/get").await;
    assert_eq!(get["params"], json!({"taskId": "t1"}));
    peer.reply(&get, legacy_task("t1", "working")).await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "input_required")).await;
    let result = peer.expect("tasks/result").await;
    let mut question = form();
    question["_meta"] = json!({"io.modelcontextprotocol/related-task": {"taskId": "t1"}});
    peer.ask(json!(40), "elicitation/create", question).await;
    let answer = peer.recv().await;
    assert_eq!(answer["result"]["content"]["name"], "Ada");
    let mut done = text("built");
    done["_meta"] = json!({"io.modelcontextprotocol/related-task": {"taskId": "t1"}});
    peer.reply(&result, done).await;
    let result = awaiting.await.unwrap().unwrap();
    assert_eq!(result.text(), Some("built"));
    assert_eq!(
        *seen.lock().unwrap(),
        [("40".to_owned(), Some("t1".to_owned()))],
        "the handler is told the task"
    );
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_forbids_tasks_or_a_server_without_them_is_called_plainly() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let calling = call(&client, "quick");
    peer.open_session(task_server()).await;
    list_for_tasks(&mut peer, "quick", "forbidden").await;
    let request = peer.expect("tools/call").await;
    assert!(request["params"].get("task").is_none());
    peer.reply(&request, text("done")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("done"));

    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let calling = call(&client, "build");
    peer.open_session(json!({"tools": {}})).await;
    let request = peer.expect("tools/call").await;
    assert!(
        request["params"].get("task").is_none(),
        "no tools/list either"
    );
    peer.reply(&request, text("done")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("done"));

    let (client, mut peer) = connect_legacy(Client::builder());
    let calling = call(&client, "build");
    peer.open_session(task_server()).await;
    let request = peer.expect("tools/call").await;
    assert!(
        request["params"].get("task").is_none(),
        "a client without tasks asks none"
    );
    peer.reply(&request, text("done")).await;
    assert_eq!(calling.await.unwrap().unwrap().text(), Some("done"));
}

/// Opens a task-minded session in which task `t1` exists, and starts
/// awaiting it.
async fn awaiting_t1(
    peer: &mut LegacyPeer,
    client: &Client,
) -> tokio::task::JoinHandle<Result<presa_runtime::wire::CallToolResult, ClientError>> {
    let era = {
        let client = client.clone();
        tokio::spawn(async move { client.era().await })
    };
    peer.open_session(task_server()).await;
    era.await.unwrap().unwrap();
    let client = client.clone();
    tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await })
}

#[tokio::test(start_paused = true)]
async fn a_failed_legacy_task_gives_its_error_result_or_its_error() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let awaiting = awaiting_t1(&mut peer, &client).await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "failed")).await;
    let result = peer.expect("tasks/result").await;
    let mut failed = text("no such target");
    failed["isError"] = json!(true);
    peer.reply(&result, failed).await;
    let result = awaiting.await.unwrap().unwrap();
    assert_eq!(
        result.is_error,
        Some(true),
        "as a modern task completes with it"
    );

    let awaiting = {
        let client = client.clone();
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await })
    };
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "failed")).await;
    let result = peer.expect("tasks/result").await;
    peer.reply_error(
        &result,
        json!({"code": -32603, "message": "Internal error"}),
    )
    .await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "failed")).await;
    let error = awaiting.await.unwrap().unwrap_err();
    assert!(
        matches!(&error, ClientError::TaskFailed(e) if e.code == -32603),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_or_unknown_legacy_task_says_so() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let awaiting = awaiting_t1(&mut peer, &client).await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "cancelled")).await;
    assert_eq!(
        awaiting.await.unwrap(),
        Err(ClientError::TaskCancelled {
            task_id: "t1".into()
        })
    );

    let awaiting = {
        let client = client.clone();
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await })
    };
    let get = peer.expect("tasks/get").await;
    peer.reply_error(
        &get,
        json!({"code": -32602, "message": "Failed to retrieve task: Task not found"}),
    )
    .await;
    let error = awaiting.await.unwrap().unwrap_err();
    assert_eq!(error.code(), Some(-32602));
    assert!(error.to_string().contains("Task not found"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn get_and_cancel_work_on_a_legacy_task() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let era = {
        let client = client.clone();
        tokio::spawn(async move { client.era().await })
    };
    peer.open_session(task_server()).await;
    era.await.unwrap().unwrap();

    let getting = {
        let client = client.clone();
        tokio::spawn(async move { client.get_task("t1").await })
    };
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, legacy_task("t1", "completed")).await;
    let result = peer.expect("tasks/result").await;
    peer.reply(&result, text("built")).await;
    let task = getting.await.unwrap().unwrap();
    assert_eq!(task.task.status, TaskStatus::Completed);
    assert_eq!(task.task.ttl_ms, Some(60000));
    assert_eq!(task.result.unwrap()["content"][0]["text"], "built");

    let cancelling = {
        let client = client.clone();
        tokio::spawn(async move { client.cancel_task("t1").await })
    };
    let cancel = peer.expect("tasks/cancel").await;
    assert_eq!(cancel["params"], json!({"taskId": "t1"}));
    peer.reply(&cancel, legacy_task("t1", "cancelled")).await;
    assert_eq!(cancelling.await.unwrap(), Ok(()));
}

#[tokio::test(start_paused = true)]
async fn prompts_resources_and_completion_speak_legacy() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let reading = {
        let client = client.clone();
        tokio::spawn(async move { client.read_resource("file:///a").await })
    };
    peer.open_session(json!({"resources": {}, "prompts": {}}))
        .await;
    let read = peer.expect("resources/read").await;
    assert_eq!(read["params"], json!({"uri": "file:///a"}));
    peer.reply(
        &read,
        json!({"contents": [{"uri": "file:///a", "text": "hi"}]}),
    )
    .await;
    let contents = reading.await.unwrap().unwrap();
    assert_eq!(contents.contents.len(), 1);

    let getting = {
        let client = client.clone();
        tokio::spawn(async move { client.get_prompt("p", json!({"a": "b"})).await })
    };
    let get = peer.expect("prompts/get").await;
    assert_eq!(get["params"], json!({"name": "p", "arguments": {"a": "b"}}));
    peer.reply(
        &get,
        json!({"messages": [{"role": "user",
                                           "content": {"type": "text", "text": "x"}}]}),
    )
    .await;
    assert_eq!(getting.await.unwrap().unwrap().messages.len(), 1);

    let missing = {
        let client = client.clone();
        tokio::spawn(async move { client.read_resource("file:///gone").await })
    };
    let read = peer.expect("resources/read").await;
    peer.reply_error(
        &read,
        json!({"code": -32002, "message": "Resource not found",
                                   "data": {"uri": "file:///gone"}}),
    )
    .await;
    assert!(missing.await.unwrap().unwrap_err().is_resource_not_found());
}

#[tokio::test(start_paused = true)]
async fn listen_takes_what_the_session_sends_as_granted() {
    let (tx, mut others) = tokio::sync::mpsc::unbounded_channel();
    let builder = Client::builder().on_notification(move |n| {
        let _ = tx.send(n.method);
    });
    let (client, mut peer) = connect_legacy(builder);
    let filter = SubscriptionFilter::new()
        .tools_list_changed()
        .prompts_list_changed()
        .resource("file:///a")
        .resource("file:///b");
    let listening = {
        let client = client.clone();
        tokio::spawn(async move { client.listen(filter).await })
    };
    peer.open_session(json!({"tools": {"listChanged": true}, "prompts": {},
                             "resources": {"subscribe": true}}))
        .await;
    let subscribe = peer.expect("resources/subscribe").await;
    assert_eq!(subscribe["params"], json!({"uri": "file:///a"}));
    peer.reply(&subscribe, json!({})).await;
    let subscribe = peer.expect("resources/subscribe").await;
    peer.reply_error(
        &subscribe,
        json!({"code": -32602, "message": "no such resource"}),
    )
    .await;
    let mut stream = listening.await.unwrap().unwrap();
    let granted = stream.acknowledged();
    assert_eq!(granted.tools_list_changed, Some(true));
    assert_eq!(
        granted.prompts_list_changed, None,
        "the server announces no prompt changes"
    );
    assert_eq!(
        granted.resource_subscriptions.as_deref(),
        Some(&["file:///a".to_owned()][..])
    );

    peer.notify("notifications/prompts/list_changed", json!({}))
        .await;
    peer.notify(
        "notifications/resources/updated",
        json!({"uri": "file:///b"}),
    )
    .await;
    peer.notify("notifications/tools/list_changed", json!({}))
        .await;
    peer.notify(
        "notifications/resources/updated",
        json!({"uri": "file:///a"}),
    )
    .await;
    assert_eq!(
        stream.next().await,
        Some(SubscriptionEvent::ToolsListChanged)
    );
    assert_eq!(
        stream.next().await,
        Some(SubscriptionEvent::ResourceUpdated {
            uri: "file:///a".into()
        })
    );
    assert_eq!(
        others.recv().await.as_deref(),
        Some("notifications/prompts/list_changed")
    );
    assert_eq!(
        others.recv().await.as_deref(),
        Some("notifications/resources/updated")
    );

    drop(stream);
    let unsubscribe = peer.expect("resources/unsubscribe").await;
    assert_eq!(unsubscribe["params"], json!({"uri": "file:///a"}));
    assert_eq!(peer.sent_next().await, None, "only what was subscribed");
}

#[tokio::test(start_paused = true)]
async fn a_task_stream_reads_the_sessions_task_states() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let listening = {
        let client = client.clone();
        tokio::spawn(async move { client.listen_tasks(vec!["t1".into()]).await })
    };
    peer.open_session(task_server()).await;
    let mut stream = listening.await.unwrap().unwrap();
    assert_eq!(stream.acknowledged(), ["t1"]);
    peer.notify("notifications/tasks/status", legacy_task("t2", "working"))
        .await;
    peer.notify("notifications/tasks/status", legacy_task("t1", "completed"))
        .await;
    let task = stream.next().await.unwrap();
    assert_eq!(
        (task.task.task_id.as_str(), task.task.status),
        ("t1", TaskStatus::Completed)
    );
    assert_eq!(task.task.poll_interval_ms, Some(250));
    drop(peer);
    assert_eq!(stream.next().await, None);
    assert!(matches!(
        stream.end(),
        Some(SubscriptionEnd::Failed(ClientError::Closed))
    ));
}
