//! A scripted legacy (2025-11-25) Streamable HTTP server, for the client's
//! tests: sessions with `Mcp-Session-Id`, the GET stream, event streams
//! that close early and resume with `Last-Event-ID`, and `DELETE`. It
//! refuses a request without a session as the TypeScript SDK does (`400`
//! with a `-32000` error), records every HTTP request it gets, and checks
//! every JSON-RPC body against the 2025-11-25 schema (the era probe
//! against the modern one).
//!
//! Its tools: `echo` answers with JSON; `ask` asks an elicitation on its
//! event stream and answers with what the client submitted; `reconnect`
//! primes its stream with an event id and `retry`, closes it, and answers
//! on the GET that resumes it.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::common::spec;

/// The `retry` the `reconnect` tool's stream asks for.
pub const RETRY: Duration = Duration::from_millis(200);

/// One HTTP request the server got.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `POST`, `GET` or `DELETE`.
    pub verb: &'static str,
    /// The JSON-RPC method, for a POSTed request or notification.
    pub method: Option<String>,
    /// `Mcp-Session-Id`.
    pub session: Option<String>,
    /// `MCP-Protocol-Version`.
    pub version: Option<String>,
    /// `Last-Event-ID`.
    pub last_event_id: Option<String>,
    /// Whether a modern header (`Mcp-Method`) came along.
    pub modern_headers: bool,
    /// When it arrived.
    pub at: Instant,
}

#[derive(Default)]
struct State {
    sessions: HashSet<String>,
    opened: u32,
    /// Refuse the next `initialize`s.
    refuse_sessions: bool,
    seen: Vec<Seen>,
    /// The `reconnect` call waiting for its stream to be resumed.
    pending: Option<Value>,
    /// When the `reconnect` call's first stream closed.
    closed_at: Option<Instant>,
    /// The methods of the server's own requests, by id.
    asked: HashMap<String, String>,
    /// Answers to the server's own requests, by id.
    answers: HashMap<String, oneshot::Sender<Value>>,
    /// The GET stream's feed, while one is open.
    listener: Option<mpsc::UnboundedSender<String>>,
}

/// The server, serving on a loopback port.
#[derive(Clone)]
pub struct LegacyHttp {
    /// The MCP endpoint.
    pub url: String,
    state: Arc<Mutex<State>>,
    /// Signalled when a GET stream opens.
    listening: Arc<tokio::sync::Notify>,
}

impl LegacyHttp {
    /// Starts a server.
    pub async fn start() -> LegacyHttp {
        let state: Arc<Mutex<State>> = Arc::default();
        let listening = Arc::new(tokio::sync::Notify::new());
        let opened = Arc::clone(&listening);
        let (post, get, delete) = (Arc::clone(&state), Arc::clone(&state), Arc::clone(&state));
        let route = axum::routing::post(move |headers: HeaderMap, body: String| {
            handle_post(Arc::clone(&post), headers, body)
        })
        .get(move |headers: HeaderMap| handle_get(Arc::clone(&get), Arc::clone(&opened), headers))
        .delete(move |headers: HeaderMap| handle_delete(Arc::clone(&delete), headers));
        let app = axum::Router::new().route("/mcp", route);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        LegacyHttp {
            url: format!("http://{address}/mcp"),
            state,
            listening,
        }
    }

    /// Every HTTP request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// The POSTs of JSON-RPC `method` so far.
    pub fn posts(&self, method: &str) -> Vec<Seen> {
        let seen = self.seen();
        seen.into_iter()
            .filter(|s| s.method.as_deref() == Some(method))
            .collect()
    }

    /// Forgets every session, as a server whose sessions expired.
    pub fn expire_sessions(&self) {
        self.state.lock().unwrap().sessions.clear();
    }

    /// Refuses every `initialize` from now on.
    pub fn refuse_sessions(&self) {
        self.state.lock().unwrap().refuse_sessions = true;
    }

    /// When the `reconnect` tool's first stream closed.
    pub fn closed_at(&self) -> Option<Instant> {
        self.state.lock().unwrap().closed_at
    }

    /// Waits until a GET stream has opened.
    pub async fn listener_opened(&self) {
        self.listening.notified().await;
    }

    /// Sends `message` on the GET stream; whether one is open.
    pub fn push(&self, message: Value) -> bool {
        spec::check_legacy_from_server(&message, None);
        let mut state = self.state.lock().unwrap();
        if let (Some(id), Some(method)) = (message["id"].as_str(), message["method"].as_str()) {
            state.asked.insert(id.to_owned(), method.to_owned());
        }
        state
            .listener
            .as_ref()
            .is_some_and(|feed| feed.send(event(None, &message)).is_ok())
    }

    /// Waits for the client's answer to the server's request `id`, sent on
    /// the GET stream with [`push`](Self::push).
    pub fn answer_to(&self, id: &str) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.state.lock().unwrap().answers.insert(id.to_owned(), tx);
        rx
    }
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name)?.to_str().ok().map(str::to_owned)
}

fn record(state: &Mutex<State>, verb: &'static str, headers: &HeaderMap, method: Option<&str>) {
    let seen = Seen {
        verb,
        method: method.map(str::to_owned),
        session: header(headers, "mcp-session-id"),
        version: header(headers, "mcp-protocol-version"),
        last_event_id: header(headers, "last-event-id"),
        modern_headers: headers.contains_key("mcp-method"),
        at: Instant::now(),
    };
    state.lock().unwrap().seen.push(seen);
}

fn json_reply(status: StatusCode, body: Value, session: Option<&str>) -> Response {
    let mut reply = Response::builder()
        .status(status)
        .header("content-type", "application/json");
    if let Some(session) = session {
        reply = reply.header("mcp-session-id", session);
    }
    reply.body(Body::from(body.to_string())).unwrap()
}

fn status(status: StatusCode) -> Response {
    Response::builder()
        .status(status)
        .body(Body::empty())
        .unwrap()
}

/// An event-stream reply fed by the returned sender; dropping it ends the
/// stream.
fn event_stream() -> (mpsc::UnboundedSender<String>, Response) {
    let (feed, events) = mpsc::unbounded_channel::<String>();
    let body = futures::stream::unfold(events, |mut events| async move {
        let event = events.recv().await?;
        Some((Ok::<_, Infallible>(event), events))
    });
    let reply = Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(body))
        .unwrap();
    (feed, reply)
}

/// One SSE event carrying `message`, numbered `id` when given.
fn event(id: Option<&str>, message: &Value) -> String {
    match id {
        Some(id) => format!("id: {id}\ndata: {message}\n\n"),
        None => format!("data: {message}\n\n"),
    }
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

async fn handle_post(state: Arc<Mutex<State>>, headers: HeaderMap, body: String) -> Response {
    let message: Value = serde_json::from_str(&body).expect("the client posts JSON");
    let method = message["method"].as_str().map(str::to_owned);
    record(&state, "POST", &headers, method.as_deref());
    if method.as_deref() == Some("server/discover") {
        spec::check_from_client(&message);
    } else {
        let answering = message["id"]
            .as_str()
            .filter(|_| method.is_none())
            .and_then(|id| state.lock().unwrap().asked.get(id).cloned());
        spec::check_legacy_from_client(&message, answering.as_deref());
    }
    if method.as_deref() == Some("initialize") {
        return initialize(&state, &message);
    }
    let Some(session) = header(&headers, "mcp-session-id") else {
        let refusal = json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}});
        return json_reply(StatusCode::BAD_REQUEST, refusal, None);
    };
    if !state.lock().unwrap().sessions.contains(&session) {
        return status(StatusCode::NOT_FOUND);
    }
    match method.as_deref() {
        None => {
            let id = message["id"].to_string().trim_matches('"').to_owned();
            if let Some(waiter) = state.lock().unwrap().answers.remove(&id) {
                let _ = waiter.send(message);
            }
            status(StatusCode::ACCEPTED)
        }
        Some(_) if message.get("id").is_none() => status(StatusCode::ACCEPTED),
        Some("tools/list") => {
            let tools: Vec<Value> = ["echo", "ask", "reconnect"]
                .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                .into();
            let tools = json!({ "tools": tools });
            json_reply(StatusCode::OK, result(&message["id"], tools), None)
        }
        Some("tools/call") => call_tool(state, message).await,
        Some(_) => {
            let error = json!({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32601, "message": "Method not found"}});
            json_reply(StatusCode::OK, error, None)
        }
    }
}

fn initialize(state: &Mutex<State>, message: &Value) -> Response {
    let mut state = state.lock().unwrap();
    if state.refuse_sessions {
        let error = json!({"jsonrpc": "2.0", "id": message["id"],
                           "error": {"code": -32603, "message": "no more sessions"}});
        return json_reply(StatusCode::OK, error, None);
    }
    state.opened += 1;
    let session = format!("session-{}", state.opened);
    state.sessions.insert(session.clone());
    let initialized = json!({"protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "legacy-http", "version": "1"}});
    let reply = result(&message["id"], initialized);
    json_reply(StatusCode::OK, reply, Some(&session))
}

async fn call_tool(state: Arc<Mutex<State>>, message: Value) -> Response {
    let id = message["id"].clone();
    match message["params"]["name"].as_str() {
        Some("ask") => {
            let (feed, reply) = event_stream();
            let (tx, answer) = oneshot::channel();
            let mut locked = state.lock().unwrap();
            locked.answers.insert("e1".into(), tx);
            locked
                .asked
                .insert("e1".into(), "elicitation/create".into());
            drop(locked);
            let question = json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                "params": {"message": "Name?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}});
            spec::check_legacy_from_server(&question, None);
            feed.send(event(None, &question)).unwrap();
            tokio::spawn(async move {
                let answer = answer.await.unwrap();
                let name = answer["result"]["content"]["name"]
                    .as_str()
                    .unwrap_or("nobody");
                let _ = feed.send(event(None, &result(&id, text(&format!("Hello, {name}")))));
            });
            reply
        }
        Some("reconnect") => {
            let (feed, reply) = event_stream();
            let retry = RETRY.as_millis();
            feed.send(format!("id: prime-1\nretry: {retry}\ndata: \n\n"))
                .unwrap();
            let mut locked = state.lock().unwrap();
            locked.pending = Some(id);
            drop(feed);
            locked.closed_at = Some(Instant::now());
            reply
        }
        _ => json_reply(StatusCode::OK, result(&id, text("echoed")), None),
    }
}

async fn handle_get(
    state: Arc<Mutex<State>>,
    opened: Arc<tokio::sync::Notify>,
    headers: HeaderMap,
) -> Response {
    record(&state, "GET", &headers, None);
    let known = header(&headers, "mcp-session-id")
        .is_some_and(|s| state.lock().unwrap().sessions.contains(&s));
    if !known {
        return status(StatusCode::NOT_FOUND);
    }
    let (feed, reply) = event_stream();
    feed.send("id: get-0\nretry: 1000\ndata: \n\n".into())
        .unwrap();
    let mut state = state.lock().unwrap();
    match header(&headers, "last-event-id") {
        Some(_) => {
            if let Some(id) = state.pending.take() {
                let answer = result(&id, text("resumed"));
                feed.send(event(Some("get-1"), &answer)).unwrap();
            }
        }
        None => {
            state.listener = Some(feed);
            opened.notify_one();
        }
    }
    reply
}

async fn handle_delete(state: Arc<Mutex<State>>, headers: HeaderMap) -> Response {
    record(&state, "DELETE", &headers, None);
    if let Some(session) = header(&headers, "mcp-session-id") {
        state.lock().unwrap().sessions.remove(&session);
    }
    status(StatusCode::OK)
}
