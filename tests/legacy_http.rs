//! The legacy Streamable HTTP transport (2025-11-25) beside the modern
//! one: sessions, event streams with ids, resumption with
//! `Last-Event-ID`, the standalone GET stream and DELETE. Every message
//! read is checked against the 2025-11-25 schema and for modern-only
//! fields.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

use std::time::Duration;

use common::legacy_http::{Events, Legacy, send, serve};
use presa::server::http::{BearerTokens, LegacySessions, StreamableHttp};
use serde_json::{Value, json};

#[tokio::test]
async fn a_tool_elicits_with_a_request_on_its_stream_and_runs_once() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let legacy = Legacy::open(&url, common::elicitation(), None).await;
    let mut events = legacy
        .request(
            1,
            "tools/call",
            json!({"name": "full_name", "arguments": {}}),
        )
        .await;
    let priming = events.next().await.unwrap();
    assert!(
        priming.message.is_none() && priming.id.is_some(),
        "a priming event first"
    );
    for name in ["Ada", "Lovelace"] {
        let request = events.message().await;
        assert_eq!(request["method"], "elicitation/create", "{request}");
        let answer = json!({"jsonrpc": "2.0", "id": request["id"],
                            "result": {"action": "accept", "content": {"name": name}}});
        assert_eq!(legacy.post(answer).await.status().as_u16(), 202);
    }
    let response = events.message().await;
    assert_eq!(
        response["result"]["content"][0]["text"], "Ada Lovelace",
        "{response}"
    );
    assert!(
        events.next().await.is_none(),
        "the stream ends with its response"
    );
    assert_eq!(f.runs.0.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_closed_stream_resumes_with_last_event_id() {
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone())
        .legacy_sessions(LegacySessions::new().close_streams_after(Duration::ZERO));
    let url = serve(http).await;
    let legacy = Legacy::open(&url, json!({}), None).await;
    let mut events = legacy
        .request(1, "tools/call", json!({"name": "gated", "arguments": {}}))
        .await;
    let priming = events.next().await.unwrap();
    assert!(
        events.next().await.is_none(),
        "closed for the client to poll"
    );
    f.probe.release.notify_one();
    let resumed = legacy.get(priming.id.as_deref()).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut resumed = Events::new(resumed, Some("tools/call".into()));
    let response = resumed.message().await;
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["content"][0]["text"], "released");
    let unknown = legacy.get(Some("99-1")).await;
    assert_eq!(unknown.status().as_u16(), 400);
}

/// Every event stream, in either era, tells a buffering proxy (nginx) to
/// pass its events on as they come: `X-Accel-Buffering: no`. Without it,
/// nginx holds a task's notifications until its buffer fills.
#[tokio::test]
async fn every_event_stream_asks_proxies_not_to_buffer_it() {
    use common::raw_http::post;
    fn unbuffered(response: &reqwest::Response, what: &str) {
        assert_eq!(response.status().as_u16(), 200, "{what}");
        let headers = response.headers();
        assert_eq!(headers["content-type"], "text/event-stream", "{what}");
        let buffering = headers.get("x-accel-buffering").map(|v| v.as_bytes());
        assert_eq!(buffering, Some(&b"no"[..]), "{what}");
    }
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone())
        .legacy_sessions(LegacySessions::new().close_streams_after(Duration::ZERO));
    let url = serve(http).await;

    // The modern era: a call's answer with progress, a task, and the
    // subscriptions/listen stream of its notifications.
    let meta = common::meta(
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
    );
    let mut chatty = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "chatty", "arguments": {}, "_meta": meta}});
    chatty["params"]["_meta"]["progressToken"] = json!("p1");
    unbuffered(&post(&url, chatty, &[]).await, "a modern answer");
    let build = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "build", "arguments": {"target": "all"}, "_meta": meta}});
    let (_, created) = common::raw_http::status_and_body(post(&url, build, &[]).await).await;
    let task = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let listen = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
                        "params": {"_meta": meta, "notifications": {"taskIds": [task]}}});
    unbuffered(&post(&url, listen, &[]).await, "a task's listen stream");

    // The legacy era: a POST's answer, its resumption, the GET stream.
    let legacy = Legacy::open(&url, json!({}), None).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "gated", "arguments": {}}});
    let answer = legacy.post(body).await;
    unbuffered(&answer, "a legacy answer");
    let priming = Events::new(answer, Some("tools/call".into()))
        .next()
        .await
        .unwrap();
    unbuffered(&legacy.get(priming.id.as_deref()).await, "a resumed stream");
    unbuffered(&legacy.get(None).await, "the GET stream");
    f.probe.release.notify_one();
}

#[tokio::test]
async fn the_standalone_stream_carries_list_changes_to_one_reader() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let legacy = Legacy::open(&url, json!({}), None).await;
    let stream = legacy.get(None).await;
    assert_eq!(stream.status().as_u16(), 200);
    let mut stream = Events::new(stream, None);
    assert!(stream.next().await.unwrap().message.is_none());
    assert_eq!(
        legacy.get(None).await.status().as_u16(),
        409,
        "one reader at a time"
    );
    assert!(f.server.remove_tool("add"));
    let notice = stream.message().await;
    assert_eq!(notice["method"], "notifications/tools/list_changed");
}

#[tokio::test]
async fn sessions_end_with_delete_expire_and_belong_to_their_caller() {
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let url = serve(StreamableHttp::new(f.server.clone()).authenticator(tokens)).await;
    let alice = Legacy::open(&url, json!({}), Some("t-alice")).await;
    let stolen = Legacy {
        url: url.clone(),
        session: alice.session.clone(),
        token: Some("t-bob"),
    };
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(stolen.post(ping.clone()).await.status().as_u16(), 404);
    let mut events = alice.request(2, "ping", json!({})).await;
    assert_eq!(events.message().await["result"], json!({}));
    let mut wrong = alice.post(ping.clone()).await;
    assert_eq!(wrong.status().as_u16(), 200);
    let headers = [
        ("mcp-session-id", alice.session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    wrong = send(
        &url,
        reqwest::Method::POST,
        Some(ping.clone()),
        &headers,
        Some("t-alice"),
    )
    .await;
    assert_eq!(wrong.status().as_u16(), 400, "not the session's version");

    assert_eq!(alice.delete().await, 200);
    let gone = alice.post(ping.clone()).await;
    assert_eq!(gone.status().as_u16(), 404);
    let body: Value = serde_json::from_str(&gone.text().await.unwrap()).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
    assert_eq!(alice.delete().await, 404);
    let no_session = send(&url, reqwest::Method::GET, None, &[], Some("t-alice")).await;
    assert_eq!(no_session.status().as_u16(), 405);

    let url = serve(
        StreamableHttp::new(f.server.clone())
            .legacy_sessions(LegacySessions::new().idle_timeout(Duration::ZERO)),
    )
    .await;
    let expired = Legacy::open_unchecked(&url).await;
    assert_eq!(
        expired.post(ping).await.status().as_u16(),
        404,
        "expired at once"
    );
}

impl Legacy {
    /// Opens a session without sending `notifications/initialized`.
    async fn open_unchecked(url: &str) -> Legacy {
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "legacy-http", "version": "0"}});
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
        let response = send(url, reqwest::Method::POST, Some(body), &[], None).await;
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        Legacy {
            url: url.to_owned(),
            session,
            token: None,
        }
    }
}

#[tokio::test]
async fn tasks_run_over_http_and_two_sessions_cannot_see_each_others() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let mine = Legacy::open(&url, json!({}), None).await;
    let theirs = Legacy::open(&url, json!({}), None).await;
    let call = json!({"name": "long_job", "arguments": {}, "task": {}});
    let created = mine.request(1, "tools/call", call).await.message().await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let peek = theirs
        .request(1, "tasks/get", json!({"taskId": task}))
        .await
        .message()
        .await;
    assert_eq!(peek["error"]["code"], -32602, "{peek}");
    let result = mine
        .request(2, "tasks/result", json!({"taskId": task}))
        .await
        .message()
        .await;
    assert_eq!(result["result"]["content"][0]["text"], "done", "{result}");
}

#[tokio::test]
async fn cancelling_over_http_drops_the_request_and_its_question() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let legacy = Legacy::open(&url, common::elicitation(), None).await;
    let mut standalone = Events::new(legacy.get(None).await, None);
    let call = json!({"name": "build", "arguments": {"target": "docs"}});
    let mut events = legacy.request(7, "tools/call", call).await;
    let question = events.message().await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 7}});
    assert_eq!(legacy.post(cancel).await.status().as_u16(), 202);
    let notice = standalone.message().await;
    assert_eq!(notice["method"], "notifications/cancelled", "{notice}");
    assert_eq!(notice["params"]["requestId"], question["id"]);
}

#[tokio::test]
async fn initialize_opens_a_session_whatever_headers_it_carries() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let params = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "strict", "version": "0"}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params});
    let headers = [
        ("mcp-method", "initialize"),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let response = send(&url, reqwest::Method::POST, Some(body), &headers, None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(response.headers().contains_key("mcp-session-id"));
    let result: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(result["result"]["protocolVersion"], "2025-06-18");
}

#[tokio::test]
async fn sessions_past_the_limit_are_refused_until_one_ends() {
    let f = common::fixture();
    let url = serve(
        StreamableHttp::new(f.server.clone())
            .legacy_sessions(LegacySessions::new().max_sessions(1)),
    )
    .await;
    let first = Legacy::open(&url, json!({}), None).await;
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "second", "version": "0"}});
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
    let refused = send(&url, reqwest::Method::POST, Some(body.clone()), &[], None).await;
    assert_eq!(refused.status().as_u16(), 503);
    let error: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sessions")
    );
    assert_eq!(first.delete().await, 200);
    let admitted = send(&url, reqwest::Method::POST, Some(body), &[], None).await;
    assert_eq!(admitted.status().as_u16(), 200);
}

/// An `initialize` as a client sends it.
fn initialize() -> Value {
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "legacy-http", "version": "0"}});
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
}

/// The status of an `initialize` by `token`, and the session it opened.
async fn try_open(url: &str, token: Option<&'static str>) -> (u16, Option<Legacy>, Value) {
    let response = send(url, reqwest::Method::POST, Some(initialize()), &[], token).await;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|id| id.to_str().unwrap().to_owned());
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    let legacy = session.map(|session| Legacy {
        url: url.to_owned(),
        session,
        token,
    });
    (status, legacy, body)
}

/// The status of a `ping` in `legacy`.
async fn ping(legacy: &Legacy) -> u16 {
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    legacy.post(ping).await.status().as_u16()
}

/// The finding: alice opens `max_sessions` (1 024) sessions, and bob still
/// gets one. Past her quota (32), each new session of alice's evicts her
/// least recently used one, which answers `404` from then on.
#[tokio::test]
async fn bob_gets_a_session_after_alices_flood() {
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let url = serve(StreamableHttp::new(f.server.clone()).authenticator(tokens)).await;
    let mut alices = Vec::new();
    for _ in 0..1024 {
        let (status, session, body) = try_open(&url, Some("t-alice")).await;
        assert_eq!(status, 200, "{body}");
        alices.push(session.unwrap());
    }
    let (status, bob, body) = try_open(&url, Some("t-bob")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ping(&bob.unwrap()).await, 200);
    assert_eq!(ping(&alices[0]).await, 404, "her first was evicted");
    assert_eq!(ping(&alices[1024 - 33]).await, 404);
    assert_eq!(ping(&alices[1024 - 32]).await, 200, "her last 32 live");
    assert_eq!(ping(&alices[1023]).await, 200);
}

/// `max_sessions` still bounds the total: when every caller holds its
/// quota and the server is full, a new caller gets `503`; a caller at its
/// quota still gets a session, in place of its own least recently used.
#[tokio::test]
async fn max_sessions_still_bounds_the_total() {
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob")
        .token("t-carol", "carol");
    let http = StreamableHttp::new(f.server.clone())
        .authenticator(tokens)
        .legacy_sessions(
            LegacySessions::new()
                .max_sessions(4)
                .max_sessions_per_subject(2),
        );
    let url = serve(http).await;
    let mut held = Vec::new();
    for token in ["t-alice", "t-alice", "t-bob", "t-bob"] {
        let (status, session, _) = try_open(&url, Some(token)).await;
        assert_eq!(status, 200);
        held.push(session.unwrap());
    }
    // Alice used her first session after her second: the second goes.
    assert_eq!(ping(&held[0]).await, 200);
    let (status, _, body) = try_open(&url, Some("t-carol")).await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("as many sessions as it may"),
        "{body}"
    );
    let (status, third, _) = try_open(&url, Some("t-alice")).await;
    assert_eq!(status, 200);
    assert_eq!(ping(&held[1]).await, 404, "her least recently used");
    assert_eq!(ping(&held[0]).await, 200);
    assert_eq!(ping(&third.unwrap()).await, 200);
    assert_eq!(try_open(&url, Some("t-carol")).await.0, 503, "still four");
    assert_eq!(held[2].delete().await, 200);
    assert_eq!(try_open(&url, Some("t-carol")).await.0, 200);
}

/// A session that runs a request is in use: a caller whose sessions all
/// run one is refused a new session (`-31001`, saying what to do) rather
/// than losing one, and only it is.
#[tokio::test]
async fn a_caller_whose_sessions_all_run_requests_is_refused_a_new_one() {
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let http = StreamableHttp::new(f.server.clone())
        .authenticator(tokens)
        .legacy_sessions(LegacySessions::new().max_sessions_per_subject(2));
    let url = serve(http).await;
    let mut running = Vec::new();
    for _ in 0..2 {
        let legacy = Legacy::open(&url, json!({}), Some("t-alice")).await;
        let started = f.probe.started.notified();
        let call = json!({"name": "gated_started", "arguments": {}});
        running.push(legacy.request(1, "tools/call", call).await);
        started.await;
        drop(legacy);
    }
    let (status, _, body) = try_open(&url, Some("t-alice")).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], -31001, "{body}");
    assert_eq!(body["id"], 0, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("you already hold 2 sessions"), "{message}");
    assert!(message.contains("DELETE"), "{message}");
    assert_eq!(try_open(&url, Some("t-bob")).await.0, 200);

    f.probe.release.notify_one();
    let mut answered = running.remove(0);
    let response = answered.message().await;
    assert_eq!(response["result"]["content"][0]["text"], "released");
    assert_eq!(
        try_open(&url, Some("t-alice")).await.0,
        200,
        "the idle one made way"
    );
    f.probe.release.notify_one();
    assert_eq!(
        running[0].message().await["result"]["content"][0]["text"],
        "released"
    );
}

/// Legacy requests and `GET` streams take the same per-subject slots as
/// modern ones, whichever session they come in.
#[tokio::test]
async fn legacy_requests_and_streams_count_against_their_callers_limits() {
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let http = StreamableHttp::new(f.server.clone())
        .authenticator(tokens)
        .max_requests_per_subject(1)
        .max_listen_streams_per_subject(1);
    let url = serve(http).await;
    let first = Legacy::open(&url, json!({}), Some("t-alice")).await;
    let second = Legacy::open(&url, json!({}), Some("t-alice")).await;
    let bob = Legacy::open(&url, json!({}), Some("t-bob")).await;

    let started = f.probe.started.notified();
    let call = json!({"name": "gated_started", "arguments": {}});
    let mut running = first.request(1, "tools/call", call).await;
    started.await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let refused = second.post(ping.clone()).await;
    assert_eq!(refused.status().as_u16(), 503);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert_eq!(
        (body["error"]["code"].clone(), body["id"].clone()),
        (json!(-31001), json!(2))
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 request in progress"),
        "{body}"
    );
    assert_eq!(bob.post(ping.clone()).await.status().as_u16(), 200);
    f.probe.release.notify_one();
    assert_eq!(
        running.message().await["result"]["content"][0]["text"],
        "released"
    );
    assert_eq!(
        second.post(ping).await.status().as_u16(),
        200,
        "its slot came back"
    );

    let standalone = first.get(None).await;
    assert_eq!(standalone.status().as_u16(), 200);
    let refused = second.get(None).await;
    assert_eq!(refused.status().as_u16(), 503);
    let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 open stream ("),
        "{body}"
    );
    assert_eq!(bob.get(None).await.status().as_u16(), 200);
}
