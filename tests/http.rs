//! Streamable HTTP: the seed's flows through the presa client, and the
//! transport's own rules (headers, security, cancellation) with raw HTTP.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

use std::sync::Arc;

use common::raw_http::{post, status_and_body};
use presa::client::ClientTransport;
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::http::StreamableHttp;
use presa::server::tasks::store::{StoreError, TaskChange, TaskLimits, TaskRecord, TaskWatch};
use serde_json::json;

/// Serves `server` on a free loopback port; returns the endpoint's URL.
async fn serve(http: StreamableHttp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(http.serve_on(listener));
    format!("http://{address}/mcp")
}

fn confirming() -> presa::client::ClientBuilder {
    Client::builder().on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
}

#[tokio::test]
async fn the_seed_examples_over_http() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;

    let plain = confirming().connect(ClientTransport::http(&url).unwrap());
    let result = plain
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built docs"));

    let tasks = confirming()
        .tasks(true)
        .connect(ClientTransport::http(&url).unwrap());
    let created = tasks
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    let task = created.task().expect("a task");
    let result = tasks
        .await_task(task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built all"));

    let created = tasks
        .call_tool("build", json!({"target": "web"}))
        .await
        .unwrap();
    let result = tasks
        .await_task(
            created.task().unwrap(),
            AwaitOptions::default().listen(true),
        )
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built web"));
}

/// The `_meta` of a raw request.
fn meta() -> serde_json::Value {
    common::meta(json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}))
}

fn call(id: i64, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments, "_meta": meta()}})
}

#[tokio::test]
async fn two_subjects_with_their_own_tokens_cannot_see_each_others_tasks() {
    use presa::server::http::{BearerTokens, ProtectedResourceMetadata};
    let f = common::fixture();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let url = format!("http://{address}/mcp");
    let metadata = ProtectedResourceMetadata::new(url.clone(), "https://auth.example.com");
    let http = StreamableHttp::new(f.server.clone())
        .authenticator(
            BearerTokens::new()
                .token("t-alice", "alice")
                .token("t-bob", "bob"),
        )
        .protected_resource(metadata);
    tokio::spawn(http.serve_on(listener));

    let as_user = |token: &str| {
        let options = presa::client::HttpOptions::default().bearer_token(token);
        confirming()
            .tasks(true)
            .connect(ClientTransport::http_with(&url, options).unwrap())
    };
    let alice = as_user("t-alice");
    let bob = as_user("t-bob");
    let created = alice
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    let task = created.task().unwrap().id().to_owned();
    let result = alice
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built all"));
    let error = bob.get_task(&task).await.unwrap_err();
    assert_eq!(error.code(), Some(-32602), "{error}");
    assert!(bob.cancel_task(&task).await.is_err());

    // Without a token: 401, and a challenge naming the metadata, which is
    // published where it says.
    let refused = post(&url, call(1, "build", json!({"target": "x"})), &[]).await;
    assert_eq!(refused.status().as_u16(), 401);
    let challenge = refused.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    let published = format!("http://{address}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{published}\"")
    );
    let document = reqwest::get(&published)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let document: serde_json::Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["resource"], url);
    assert_eq!(
        document["authorization_servers"],
        json!(["https://auth.example.com"])
    );
}

#[tokio::test]
async fn mirrored_headers_must_match_the_body() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    for (extra, case) in [
        (vec![("mcp-method", "prompts/list")], "another method"),
        (vec![("mcp-method", "TOOLS/LIST")], "another case"),
        (
            vec![("mcp-protocol-version", "2025-11-25")],
            "another version",
        ),
    ] {
        let (status, body) = status_and_body(post(&url, list.clone(), &extra).await).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (400, json!(-32020)),
            "{case}: {body}"
        );
        assert_eq!(body["id"], 1, "{case}: the error echoes the id");
    }
    let missing = reqwest::Client::new()
        .post(&url)
        .header("mcp-protocol-version", common::VERSION)
        .body(list.to_string())
        .send()
        .await
        .unwrap();
    let (status, body) = status_and_body(missing).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020)),
        "{body}"
    );
    let wrong_name = post(
        &url,
        call(2, "add", json!({"a": 1, "b": 2})),
        &[("mcp-name", "explode")],
    )
    .await;
    let (status, body) = status_and_body(wrong_name).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020)),
        "{body}"
    );
    // Names are compared without the whitespace around them, and header
    // names without case.
    let padded = post(
        &url,
        call(3, "add", json!({"a": 1, "b": 2})),
        &[("MCP-NAME", "  add  ")],
    )
    .await;
    let (status, body) = status_and_body(padded).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["structuredContent"], json!({"total": 3}));
}

/// Echoes the region it runs in, which it mirrors into a header.
struct Regional;

#[async_trait::async_trait]
impl presa::server::ToolHandler for Regional {
    fn definition(&self) -> presa::wire::Tool {
        let input_schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "retries": {"type": "integer", "x-mcp-header": "Retries"}
        }, "required": ["region"]});
        presa::wire::Tool {
            description: Some("Runs in a region.".into()),
            ..presa::wire::Tool::new("regional", input_schema)
        }
    }

    async fn call(
        &self,
        _ctx: Context,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> presa::server::ToolResult {
        Ok(CallToolResult::from_text(arguments["region"].to_string()))
    }
}

#[tokio::test]
async fn parameter_headers_are_decoded_and_checked() {
    let server = Server::builder("regions", "1").tool(Regional).build();
    let url = serve(StreamableHttp::new(server.clone())).await;
    let cases: [(&str, Option<&str>, u16); 7] = [
        ("Hello", Some("=?base64?SGVsbG8=?="), 200),
        ("Hello", Some("=?base64?SGVsbG8?="), 400),
        ("Hello", Some("=?base64?SGVs!!!bG8=?="), 400),
        ("SGVsbG8=", Some("SGVsbG8="), 200),
        ("=?base64?SGVsbG8=", Some("=?base64?SGVsbG8="), 200),
        ("test-value", None, 400),
        ("us-west1", Some("us-east1"), 400),
    ];
    for (id, (region, header, expected)) in (1..).zip(cases) {
        let extra: Vec<(&str, &str)> = header
            .map(|h| ("mcp-param-region", h))
            .into_iter()
            .collect();
        let (status, body) = status_and_body(
            post(
                &url,
                call(id, "regional", json!({"region": region})),
                &extra,
            )
            .await,
        )
        .await;
        assert_eq!(status, expected, "{region:?} with {header:?}: {body}");
        if expected == 400 {
            assert_eq!(body["error"]["code"], -32020, "{body}");
        }
    }
    // Integers compare as numbers; an absent argument expects no header.
    let numeric = call(8, "regional", json!({"region": "eu", "retries": 42}));
    let extra = [("mcp-param-region", "eu"), ("mcp-param-retries", "42.0")];
    assert_eq!(post(&url, numeric, &extra).await.status().as_u16(), 200);
    let stray = call(9, "regional", json!({"region": "eu"}));
    let extra = [("mcp-param-region", "eu"), ("mcp-param-retries", "3")];
    assert_eq!(post(&url, stray, &extra).await.status().as_u16(), 400);

    // The presa client writes them itself, in the encoded form when needed.
    let client = Client::builder().connect(ClientTransport::http(&url).unwrap());
    for region in ["us-west1", "Hello, 世界", " padded "] {
        let result = client
            .call_tool("regional", json!({"region": region, "retries": 2}))
            .await
            .unwrap();
        assert_eq!(result.text(), Some(json!(region).to_string().as_str()));
    }
}

#[tokio::test]
async fn the_guard_the_limits_and_the_methods() {
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone()).body_limit(1024);
    let url = serve(http).await;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}});
    let evil = post(
        &url,
        discover.clone(),
        &[("origin", "http://evil.example.com")],
    )
    .await;
    assert_eq!(evil.status().as_u16(), 403);
    let rebound = post(&url, discover.clone(), &[("host", "evil.example.com")]).await;
    assert_eq!(rebound.status().as_u16(), 403);
    let local = post(
        &url,
        discover.clone(),
        &[("origin", "http://localhost:1234")],
    )
    .await;
    assert_eq!(local.status().as_u16(), 200);
    let big = call(2, "big", json!({"size": 1, "padding": "x".repeat(2000)}));
    let (status, body) = status_and_body(post(&url, big, &[]).await).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(reqwest::get(&url).await.unwrap().status().as_u16(), 405);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/whatever"});
    assert_eq!(post(&url, note, &[]).await.status().as_u16(), 202);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": meta()}});
    let (status, body) = status_and_body(post(&url, ping, &[]).await).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (404, json!(-32601))
    );
}

#[tokio::test]
async fn progress_makes_the_answer_an_event_stream() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let mut chatty = call(1, "chatty", json!({}));
    chatty["params"]["_meta"]["progressToken"] = json!("p1");
    let response = post(&url, chatty, &[]).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    let methods: Vec<_> = events
        .iter()
        .map(|e| e["method"].as_str().unwrap_or("response"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "response"
        ],
        "{text}"
    );
    assert_eq!(events[2]["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn a_client_that_hangs_up_cancels_its_call() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let started = f.probe.started.notified();
    let dropped = f.probe.dropped.notified();
    let call =
        tokio::spawn(async move { post(&url, call(1, "wait_forever", json!({})), &[]).await });
    started.await;
    call.abort();
    // The handler is dropped: the probe says so, without any timeout.
    dropped.await;
}

/// A task store that counts the watches open on it, so a test can see a
/// subscription end on the server.
struct CountingStore {
    inner: presa::server::InMemoryTaskStore,
    live: Arc<tokio::sync::watch::Sender<usize>>,
}

/// Counts one watch until dropped.
struct Counted(Arc<tokio::sync::watch::Sender<usize>>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

#[async_trait::async_trait]
impl presa::server::TaskStore for CountingStore {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        self.inner.create(record, limits).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.inner.get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.inner.apply(id, change, limits).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        use futures::StreamExt;
        let Some(watch) = self.inner.watch(id).await? else {
            return Ok(None);
        };
        self.live.send_modify(|n| *n += 1);
        let counted = Counted(Arc::clone(&self.live));
        Ok(Some(
            watch
                .map(move |record| {
                    let _ = &counted;
                    record
                })
                .boxed(),
        ))
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.inner.purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        self.inner.count().await
    }
}

#[tokio::test]
async fn closing_a_listen_stream_ends_the_subscription() {
    use futures::StreamExt;
    let (live, mut watches) = tokio::sync::watch::channel(0usize);
    let store = CountingStore {
        inner: presa::server::InMemoryTaskStore::new(),
        live: Arc::new(live),
    };
    let f = common::fixture_with(|builder| builder.task_store(store));
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let created = post(&url, call(1, "build", json!({"target": "all"})), &[]).await;
    let (_, created) = status_and_body(created).await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    // The task parks at its question; its runner and its parked input
    // watch it.
    watches.wait_for(|&n| n >= 1).await.unwrap();
    let before = *watches.borrow();

    let listen = json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen",
                        "params": {"_meta": meta(), "notifications": {"taskIds": [task]}}});
    let response = post(&url, listen, &[]).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("subscriptions/acknowledged"));
    watches.wait_for(|&n| n == before + 1).await.unwrap();
    drop(body);
    // The server drops the subscription, and with it its watch.
    watches.wait_for(|&n| n == before).await.unwrap();
}

/// A server that lists a tool with an invalid `x-mcp-header` (presa's own
/// server refuses to register one), and records every method it is sent.
async fn lenient_server(seen: Arc<std::sync::Mutex<Vec<String>>>) -> String {
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: String| {
            let seen = Arc::clone(&seen);
            async move {
                let request: serde_json::Value = serde_json::from_str(&body).unwrap();
                let method = request["method"].as_str().unwrap_or_default().to_owned();
                seen.lock().unwrap().push(method.clone());
                let result = match method.as_str() {
                    "tools/list" => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": [
                        {"name": "fine", "inputSchema": {"type": "object", "properties": {
                            "region": {"type": "string", "x-mcp-header": "Region"}}}},
                        {"name": "broken", "inputSchema": {"type": "object", "properties": {
                            "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}}
                    ]}),
                    _ => json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
                };
                axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/mcp")
}

#[tokio::test]
async fn the_client_never_calls_a_tool_whose_header_annotation_is_invalid() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let url = lenient_server(Arc::clone(&seen)).await;
    let client = Client::builder()
        .force_era(presa::client::Era::Modern)
        .connect(ClientTransport::http(&url).unwrap());
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["fine"], "the invalid tool is left out");
    let error = client
        .call_tool("broken", json!({"ratio": 0.5}))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("cannot be called over HTTP"),
        "{error}"
    );
    let fine = client
        .call_tool("fine", json!({"region": "eu"}))
        .await
        .unwrap();
    assert_eq!(fine.text(), Some("ok"));
    assert_eq!(
        *seen.lock().unwrap(),
        ["tools/list", "tools/call"],
        "the broken tool never reached the server"
    );
}

/// Signals between a test and [`hold`].
#[derive(Clone, Default)]
struct Gate {
    started: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
}

/// Holds its request until the test releases it.
#[tool]
async fn hold(State(gate): State<Gate>) -> &'static str {
    gate.started.notify_one();
    gate.release.notified().await;
    "released"
}

/// Adds two numbers.
#[tool]
async fn sum(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// With the memory budget taken by a request still running, a POST that
/// does not fit is answered `503` with `Retry-After` and `-31001`; a small
/// one still fits, and the room comes back when the running one ends.
#[tokio::test]
async fn a_full_memory_budget_answers_503_with_retry_after() {
    let gate = Gate::default();
    let server = Server::builder("budget", "1")
        .tool(HoldTool)
        .tool(SumTool)
        .state(gate.clone())
        .memory_limit(512 * 1024)
        .build();
    let url = serve(StreamableHttp::new(server)).await;
    let heavy = |id: i64, tool: &str, arguments: serde_json::Value| {
        let mut body = call(id, tool, arguments);
        body["params"]["_meta"]["com.example/pad"] = json!("p".repeat(300 * 1024));
        body
    };
    let mut running = tokio::spawn({
        let (url, body) = (url.clone(), heavy(1, "hold", json!({})));
        async move { status_and_body(post(&url, body, &[]).await).await }
    });
    tokio::select! {
        () = gate.started.notified() => {}
        outcome = &mut running => panic!("the held request ended: {outcome:?}"),
    }

    let refused = post(&url, heavy(2, "sum", json!({"a": 1, "b": 2})), &[]).await;
    assert_eq!(
        refused
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1")
    );
    let (status, body) = status_and_body(refused).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], -31001, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("memory budget"),
        "{body}"
    );

    let small = post(&url, call(3, "sum", json!({"a": 1, "b": 2})), &[]).await;
    let (status, body) = status_and_body(small).await;
    assert_eq!(status, 200, "{body}");

    // The running request ends, and its room comes back.
    gate.release.notify_one();
    let (status, body) = running.await.unwrap();
    assert_eq!(status, 200, "{body}");
    let again = post(&url, heavy(4, "sum", json!({"a": 1, "b": 2})), &[]).await;
    let (status, body) = status_and_body(again).await;
    assert_eq!(status, 200, "{body}");
}

/// A `subscriptions/listen` for list changes: it stays open until the
/// client closes it.
fn listen(id: i64) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
           "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}})
}

/// Opens `count` listen streams at once with `extra` headers, each
/// acknowledged; the responses keep them open.
async fn open_listens(url: &str, count: i64, extra: &[(&str, &str)]) -> Vec<reqwest::Response> {
    let opening = (0..count).map(|id| post(url, listen(id), extra));
    let streams = futures::future::join_all(opening).await;
    for stream in &streams {
        assert_eq!(stream.status().as_u16(), 200);
        assert_eq!(stream.headers()["content-type"], "text/event-stream");
    }
    streams
}

/// A refusal of a caller past one of its limits: `503`, `Retry-After`,
/// `-31001` for request `id`, with a message that says `says`.
async fn assert_caller_busy(response: reqwest::Response, id: i64, says: &str) {
    // Checked before the body is read: an admitted stream's never ends.
    assert_eq!(response.status().as_u16(), 503);
    let retry = response.headers().get("retry-after").cloned();
    let (_, body) = status_and_body(response).await;
    assert_eq!(
        retry
            .and_then(|v| v.to_str().ok().map(str::to_owned))
            .as_deref(),
        Some("1")
    );
    assert_eq!(body["error"]["code"], -31001, "{body}");
    assert_eq!(body["id"], id, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(says), "{message}");
}

/// The events of an SSE body up to the response, as messages.
async fn read_until_response(response: reqwest::Response) -> serde_json::Value {
    use futures::StreamExt;
    let mut body = response.bytes_stream();
    let mut text = String::new();
    loop {
        let chunk = body.next().await.expect("the stream goes on").unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        let answered = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
            .find(|message| message.get("method").is_none());
        if let Some(response) = answered {
            return response;
        }
    }
}

/// One bearer token cannot hold more than 64 listen streams (the finding:
/// it opened 3 000 and read none); past it, `-31001` says to close one,
/// another subject is not affected, and a stream that ends gives its slot
/// back.
#[tokio::test]
async fn one_subject_cannot_hold_every_listen_stream() {
    use presa::server::http::BearerTokens;
    let f = common::fixture();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let url = serve(StreamableHttp::new(f.server.clone()).authenticator(tokens)).await;
    let alice = [("authorization", "Bearer t-alice")];
    let bob = [("authorization", "Bearer t-bob")];

    // One of alice's streams follows a task only, so that it ends when the
    // task does.
    let (_, created) =
        status_and_body(post(&url, call(1, "build", json!({"target": "all"})), &alice).await).await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let follow = json!({"jsonrpc": "2.0", "id": 100, "method": "subscriptions/listen",
                        "params": {"_meta": meta(), "notifications": {"taskIds": [task]}}});
    let following = post(&url, follow, &alice).await;
    assert_eq!(following.status().as_u16(), 200);
    let _held = open_listens(&url, 63, &alice).await;

    let refused = post(&url, listen(64), &alice).await;
    assert_caller_busy(refused, 64, "you already hold 64 open streams").await;
    let message_says_how = post(&url, listen(65), &alice).await;
    assert_caller_busy(message_says_how, 65, "close one first").await;
    let _bobs = open_listens(&url, 1, &bob).await;
    let (status, body) =
        status_and_body(post(&url, call(2, "add", json!({"a": 1, "b": 2})), &bob).await).await;
    assert_eq!(status, 200, "bob's requests are not held back: {body}");

    let cancel = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel",
                        "params": {"_meta": meta(), "taskId": task}});
    let (status, body) = status_and_body(post(&url, cancel, &alice).await).await;
    assert_eq!(status, 200, "{body}");
    let ended = read_until_response(following).await;
    assert_eq!(ended["id"], 100, "{ended}");
    let _again = open_listens(&url, 1, &alice).await;
}

/// Counts the calls of [`queue`] that entered, and lets them out one
/// permit at a time.
#[derive(Clone)]
struct Line {
    entered: Arc<tokio::sync::watch::Sender<usize>>,
    exit: Arc<tokio::sync::Semaphore>,
}

impl Line {
    fn new() -> Self {
        Line {
            entered: Arc::new(tokio::sync::watch::channel(0).0),
            exit: Arc::new(tokio::sync::Semaphore::new(0)),
        }
    }
}

/// Waits in line until let out.
#[tool]
async fn queue(State(line): State<Line>) -> &'static str {
    line.entered.send_modify(|n| *n += 1);
    line.exit.acquire().await.unwrap().forget();
    "out"
}

/// One subject cannot have more than 256 requests in progress; past it,
/// `-31001` says to wait for one, another subject is not affected, and a
/// request that answers gives its slot back.
#[tokio::test]
async fn one_subject_cannot_have_every_request_in_progress() {
    use presa::server::http::BearerTokens;
    let line = Line::new();
    let server = Server::builder("line", "1")
        .tool(QueueTool)
        .tool(SumTool)
        .state(line.clone())
        .build();
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let url = serve(StreamableHttp::new(server).authenticator(tokens)).await;
    let alice = [("authorization", "Bearer t-alice")];
    let bob = [("authorization", "Bearer t-bob")];
    let mut waiting = tokio::task::JoinSet::new();
    for id in 0..256 {
        let url = url.clone();
        waiting.spawn(async move {
            let queued = post(&url, call(id, "queue", json!({})), &alice).await;
            status_and_body(queued).await
        });
    }
    let mut entered = line.entered.subscribe();
    entered.wait_for(|&n| n == 256).await.unwrap();

    let refused = post(&url, call(256, "sum", json!({"a": 1, "b": 2})), &alice).await;
    assert_caller_busy(refused, 256, "you already have 256 requests in progress").await;
    let sum = post(&url, call(257, "sum", json!({"a": 1, "b": 2})), &bob).await;
    assert_eq!(status_and_body(sum).await.0, 200, "bob is not held back");

    line.exit.add_permits(1);
    let (status, body) = waiting.join_next().await.unwrap().unwrap();
    assert_eq!(
        (status, body["result"]["content"][0]["text"].clone()),
        (200, json!("out"))
    );
    let sum = post(&url, call(258, "sum", json!({"a": 1, "b": 2})), &alice).await;
    assert_eq!(
        status_and_body(sum).await.0,
        200,
        "the answered request gave its slot back"
    );

    line.exit.add_permits(255);
    while let Some(outcome) = waiting.join_next().await {
        assert_eq!(outcome.unwrap().0, 200);
    }
}

/// Lets a test say which address a request comes from, as a reverse proxy
/// does with a header it trusts.
async fn peer_from_header(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let peer = request
        .headers()
        .get("x-test-peer")
        .and_then(|v| v.to_str().ok()?.parse::<std::net::SocketAddr>().ok());
    if let Some(peer) = peer {
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
    }
    next.run(request).await
}

/// Serves `router` on a free loopback port without the peer's address;
/// returns the endpoint's URL.
async fn serve_router(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

/// Anonymous callers are counted by the address they come from: one
/// anonymous client at its limit does not stop another.
#[tokio::test]
async fn one_anonymous_client_cannot_shut_out_another() {
    let f = common::fixture();
    let router = StreamableHttp::new(f.server.clone())
        .router("/mcp")
        .layer(axum::middleware::from_fn(peer_from_header));
    let url = serve_router(router).await;
    let flooder = [("x-test-peer", "192.0.2.1:40000")];
    let _flood = open_listens(&url, 64, &flooder).await;
    let refused = post(&url, listen(64), &flooder).await;
    assert_caller_busy(refused, 64, "callers from your address already hold 64").await;
    let another_port = [("x-test-peer", "192.0.2.1:40001")];
    let refused = post(&url, listen(65), &another_port).await;
    assert_caller_busy(refused, 65, "64 open streams").await;

    let other = [("x-test-peer", "192.0.2.2:40000")];
    let _theirs = open_listens(&url, 1, &other).await;
    let (status, body) =
        status_and_body(post(&url, call(1, "add", json!({"a": 1, "b": 2})), &other).await).await;
    assert_eq!(status, 200, "{body}");
}

/// Without the peer's address, anonymous callers cannot be told apart:
/// they share one quota, and the refusal says so.
#[tokio::test]
async fn without_the_peers_address_anonymous_callers_share_one_quota() {
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone()).max_listen_streams_per_subject(2);
    let url = serve_router(http.router("/mcp")).await;
    let _flood = open_listens(&url, 2, &[]).await;
    let refused = post(&url, listen(2), &[]).await;
    assert_caller_busy(refused, 2, "anonymous callers already hold 2 open streams").await;
}

/// [`StreamableHttp::serve_on`] gives each request its peer's address, so
/// anonymous clients on two addresses have a quota each (Linux routes all
/// of 127.0.0.0/8 to loopback; other systems need it configured).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn serve_tells_anonymous_clients_apart_by_address() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone()).max_listen_streams_per_subject(1)).await;
    let _flood = open_listens(&url, 1, &[]).await;
    assert_caller_busy(
        post(&url, listen(1), &[]).await,
        1,
        "callers from your address",
    )
    .await;
    let elsewhere = reqwest::Client::builder()
        .local_address(Some("127.0.0.2".parse().unwrap()))
        .build()
        .unwrap();
    let other = elsewhere
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", common::VERSION)
        .header("mcp-method", "subscriptions/listen")
        .body(listen(2).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(other.status().as_u16(), 200);
}

/// Serves a server that records each request's method, its `_meta`
/// log level and its `X-Tenant` headers, and answers every request with
/// an empty `complete` result.
async fn recording_server(seen: Arc<std::sync::Mutex<Vec<serde_json::Value>>>) -> String {
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let seen = Arc::clone(&seen);
            async move {
                let request: serde_json::Value = serde_json::from_str(&body).unwrap();
                let tenants: Vec<&str> = headers
                    .get_all("x-tenant")
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .collect();
                seen.lock().unwrap().push(json!({
                    "method": request["method"],
                    "logLevel": request["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
                    "tenants": tenants,
                    "accept": headers.get("accept").and_then(|v| v.to_str().ok()),
                }));
                let result = match request["method"].as_str() {
                    Some("tools/list") => json!({"resultType": "complete", "ttlMs": 0,
                                                 "cacheScope": "public", "tools": []}),
                    _ => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                                "supportedVersions": ["2026-07-28"],
                                "capabilities": {}, "serverInfo": {"name": "r", "version": "1"}}),
                };
                axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            }
        }),
    );
    serve_router(app).await
}

#[tokio::test]
async fn extra_headers_go_with_every_request_beside_the_transport_s_own() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let url = recording_server(Arc::clone(&seen)).await;
    let options = presa::client::HttpOptions::default()
        .header("X-Tenant", "acme")
        .unwrap()
        .header("X-Tenant", "beta")
        .unwrap();
    let client = Client::builder()
        .force_era(presa::client::Era::Modern)
        .connect(ClientTransport::http_with(&url, options).unwrap());
    client.list_tools().await.unwrap();
    client.ping().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    let methods: Vec<&str> = seen.iter().filter_map(|s| s["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["tools/list", "server/discover"],
        "a modern ping is a discover"
    );
    for request in &seen {
        assert_eq!(request["tenants"], json!(["acme", "beta"]), "{request}");
        let accept = request["accept"].as_str().unwrap_or_default();
        assert!(accept.contains("application/json"), "{request}");
    }
}

#[tokio::test]
async fn a_log_level_set_later_goes_with_the_next_modern_requests() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let url = recording_server(Arc::clone(&seen)).await;
    let client = Client::builder()
        .force_era(presa::client::Era::Modern)
        .connect(ClientTransport::http(&url).unwrap());
    client.list_tools().await.unwrap();
    client
        .set_log_level(presa::wire::LoggingLevel::Warning)
        .await
        .unwrap();
    client.list_tools().await.unwrap();
    let levels: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s["logLevel"].clone())
        .collect();
    assert_eq!(levels, [serde_json::Value::Null, json!("warning")]);
}

#[tokio::test]
async fn ping_and_log_level_in_a_legacy_session() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;
    let client = Client::builder()
        .force_era(presa::client::Era::Legacy)
        .connect(ClientTransport::http(&url).unwrap());
    client.ping().await.unwrap();
    client
        .set_log_level(presa::wire::LoggingLevel::Debug)
        .await
        .unwrap();
    let modern = Client::builder().connect(ClientTransport::http(&url).unwrap());
    modern.ping().await.unwrap();
    assert_eq!(modern.era().await.unwrap(), presa::client::Era::Modern);
}
