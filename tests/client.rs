//! Client conveniences: discovery, listing, version fallback, arguments.

use crate::common;

use common::{Wire, client, fixture, fixture_with};
use presa::client::{ClientError, Era};
use presa::server::extension::Advertised;
use serde_json::json;

#[tokio::test]
async fn discover_and_list_follow_cursors() {
    let f = fixture_with(|b| {
        b.page_size(2)
            .instructions("be nice")
            .extension(Advertised::new("com.example/widgets", json!({"v": 1})))
    });
    let c = client(presa::client::Client::builder(), &f.server, Wire::InProcess);
    let d = c.discover().await.unwrap();
    assert_eq!(d.supported_versions, ["2026-07-28"]);
    assert_eq!(d.instructions.as_deref(), Some("be nice"));
    assert_eq!(d.server_info().unwrap().name, "fixture");
    assert_eq!(
        d.capabilities.extensions.unwrap()["com.example/widgets"],
        json!({"v": 1})
    );
    let first = c.list_tools_page(None).await.unwrap();
    assert_eq!(first.items.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    let all = c.list_tools().await.unwrap();
    assert_eq!(all.len(), 21);
    assert_eq!(all[0].name, "build");
}

#[tokio::test]
async fn on_an_unsupported_version_the_client_retries_with_a_shared_one() {
    let f = fixture();
    let c = client(
        presa::client::Client::builder()
            .protocol_versions(vec!["2099-01-01".into(), "2026-07-28".into()]),
        &f.server,
        Wire::Stdio,
    );
    assert_eq!(
        c.discover().await.unwrap().supported_versions,
        ["2026-07-28"]
    );

    let stranger = client(
        presa::client::Client::builder().protocol_versions(vec!["2099-01-01".into()]),
        &f.server,
        Wire::InProcess,
    );
    let err = stranger.discover().await.unwrap_err();
    assert!(
        matches!(err, ClientError::UnsupportedVersion { ref supported, .. } if supported == &["2026-07-28"])
    );
}

#[tokio::test]
async fn arguments_must_be_an_object() {
    let f = fixture();
    let c = client(presa::client::Client::builder(), &f.server, Wire::InProcess);
    let err = c.call_tool("add", json!([1, 2])).await.unwrap_err();
    assert!(matches!(err, ClientError::InvalidArguments(_)));
    let r = c.call_tool("explode", json!(null)).await.unwrap_err();
    assert_eq!(r.code(), Some(-32603));
}

#[tokio::test]
async fn errors_from_the_server_keep_their_code() {
    let f = fixture();
    let c = client(presa::client::Client::builder(), &f.server, Wire::Stdio);
    let err = c.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602));
    assert!(err.to_string().contains("nope"));
}

#[tokio::test]
async fn a_closed_connection_is_an_error_not_a_hang() {
    let (client_end, server_end) = presa::transport::FrameChannel::pair();
    drop(server_end);
    let c = presa::client::Client::builder().connect(client_end);
    assert_eq!(c.discover().await.unwrap_err(), ClientError::Closed);
}

#[tokio::test]
async fn log_messages_reach_the_notification_handler() {
    let f = fixture();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let c = client(
        presa::client::Client::builder()
            .log_level(presa::wire::LoggingLevel::Info)
            .on_notification(move |n| {
                let _ = tx.send(n);
            }),
        &f.server,
        Wire::InProcess,
    );
    assert_eq!(
        c.call_tool("chatty", json!({})).await.unwrap().text(),
        Some("done")
    );
    let n = rx.recv().await.unwrap();
    assert_eq!(n.method, "notifications/message");
    assert_eq!(n.params.unwrap()["data"], "halfway");
}

#[tokio::test]
async fn a_server_repeating_a_cursor_is_an_error_not_a_loop() {
    use presa::transport::{FrameChannel, Inbound};
    let (client_end, mut fake_server) = FrameChannel::pair();
    tokio::spawn(async move {
        while let Some(Inbound::Frame(frame)) = fake_server.incoming.recv().await {
            let request: serde_json::Value = serde_json::from_str(&frame).unwrap();
            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                "resultType": "complete", "tools": [], "nextCursor": "again",
                "ttlMs": 0, "cacheScope": "private"}});
            fake_server.outgoing.send(answer.to_string()).await.unwrap();
        }
    });
    let c = presa::client::Client::builder()
        .force_era(Era::Modern)
        .connect(client_end);
    let err = c.list_tools().await.unwrap_err();
    assert!(
        matches!(err, ClientError::InvalidResponse(ref m) if m.contains("twice")),
        "{err}"
    );
}

/// A fake server: answers each request with `answer(request)`, and keeps
/// the requests it saw.
fn fake_server(
    answer: impl Fn(&serde_json::Value) -> serde_json::Value + Send + 'static,
) -> (
    presa::transport::FrameChannel,
    tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>,
) {
    use presa::transport::{FrameChannel, Inbound};
    let (client_end, mut server_end) = FrameChannel::pair();
    let (seen_tx, seen) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(Inbound::Frame(frame)) = server_end.incoming.recv().await {
            let request: serde_json::Value = serde_json::from_str(&frame).unwrap();
            let reply = answer(&request);
            let _ = seen_tx.send(request);
            server_end.outgoing.send(reply.to_string()).await.unwrap();
        }
    });
    (client_end, seen)
}

#[tokio::test]
async fn retries_use_a_new_id_and_echo_the_state_byte_for_byte() {
    let state = "opaque \u{1F642} state with \"quotes\" and \\ slashes";
    let (channel, mut seen) = fake_server(move |request| {
        let result = if request["params"].get("requestState").is_none() {
            json!({"resultType": "input_required", "requestState": state,
                   "inputRequests": {"q": {"method": "elicitation/create",
                       "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}}}}})
        } else {
            json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
        };
        json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
    });
    let c = common::accepting(json!({}))
        .force_era(Era::Modern)
        .connect(channel);
    assert_eq!(
        c.call_tool("t", json!({"a": 1})).await.unwrap().text(),
        Some("ok")
    );
    let first = seen.recv().await.unwrap();
    let retry = seen.recv().await.unwrap();
    assert_ne!(first["id"], retry["id"]);
    assert_eq!(retry["params"]["requestState"], state);
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({"q": {"action": "accept", "content": {}}})
    );
    assert_eq!(retry["params"]["arguments"], json!({"a": 1}));
    assert!(first["params"].get("requestState").is_none());
    for request in [&first, &retry] {
        let meta = &request["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({"elicitation": {"form": {}}})
        );
        assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string());
    }
}

#[tokio::test]
async fn a_negative_ttl_reads_as_zero() {
    let (channel, _seen) = fake_server(|request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {}, "ttlMs": -5, "cacheScope": "private"}})
    });
    let c = presa::client::Client::builder()
        .force_era(Era::Modern)
        .connect(channel);
    assert_eq!(c.discover().await.unwrap().ttl_ms, 0);
}

#[tokio::test]
async fn an_oversized_answer_fails_the_waiting_call_instead_of_hanging() {
    let f = fixture();
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(presa::server::serve(
        f.server.clone(),
        presa::transport::byte_stream(sr, sw, 1 << 20),
        presa::Caller::anonymous(),
    ));
    let (cr, cw) = tokio::io::split(client_io);
    let c = presa::client::Client::builder().connect(presa::transport::byte_stream(cr, cw, 1024));
    let err = c.call_tool("big", json!({"size": 4096})).await.unwrap_err();
    assert_eq!(err, ClientError::ResponseTooLarge { limit: 1024 });
    assert_eq!(
        c.call_tool("big", json!({"size": 10}))
            .await
            .unwrap()
            .text(),
        Some("xxxxxxxxxx")
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_timeout_cancels_the_call_on_the_server() {
    let f = fixture();
    let c = client(
        presa::client::Client::builder().request_timeout(std::time::Duration::from_secs(5)),
        &f.server,
        Wire::InProcess,
    );
    let err = c.call_tool("wait_forever", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::Timeout(std::time::Duration::from_secs(5)));
    f.probe.dropped.notified().await;
}
