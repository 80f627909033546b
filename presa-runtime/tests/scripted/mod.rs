//! A scripted fake server for client tests: the test reads the client's
//! raw frames and writes the server's answers, plus builders for the task
//! shapes it answers with, and [`Logs`] to see what the client logged.
//! Shared by the `client_*.rs` tests.
#![allow(dead_code)]

/// The spec's schemas, shared with the facade's tests.
#[path = "../../../tests/common/spec.rs"]
mod spec;

pub mod legacy;

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_runtime::client::{Client, ClientBuilder, Era};
use presa_runtime::transport::{FrameChannel, Inbound};
use presa_runtime::wire::ElicitResult;
use serde_json::{Value, json};
use tokio::time::timeout;

pub const TASKS: &str = "io.modelcontextprotocol/tasks";
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// Fails a test that waits for a frame that never comes (virtual time).
pub const GUARD: Duration = Duration::from_secs(4 * 3600);
/// How long to wait for a frame that must not come. With the clock paused
/// this only elapses once every task is idle.
pub const QUIET: Duration = Duration::from_secs(1);

/// The server end of the connection.
pub struct Peer {
    channel: FrameChannel,
}

impl Peer {
    pub async fn recv(&mut self) -> Value {
        let inbound = timeout(GUARD, self.channel.incoming.recv())
            .await
            .expect("the client sent nothing")
            .expect("the client closed the connection");
        frame_json(inbound)
    }

    /// The next frame, which must be `method`.
    pub async fn expect(&mut self, method: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["method"], method, "unexpected message {message}");
        message
    }

    /// A frame the client already sent, if any.
    pub fn try_recv(&mut self) -> Option<Value> {
        self.channel.incoming.try_recv().map(frame_json)
    }

    /// The next frame the client sends before everything goes idle; `None`
    /// if it sends nothing (or closed the connection).
    pub async fn sent_next(&mut self) -> Option<Value> {
        match timeout(QUIET, self.channel.incoming.recv()).await {
            Ok(Some(inbound)) => Some(frame_json(inbound)),
            _ => None,
        }
    }

    pub async fn send(&self, message: Value) {
        self.channel
            .outgoing
            .send(message.to_string())
            .await
            .unwrap();
    }

    pub async fn reply(&self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    pub async fn reply_error(&self, request: &Value, code: i64, message: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"],
                         "error": {"code": code, "message": message}}))
            .await;
    }

    pub async fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Pushes `task` on the subscription opened by `listen`.
    pub async fn push(&self, listen: &Value, mut task: Value) {
        task["_meta"] = json!({ SUBSCRIPTION_ID: listen["id"] });
        self.notify("notifications/tasks", task).await;
    }

    /// Acknowledges `listen` for `task_ids`.
    pub async fn acknowledge(&self, listen: &Value, task_ids: Value) {
        let params = json!({"_meta": { SUBSCRIPTION_ID: listen["id"] },
                            "notifications": {"taskIds": task_ids}});
        self.notify("notifications/subscriptions/acknowledged", params)
            .await;
    }

    /// The server's `notifications/cancelled` for the stream `listen`
    /// opened, as it sends it when it tears the stream down.
    pub async fn cancel_stream(&self, listen: &Value) {
        let params = json!({"_meta": { SUBSCRIPTION_ID: listen["id"] },
                            "requestId": listen["id"],
                            "reason": "every task this subscription followed has ended"});
        self.notify("notifications/cancelled", params).await;
    }

    /// The graceful end of the stream `listen` opened: its `complete` result.
    pub async fn end_stream(&self, listen: &Value) {
        let result = json!({"resultType": "complete",
                            "_meta": { SUBSCRIPTION_ID: listen["id"] }});
        self.reply(listen, result).await;
    }

    /// Closes the server's output, keeping its input open: the client still
    /// writes successfully, but no answer will ever arrive.
    pub fn close_output(self) -> presa_runtime::transport::Incoming {
        self.channel.incoming
    }
}

/// A frame the client sent, parsed, and checked against the spec's schema.
pub fn frame_json(inbound: Inbound) -> Value {
    let message = frame_json_unchecked(inbound);
    spec::check_from_client(&message);
    message
}

/// A frame the client sent, parsed.
pub fn frame_json_unchecked(inbound: Inbound) -> Value {
    match inbound {
        Inbound::Frame(frame) => serde_json::from_str(&frame).unwrap(),
        other => panic!("unexpected inbound {other:?}"),
    }
}

/// A client of a modern server (no era probe) and the server's end.
pub fn connect(builder: ClientBuilder) -> (Client, Peer) {
    let (client_end, server_end) = FrameChannel::pair();
    (
        builder.force_era(Era::Modern).connect(client_end),
        Peer {
            channel: server_end,
        },
    )
}

/// A client that declares tasks and accepts every elicitation with
/// `{ok: true}`, counting the elicitations.
pub fn tasks_client() -> (Client, Peer, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let builder = Client::builder().tasks(true).on_elicitation(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { ElicitResult::accept(json!({"ok": true})) }
    });
    let (client, peer) = connect(builder);
    (client, peer, asked)
}

/// A task's wire fields, plus `extra` (payload, poll interval).
pub fn task(id: &str, status: &str, extra: Value) -> Value {
    let mut task = json!({
        "taskId": id,
        "status": status,
        "createdAt": "2026-11-30T10:00:00Z",
        "lastUpdatedAt": "2026-11-30T10:00:01Z",
        "ttlMs": 60000,
        "pollIntervalMs": 250
    });
    for (k, v) in extra.as_object().unwrap() {
        task[k] = v.clone();
    }
    task
}

/// A `tasks/get` result.
pub fn got(id: &str, status: &str, extra: Value) -> Value {
    let mut result = task(id, status, extra);
    result["resultType"] = json!("complete");
    result
}

/// A `CreateTaskResult`.
pub fn created(id: &str) -> Value {
    let mut result = task(id, "working", json!({}));
    result["resultType"] = json!("task");
    result
}

pub fn completed_with(text: &str) -> Value {
    json!({"result": {"content": [{"type": "text", "text": text}], "isError": false}})
}

pub fn confirm_request(message: &str) -> Value {
    json!({"method": "elicitation/create",
           "params": {"mode": "form", "message": message,
                      "requestedSchema": {"type": "object",
                                          "properties": {"ok": {"type": "boolean"}}}}})
}

/// The request's params without `_meta`, after checking that `_meta`
/// carries the version and, exactly when `tasks`, the tasks extension.
pub fn params(request: &Value, tasks: bool) -> Value {
    let mut params = request["params"].clone();
    let meta = params.as_object_mut().unwrap().remove("_meta").unwrap();
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let extension = &meta["io.modelcontextprotocol/clientCapabilities"]["extensions"][TASKS];
    match tasks {
        true => assert_eq!(extension, &json!({}), "{meta}"),
        false => assert!(extension.is_null(), "{meta}"),
    }
    params
}

/// The log events recorded on this thread while it lives. A paused-clock
/// test runs on a current-thread runtime, so the client's reader task logs
/// on the test's thread too; other tests' events stay out.
pub struct Logs {
    lines: Arc<Mutex<Vec<String>>>,
    _scope: tracing::subscriber::DefaultGuard,
}

impl Logs {
    pub fn capture() -> Logs {
        let lines = Arc::default();
        let recorder = Recorder {
            lines: Arc::clone(&lines),
        };
        Logs {
            lines,
            _scope: tracing::subscriber::set_default(recorder),
        }
    }

    /// Whether any event so far mentions `text`.
    pub fn mention(&self, text: &str) -> bool {
        self.lines.lock().unwrap().iter().any(|l| l.contains(text))
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// A subscriber that keeps each event as one line of `field=value` pairs.
struct Recorder {
    lines: Arc<Mutex<Vec<String>>>,
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut line = Line(event.metadata().level().to_string());
        event.record(&mut line);
        self.lines.lock().unwrap().push(line.0);
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

struct Line(String);

impl tracing::field::Visit for Line {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
}
