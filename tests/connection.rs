//! Regression tests for the server's connection loop: cancelling a request
//! still waiting in the backlog, returning after end of input with work
//! left, backpressure against a peer that never reads, and freeing a
//! subscription slot when a stream is cancelled.
//!
//! Time is paused: waits for something that must not happen only elapse
//! once every task is idle, and the drain period passes in virtual time.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{RawPeer, WIRES, Wire, fixture_with, meta};
use presa::server::{CLOSE_DRAIN, MAX_SUBSCRIPTIONS};
use presa::transport::FrameChannel;
use serde_json::{Value, json};
use tokio::time::{Instant, timeout};

/// How long to wait for a message that must not come (virtual time).
const QUIET: Duration = Duration::from_secs(1);

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}, "_meta": meta(json!({}))}})
}

fn discover(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
           "params": {"_meta": meta(json!({}))}})
}

fn cancel(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id}})
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_request_at_the_head_of_the_backlog_never_runs() {
    for wire in WIRES {
        let f = fixture_with(|b| b.max_in_flight(1));
        let mut peer = RawPeer::over(&f.server, wire);
        peer.send(call(1, "wait_forever")).await;
        f.probe.started.notified().await;
        // 2 waits for the only slot, at the head of the backlog.
        peer.send(call(2, "full_name")).await;
        peer.send(cancel(2)).await;
        // Free the slot, then ask for something else.
        peer.send(cancel(1)).await;
        f.probe.dropped.notified().await;
        peer.send(discover(3)).await;

        let first = peer.recv().await;
        assert_eq!(
            first["id"], 3,
            "{wire:?}: the cancelled request was answered"
        );
        assert!(first["result"].is_object(), "{wire:?}: {first}");
        assert_eq!(peer.recv_within(QUIET).await, None, "{wire:?}");
        assert_eq!(
            f.runs.0.load(Ordering::SeqCst),
            0,
            "{wire:?}: the cancelled request ran"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn serve_returns_within_close_drain_after_end_of_input_with_a_backlog() {
    for backlogged in [false, true] {
        let f = fixture_with(|b| b.max_in_flight(1));
        let (client_end, server_end) = FrameChannel::pair();
        let serving = tokio::spawn(presa::server::serve(
            f.server.clone(),
            server_end,
            presa::Caller::anonymous(),
        ));
        let peer = RawPeer::new(client_end);
        peer.send(call(1, "wait_forever")).await;
        f.probe.started.notified().await;
        if backlogged {
            peer.send(discover(2)).await;
        }
        let closed_at = Instant::now();
        let _answers = peer.close(); // end of input; the output stays open

        let served = timeout(10 * CLOSE_DRAIN, serving).await;
        assert!(
            served.is_ok(),
            "backlogged={backlogged}: serve still running {:?} after end of input",
            closed_at.elapsed()
        );
        assert!(
            closed_at.elapsed() <= CLOSE_DRAIN,
            "backlogged={backlogged}: serve returned {:?} after end of input",
            closed_at.elapsed()
        );
    }
}

/// How many frames the server reads from a peer that never reads its
/// answers, with one request stuck in flight and `max_in_flight(2)`: the
/// others reuse its id (`duplicate`) or each have their own.
async fn frames_read_before_backpressure(duplicate: bool) -> usize {
    let f = fixture_with(|b| b.max_in_flight(2));
    let peer = RawPeer::over(&f.server, Wire::InProcess);
    peer.send(call(1, "wait_forever")).await;
    f.probe.started.notified().await;
    let mut read = 0;
    for i in 0..5_000 {
        let id = if duplicate { 1 } else { i + 2 };
        let sent = timeout(QUIET, peer.send(call(id, "wait_forever"))).await;
        if sent.is_err() {
            return read;
        }
        read += 1;
    }
    read
}

#[tokio::test(start_paused = true)]
async fn duplicate_request_ids_do_not_get_around_backpressure() {
    let distinct = frames_read_before_backpressure(false).await;
    let duplicate = frames_read_before_backpressure(true).await;
    // Each duplicate is answered with an error, so it may also fill the
    // outgoing queue (256 frames in process) that stuck requests never
    // write to; without backpressure the server reads all 5000.
    let bound = distinct + 2 * 256;
    assert!(
        duplicate <= bound,
        "duplicate ids: {duplicate} frames read before backpressure \
         (distinct ids: {distinct}, bound {bound})"
    );
}

mod cap {
    use super::*;
    use presa::prelude::*;

    /// Never finishes, so a stream on its task stays open.
    #[tool(task = "optional")]
    async fn forever() -> String {
        std::future::pending().await
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_a_subscription_at_the_cap_frees_its_slot_at_once() {
        // Every stream follows the one task: let it have them all.
        let settings =
            presa::server::TaskSettings::default().max_listeners_per_task(MAX_SUBSCRIPTIONS + 1);
        let server = Server::builder("cap", "1")
            .tool(ForeverTool)
            .tasks(settings)
            .build();
        let caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let mut peer = RawPeer::over(&server, Wire::InProcess);
        let created = peer
            .call(1, caps.clone(), json!({"name": "forever", "arguments": {}}))
            .await;
        let task = created["result"]["taskId"].clone();
        assert!(task.is_string(), "{created}");
        let listen = |id: usize| {
            json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
                   "params": {"notifications": {"taskIds": [task.clone()]},
                              "_meta": meta(caps.clone())}})
        };
        let first = 100;
        for id in first..first + MAX_SUBSCRIPTIONS {
            peer.send(listen(id)).await;
            let ack = peer.recv().await;
            assert_eq!(
                ack["method"], "notifications/subscriptions/acknowledged",
                "{ack}"
            );
            peer.recv().await; // the task's current state
        }

        // Cancel one and replace it straight away.
        peer.send(cancel(first as i64)).await;
        peer.send(listen(1000)).await;
        let reply = peer.recv().await;
        assert_eq!(
            reply["method"], "notifications/subscriptions/acknowledged",
            "the replacement stream was refused: {reply}"
        );
        assert_eq!(
            reply["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            1000
        );
    }
}

/// A peer that sends requests whose answers fill its pipe, then closes its
/// side and never reads: the answers can never be written, and `serve`
/// used to wait for the writer for ever. The drain period, and
/// `FINAL_WRITE` after it, now cover writing too.
#[tokio::test(start_paused = true)]
async fn serve_returns_within_the_drain_period_when_the_peer_never_reads() {
    let f = fixture_with(|b| b.drain_period(Duration::from_secs(5)));
    let (client, server_end) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server_end);
    let channel = presa::transport::byte_stream(read, write, 1 << 20);
    let serving = tokio::spawn(presa::server::serve(
        f.server.clone(),
        channel,
        presa::Caller::anonymous(),
    ));
    let (_unread, mut client_write) = tokio::io::split(client);
    use tokio::io::AsyncWriteExt;
    for id in 0..8 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "big", "arguments": {"size": 64 * 1024}, "_meta": meta(json!({}))}});
        client_write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
    }
    client_write.shutdown().await.unwrap();
    let closed_at = Instant::now();
    let served = timeout(10 * CLOSE_DRAIN, serving).await;
    assert!(served.is_ok(), "serve is still waiting to write");
    assert!(
        closed_at.elapsed() <= Duration::from_secs(5) + presa::server::FINAL_WRITE,
        "serve returned {:?} after end of input",
        closed_at.elapsed()
    );
}

/// `serve_until`'s stop reads no more requests, but still answers the one
/// already in the channel, lets the one running finish and be written,
/// and returns, though the peer never closed. The stop used to drop what
/// the channel held.
#[tokio::test(start_paused = true)]
async fn a_stopped_connection_answers_what_it_took_and_reads_nothing_more() {
    let f = fixture_with(|b| b);
    let (client_end, server_end) = FrameChannel::pair();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(presa::server::serve_until(
        f.server.clone(),
        server_end,
        presa::Caller::anonymous(),
        async move {
            let _ = stopped.await;
        },
    ));
    let mut peer = RawPeer::new(client_end);
    peer.send(call(1, "gated")).await;
    // The request is running once its answer is all that is missing:
    // a discover sent after it is answered first.
    peer.send(discover(2)).await;
    assert_eq!(peer.recv().await["id"], 2);
    // The stop is ready before the server takes the next frame, which is
    // in the channel already: it was sent before the server stopped
    // reading, so it is answered.
    stop.send(()).unwrap();
    peer.send(discover(3)).await;
    let answer = peer.recv().await;
    assert_eq!(answer["id"], 3, "{answer}");
    assert!(answer["result"].is_object(), "{answer}");
    f.probe.release.notify_one();
    let answer = peer.recv().await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "released");
    timeout(CLOSE_DRAIN, serving)
        .await
        .expect("serve_until returned")
        .unwrap();
    let mut rest = peer.close();
    if let Some(inbound) = rest.recv().await {
        panic!("a request sent after the stop was answered: {inbound:?}");
    }
}
