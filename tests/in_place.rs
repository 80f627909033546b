//! An in-process client's 2026-07-28 requests, served in place: on the
//! caller's own task, under the connection's rules as far as they apply
//! to a request with no channel under it (`server/serving/in_process.rs`).
//!
//! Time is paused where a test waits for something that must not happen:
//! such a wait elapses only once every task is idle.

use crate::common;

use std::time::Duration;

use common::{fixture, fixture_with, meta};
use futures::StreamExt;
use presa::client::{AwaitOptions, Client, ClientError, Era, SubscriptionEvent};
use presa::prelude::*;
use presa::server::MAX_SUBSCRIPTIONS;
use presa::transport::InPlace;
use presa::wire::SubscriptionFilter;
use serde_json::{Value, json};

/// How long to wait for what must not come (virtual time).
const QUIET: Duration = Duration::from_secs(1);

/// The task the tool's handler runs on.
#[tool]
async fn which_task() -> String {
    format!("{:?}", tokio::task::try_id())
}

/// The in-place half of a new in-process connection to `server`.
fn in_place_of(server: &Server) -> InPlace {
    in_process(server, Caller::anonymous())
        .in_place
        .expect("an in-process connection serves in place")
}

/// Every frame that answers `frame`, served in place, as JSON.
async fn answers(server: &InPlace, frame: &str) -> Vec<Value> {
    server
        .serve(frame.to_owned())
        .map(|line| serde_json::from_str(&line).expect("an answer is JSON"))
        .collect()
        .await
}

fn call(id: i64, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}, "_meta": meta(json!({}))}})
    .to_string()
}

#[tokio::test]
async fn a_call_in_process_runs_on_the_callers_own_task() {
    let server = Server::builder("tasks", "1").tool(WhichTaskTool).build();
    let client = Client::builder().connect(in_process(&server, Caller::anonymous()));
    let (caller, handler) = tokio::spawn(async move {
        let result = client.call_tool("which_task", json!({})).await.unwrap();
        let handler = result.text().unwrap().to_owned();
        (format!("{:?}", tokio::task::try_id()), handler)
    })
    .await
    .unwrap();
    assert!(caller.starts_with("Some("), "{caller}");
    assert_eq!(handler, caller);
}

#[tokio::test]
async fn a_legacy_client_in_process_is_served_on_the_frames() {
    let server = Server::builder("tasks", "1").tool(WhichTaskTool).build();
    let client = Client::builder()
        .force_era(Era::Legacy)
        .connect(in_process(&server, Caller::anonymous()));
    let result = client.call_tool("which_task", json!({})).await.unwrap();
    let here = format!("{:?}", tokio::task::try_id());
    assert_ne!(result.text(), Some(here.as_str()));
    assert!(result.text().unwrap().starts_with("Some("));
}

#[tokio::test]
async fn dropping_a_call_served_in_place_drops_its_handler() {
    let f = fixture();
    let client = Client::builder().connect(in_process(&f.server, Caller::anonymous()));
    tokio::select! {
        outcome = client.call_tool("wait_forever", json!({})) => panic!("answered: {outcome:?}"),
        () = f.probe.started.notified() => {}
    }
    // The call, dropped with the other branch, took its handler with it.
    f.probe.dropped.notified().await;
}

#[tokio::test(start_paused = true)]
async fn a_call_served_in_place_that_times_out_drops_its_handler() {
    let f = fixture();
    let client = Client::builder()
        .request_timeout(Duration::from_secs(5))
        .connect(in_process(&f.server, Caller::anonymous()));
    let outcome = client.call_tool("wait_forever", json!({})).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(limit)) if limit == Duration::from_secs(5)),
        "{outcome:?}"
    );
    f.probe.dropped.notified().await;
}

#[tokio::test]
async fn a_request_is_answered_with_its_response() {
    let f = fixture();
    let discover = json!({"jsonrpc": "2.0", "id": 7, "method": "server/discover",
                          "params": {"_meta": meta(json!({}))}});
    let answered = answers(&in_place_of(&f.server), &discover.to_string()).await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["id"], 7);
    assert!(
        answered[0]["result"]["supportedVersions"].is_array(),
        "{answered:?}"
    );
}

#[tokio::test]
async fn a_frame_over_the_limit_is_refused_unread() {
    let f = fixture_with(|b| b.max_message_size(256));
    let frame = format!(r#"{{"padding": "{}"}}"#, "x".repeat(300));
    let answered = answers(&in_place_of(&f.server), &frame).await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["id"], Value::Null);
    assert_eq!(answered[0]["error"]["code"], -32600);
    let message = answered[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("256-byte limit"), "{message}");
}

#[tokio::test]
async fn a_frame_that_is_no_message_gets_the_connections_error() {
    let f = fixture();
    let answered = answers(&in_place_of(&f.server), "not json").await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["error"]["code"], -32700);
}

#[tokio::test]
async fn a_notification_has_nothing_to_act_on_and_no_answer() {
    let f = fixture();
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 1}});
    let answered = answers(&in_place_of(&f.server), &cancelled.to_string()).await;
    assert!(answered.is_empty(), "{answered:?}");
}

#[tokio::test(start_paused = true)]
async fn a_request_waits_for_a_free_slot() {
    let f = fixture_with(|b| b.max_in_flight(1));
    let server = in_place_of(&f.server);
    let mut first = server.serve(call(1, "gated_started"));
    let running = tokio::spawn(async move { first.next().await });
    f.probe.started.notified().await;
    let mut second = server.serve(call(2, "raw_result"));
    let waited = tokio::time::timeout(QUIET, second.next()).await;
    assert!(
        waited.is_err(),
        "ran beside the only slot's request: {waited:?}"
    );
    f.probe.release.notify_one();
    let first = running.await.unwrap().expect("the first is answered");
    assert!(first.contains(r#""id":1"#), "{first}");
    let second = second.next().await.expect("the second is answered");
    assert!(second.contains(r#""id":2"#), "{second}");
}

#[tokio::test]
async fn subscriptions_past_the_limit_are_refused_busy() {
    let f = fixture();
    let server = in_place_of(&f.server);
    let listen = |id: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
               "params": {"notifications": {"toolsListChanged": true},
                          "_meta": meta(json!({}))}})
        .to_string()
    };
    let mut open = Vec::new();
    for id in 0..MAX_SUBSCRIPTIONS {
        let mut stream = server.serve(listen(id));
        let ack: Value = serde_json::from_str(&stream.next().await.unwrap()).unwrap();
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        open.push(stream);
    }
    let refused = answers(&server, &listen(MAX_SUBSCRIPTIONS)).await;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["error"]["code"], -31001, "{refused:?}");
    // A stream dropped gives its place back.
    drop(open.pop());
    let mut again = server.serve(listen(MAX_SUBSCRIPTIONS + 1));
    let ack: Value = serde_json::from_str(&again.next().await.unwrap()).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
}

/// Served in place, a subscription needs no other task to run: opened,
/// acknowledged and told of a change each in one poll of the client's own
/// future, where frames would wait for the server's task and the reader's.
#[tokio::test]
async fn a_subscription_in_process_is_served_in_place() {
    use futures::FutureExt;
    let server = Server::builder("tasks", "1").tool(WhichTaskTool).build();
    let client = Client::builder().connect(in_process(&server, Caller::anonymous()));
    // The first request settles the era; from then on, every one is modern.
    client.list_tools().await.unwrap();
    let filter = SubscriptionFilter::new().tools_list_changed();
    let mut subscription = client
        .listen(filter.clone())
        .now_or_never()
        .expect("acknowledged in place, in one poll")
        .unwrap();
    assert_eq!(subscription.acknowledged(), &filter);
    server.remove_tool("which_task");
    let event = subscription.next().now_or_never();
    assert_eq!(event, Some(Some(SubscriptionEvent::ToolsListChanged)));
    // Nothing more: the stream waits, still open.
    assert_eq!(subscription.next().now_or_never(), None);
    assert!(subscription.end().is_none());
}

/// A task listened to in process is followed in place to its end: a
/// handler that ends without waiting has ended by the time its task is
/// created, and the stream says so at once.
#[tokio::test]
async fn a_task_listened_to_in_process_is_followed_in_place() {
    use futures::FutureExt;
    let f = fixture();
    let client = Client::builder()
        .tasks(true)
        .connect(in_process(&f.server, Caller::anonymous()));
    client.list_tools().await.unwrap();
    let outcome = client
        .call_tool("long_job", json!({}))
        .now_or_never()
        .expect("created in place, in one poll")
        .unwrap();
    let task = outcome.task().expect("a task").clone();
    let options = AwaitOptions::default().listen(true);
    let result = client
        .await_task(&task, options)
        .now_or_never()
        .expect("followed to its end in place, in one poll")
        .unwrap();
    assert_eq!(result.text(), Some("done"));
}
