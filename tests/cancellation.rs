//! Cancelling an in-flight call drops its handler and silences it.

use crate::common;

use common::{RawPeer, WIRES, Wire, client, fixture, meta};
use serde_json::json;

#[tokio::test]
async fn cancelled_notification_drops_the_handler_and_nothing_more_is_sent() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        peer.send(
            json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
                         "params": {"name": "wait_forever", "_meta": meta(json!({}))}}),
        )
        .await;
        f.probe.started.notified().await;
        peer.send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": "slow", "reason": "user"}}),
        )
        .await;
        f.probe.dropped.notified().await;
        // The next message is the answer to a later request, not to "slow".
        let r = peer
            .request(2, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(r["id"], 2, "{wire:?}");
        // The id is free again.
        peer.send(
            json!({"jsonrpc": "2.0", "id": "slow", "method": "server/discover",
                         "params": {"_meta": meta(json!({}))}}),
        )
        .await;
        assert_eq!(peer.recv().await["id"], "slow");
    }
}

#[tokio::test]
async fn malformed_or_unknown_cancellations_are_ignored() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, Wire::Stdio);
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 404}})).await;
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}))
        .await;
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}))
        .await;
    let r = peer
        .request(1, "server/discover", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(r["id"], 1);
}

#[tokio::test]
async fn a_client_that_abandons_a_call_cancels_it_on_the_server() {
    let f = fixture();
    for wire in WIRES {
        let c = client(presa::client::Client::builder(), &f.server, wire);
        let call = c.call_tool("wait_forever", json!({}));
        tokio::select! {
            _ = call => panic!("wait_forever never finishes"),
            () = f.probe.started.notified() => {}
        }
        // Leaving the select dropped the call future, which sends
        // notifications/cancelled; the server drops the handler.
        f.probe.dropped.notified().await;
        assert!(c.discover().await.is_ok(), "{wire:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn closing_the_connection_drains_then_cuts_short_what_is_left() {
    use presa::transport::{FrameChannel, Inbound};
    let f = fixture();
    let (client_end, server_end) = FrameChannel::pair();
    let serving = tokio::spawn(presa::server::serve(
        f.server.clone(),
        server_end,
        presa::Caller::anonymous(),
    ));
    let FrameChannel {
        mut incoming,
        outgoing,
        ..
    } = client_end;
    let stuck = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "wait_forever", "_meta": meta(json!({}))}});
    let quick = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta(json!({}))}});
    outgoing.send(stuck.to_string()).await.unwrap();
    outgoing.send(quick.to_string()).await.unwrap();
    f.probe.started.notified().await;
    drop(outgoing);
    // The quick request still gets its answer after the client closed its side.
    let Some(Inbound::Frame(answer)) = incoming.recv().await else {
        panic!("an answer to the quick request");
    };
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["id"], 2);
    // The stuck one is cut short once the drain period lapses (paused
    // time), and answered so.
    let started = tokio::time::Instant::now();
    serving.await.unwrap();
    assert!(started.elapsed() >= presa::server::CLOSE_DRAIN);
    f.probe.dropped.notified().await;
    let Some(Inbound::Frame(cut)) = incoming.recv().await else {
        panic!("an answer to the stuck request");
    };
    let cut: serde_json::Value = serde_json::from_str(&cut).unwrap();
    assert_eq!(cut["id"], 1, "{cut}");
    assert_eq!(cut["error"]["code"], -31003, "{cut}");
    assert_eq!(cut["error"]["data"], json!({"started": true}), "{cut}");
    assert_eq!(incoming.recv().await, None, "one answer per request");
}
