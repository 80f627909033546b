//! The client over HTTP against a server of each era: it falls back on a
//! legacy server's `400`, then speaks the legacy transport (session id,
//! protocol version header, event streams, the GET stream, resuming with
//! `Last-Event-ID` after `retry`, a new session after a `404`, `DELETE`
//! on close), and stays modern with presa's own server.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

#[path = "common/scripted_legacy_http.rs"]
mod scripted_legacy_http;

use presa::client::prelude::*;
use presa::client::{ClientError, ClientTransport, Era};
use presa::server::http::StreamableHttp;
use scripted_legacy_http::{LegacyHttp, RETRY};
use serde_json::json;

fn client_of(server: &LegacyHttp) -> Client {
    Client::builder()
        .on_elicitation(|_| async { ElicitResult::accept(json!({"name": "Ada"})) })
        .connect(ClientTransport::http(&server.url).unwrap())
}

#[tokio::test]
async fn a_legacy_server_gets_a_session_with_its_headers_and_a_delete() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    assert_eq!(client.list_tools().await.unwrap().len(), 3);
    assert_eq!(client.era().await, Ok(Era::Legacy));
    assert_eq!(
        client.discover().await.unwrap().supported_versions,
        ["2025-11-25"]
    );

    let probe = &server.posts("server/discover")[0];
    assert_eq!(probe.version.as_deref(), Some("2026-07-28"));
    let initialize = &server.posts("initialize")[0];
    assert_eq!(initialize.session, None);
    assert_eq!(initialize.version, None, "the version is not settled yet");
    assert!(!initialize.modern_headers);
    for later in [
        &server.posts("notifications/initialized")[0],
        &server.posts("tools/list")[0],
    ] {
        assert_eq!(later.session.as_deref(), Some("session-1"));
        assert_eq!(later.version.as_deref(), Some("2025-11-25"));
        assert!(
            !later.modern_headers,
            "no modern header in a legacy session"
        );
    }

    client.close().await.unwrap();
    let deleted: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.verb == "DELETE")
        .collect();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].session.as_deref(), Some("session-1"));
}

#[tokio::test]
async fn a_question_on_the_event_stream_is_answered_with_a_post() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    let outcome = client.call_tool("ask", json!({})).await.unwrap();
    assert_eq!(outcome.text(), Some("Hello, Ada"));
    let answers: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.verb == "POST" && s.method.is_none())
        .collect();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].session.as_deref(), Some("session-1"));
}

#[tokio::test]
async fn a_stream_that_closes_early_is_resumed_after_retry_with_its_last_event_id() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    let outcome = client.call_tool("reconnect", json!({})).await.unwrap();
    assert_eq!(outcome.text(), Some("resumed"));
    let resumed: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.verb == "GET" && s.last_event_id.is_some())
        .collect();
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    assert_eq!(resumed[0].last_event_id.as_deref(), Some("prime-1"));
    assert_eq!(resumed[0].session.as_deref(), Some("session-1"));
    let waited = resumed[0].at - server.closed_at().unwrap();
    assert!(
        waited >= RETRY,
        "resumed after {waited:?}, before the retry of {RETRY:?}"
    );
}

#[tokio::test]
async fn the_get_stream_carries_the_servers_own_requests_and_notifications() {
    let server = LegacyHttp::start().await;
    let (tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
    let client = Client::builder()
        .on_notification(move |n| {
            let _ = tx.send(n);
        })
        .connect(ClientTransport::http(&server.url).unwrap());
    client.list_tools().await.unwrap();
    let pinged = server.answer_to("g1");
    server.listener_opened().await;
    let ping = json!({"jsonrpc": "2.0", "id": "g1", "method": "ping"});
    assert!(server.push(ping));
    let pong = pinged.await.unwrap();
    assert_eq!(pong["result"], json!({}));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "hello"}});
    assert!(server.push(note));
    let received = notes.recv().await.unwrap();
    assert_eq!(received.method, "notifications/message");
}

#[tokio::test]
async fn an_expired_session_is_opened_anew_and_the_request_sent_again() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    client.list_tools().await.unwrap();
    server.expire_sessions();
    let outcome = client.call_tool("echo", json!({})).await.unwrap();
    assert_eq!(outcome.text(), Some("echoed"));
    let initializes = server.posts("initialize");
    assert_eq!(initializes.len(), 2);
    assert_eq!(
        initializes[1].session, None,
        "a new session starts without the old id"
    );
    let calls = server.posts("tools/call");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].session.as_deref(), Some("session-1"));
    assert_eq!(calls[1].session.as_deref(), Some("session-2"));
    assert_eq!(
        server.posts("server/discover").len(),
        1,
        "the era stays settled"
    );
}

#[tokio::test]
async fn requests_that_meet_an_expired_session_together_share_one_new_session() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    client.list_tools().await.unwrap();
    server.expire_sessions();
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.call_tool("echo", json!({})).await })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap().text(), Some("echoed"));
    }
    assert_eq!(
        server.posts("initialize").len(),
        2,
        "one new session for all"
    );
}

#[tokio::test]
async fn an_expired_session_that_cannot_be_renewed_is_a_clear_error() {
    let server = LegacyHttp::start().await;
    let client = client_of(&server);
    client.list_tools().await.unwrap();
    server.expire_sessions();
    server.refuse_sessions();
    let error = client.call_tool("echo", json!({})).await.unwrap_err();
    assert!(
        matches!(error, ClientError::SessionFailed { .. }),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains("ended the previous session") && text.contains("no more sessions"),
        "{text}"
    );
}

#[tokio::test]
async fn a_modern_server_over_http_stays_modern_even_after_a_version_refusal() {
    let f = common::fixture();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(StreamableHttp::new(f.server.clone()).serve_on(listener));
    let url = format!("http://{address}/mcp");
    let versions = ["2099-01-01", "2026-07-28", "2025-11-25"].map(String::from);
    let client = Client::builder()
        .protocol_versions(versions.into())
        .connect(ClientTransport::http(&url).unwrap());
    assert_eq!(client.era().await, Ok(Era::Modern));
    assert_eq!(client.list_tools().await.unwrap().len(), 21);
}

#[tokio::test]
async fn an_unreachable_server_settles_nothing() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let client =
        Client::builder().connect(ClientTransport::http(format!("http://{address}/mcp")).unwrap());
    let error = client.list_tools().await.unwrap_err();
    assert!(
        error.to_string().contains("could not reach the server"),
        "{error}"
    );
    assert!(!matches!(error, ClientError::SessionFailed { .. }));
}
