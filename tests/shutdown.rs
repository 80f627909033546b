//! How a connection ends when it is told to stop: every request it took is
//! answered exactly once, with its result, or with `-31003` saying whether
//! it ran; subscriptions end with their graceful closure.
//!
//! Time is paused: the drain period passes in virtual time, and "nothing
//! more arrives" is checked once every task is idle.

use crate::common;

use std::time::Duration;

use common::{RawPeer, fixture_with, meta};
use presa::prelude::*;
use presa::transport::FrameChannel;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const DRAIN: Duration = Duration::from_secs(5);

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments, "_meta": meta(json!({}))}})
}

fn discover(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
           "params": {"_meta": meta(json!({}))}})
}

/// `server` served on an in-memory connection until `stop` is sent.
fn serve_until_stopped(server: &Server) -> (RawPeer, oneshot::Sender<()>, JoinHandle<()>) {
    let (client_end, server_end) = FrameChannel::pair();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(presa::server::serve_until(
        server.clone(),
        server_end,
        presa::Caller::anonymous(),
        async move {
            let _ = stopped.await;
        },
    ));
    (RawPeer::new(client_end), stop, serving)
}

/// Reads until the connection's end; each message must be the only answer
/// to its id.
async fn answers_until_the_end(peer: RawPeer) -> Vec<Value> {
    let mut rest = peer.close();
    let mut answers = Vec::new();
    while let Some(presa::transport::Inbound::Frame(frame)) = rest.recv().await {
        answers.push(serde_json::from_str(&frame).unwrap());
    }
    answers
}

fn assert_shutting_down(answer: &Value, started: bool) {
    assert_eq!(answer["error"]["code"], -31003, "{answer}");
    assert_eq!(
        answer["error"]["data"],
        json!({"started": started}),
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Server shutting down"), "{message}");
}

/// One request running, one waiting for the only slot, one subscription:
/// at the stop the subscription closes gracefully; when the drain period
/// is over, the waiting request is answered as never run, the running one
/// as cut short. Nothing is answered twice, and serving returns.
#[tokio::test(start_paused = true)]
async fn when_the_drain_period_ends_every_request_taken_is_answered_once() {
    let f = fixture_with(|b| b.max_in_flight(1).drain_period(DRAIN));
    let (mut peer, stop, serving) = serve_until_stopped(&f.server);
    peer.send(call(1, "wait_forever", json!({}))).await;
    f.probe.started.notified().await;
    peer.send(discover(2)).await;
    let listen = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
                        "params": {"notifications": {"toolsListChanged": true},
                                   "_meta": meta(json!({}))}});
    peer.send(listen).await;
    let ack = peer.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let stopped_at = tokio::time::Instant::now();
    stop.send(()).unwrap();
    let closed = peer.recv().await;
    assert_eq!(closed["id"], 3, "{closed}");
    assert_eq!(closed["result"]["resultType"], "complete", "{closed}");
    assert_eq!(
        closed["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        3
    );
    let teardown = peer.recv().await;
    assert_eq!(teardown["method"], "notifications/cancelled", "{teardown}");
    assert_eq!(teardown["params"]["requestId"], 3);
    assert_eq!(teardown["params"]["reason"], "the server is shutting down");
    assert_eq!(
        tokio::time::Instant::now(),
        stopped_at,
        "the subscription closes at once"
    );

    let first = peer.recv().await;
    assert_eq!(
        stopped_at.elapsed(),
        DRAIN,
        "the rest waits for the drain period"
    );
    let second = peer.recv().await;
    let mut by_id = [first, second];
    by_id.sort_by_key(|answer| answer["id"].as_i64());
    assert_eq!(by_id[0]["id"], 1);
    assert_shutting_down(&by_id[0], true);
    assert_eq!(by_id[1]["id"], 2);
    assert_shutting_down(&by_id[1], false);
    serving.await.unwrap();
    f.probe.dropped.notified().await;
    assert_eq!(answers_until_the_end(peer).await, Vec::<Value>::new());
}

/// Sleeps for `ms` milliseconds, then says so.
#[tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// A request that finishes at the very instant the drain period ends is
/// answered once: by its result or by the cut, never both.
#[tokio::test(start_paused = true)]
async fn a_request_that_finishes_as_the_drain_period_ends_is_answered_once() {
    let millis = u64::try_from(DRAIN.as_millis()).unwrap();
    let server = Server::builder("nap", "1")
        .tool(NapTool)
        .drain_period(DRAIN)
        .build();
    let (peer, stop, serving) = serve_until_stopped(&server);
    peer.send(call(1, "nap", json!({"ms": millis}))).await;
    peer.send(call(2, "nap", json!({"ms": millis - 1}))).await;
    peer.send(call(3, "nap", json!({"ms": millis + 1}))).await;
    // Taken after the stop, each starts as the drain period does.
    stop.send(()).unwrap();
    serving.await.unwrap();
    let answers = answers_until_the_end(peer).await;
    let ids: Vec<_> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [1, 2, 3], "one answer each: {answers:?}");
    let answer = |id: i64| answers.iter().find(|a| a["id"] == id).unwrap();
    assert_eq!(
        answer(2)["result"]["content"][0]["text"],
        format!("slept {} ms", millis - 1)
    );
    assert_shutting_down(answer(3), true);
}

/// A legacy session's requests are cut short the same way, with the same
/// error (the legacy revisions know no other way to say it).
#[tokio::test(start_paused = true)]
async fn a_legacy_session_request_is_cut_short_with_the_same_error() {
    let f = fixture_with(|b| b.drain_period(DRAIN));
    let (client_end, server_end) = FrameChannel::pair();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(presa::server::serve_until(
        f.server.clone(),
        server_end,
        presa::Caller::anonymous(),
        async move {
            let _ = stopped.await;
        },
    ));
    let (mut peer, init) = RawPeer::legacy(client_end, "2025-11-25", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "wait_forever", "arguments": {}}}))
        .await;
    f.probe.started.notified().await;
    stop.send(()).unwrap();
    let cut = peer.recv().await;
    assert_eq!(cut["id"], 1, "{cut}");
    assert_shutting_down(&cut, true);
    serving.await.unwrap();
}
