//! Shared fixtures: a server with one tool per behaviour under test, and a
//! raw peer that speaks JSON lines, over in-process and stdio framing.
#![allow(dead_code)]

#[cfg(all(feature = "http-server", feature = "http-client"))]
pub mod legacy_http;
pub mod raw_http;
pub mod spec;
pub mod surface;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use presa::client::prelude::*;
use presa::client::{ClientBuilder, ClientTransport};
use presa::prelude::*;
use presa::transport::{FrameChannel, Inbound, byte_stream};
use presa::wire::{CreateMessageParams, LoggingLevel, SamplingMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The protocol version under test.
pub const VERSION: &str = "2026-07-28";

/// How long a test waits for a message before it fails instead of hanging.
const RECV_GUARD: Duration = Duration::from_secs(20);

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
pub struct Name {
    pub name: String,
}

/// Builds a target after confirmation.
#[tool(task = "optional")]
pub async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Asks for a first name, then a last name: two rounds.
#[tool]
pub async fn full_name(ctx: Context, State(runs): State<RunCounter>) -> Result<String, ToolError> {
    runs.0.fetch_add(1, Ordering::SeqCst);
    let first = ctx.elicit::<Name>("first", "First name?").await?;
    let last = ctx.elicit::<Name>("last", "Last name?").await?;
    match (first, last) {
        (Elicitation::Accepted(f), Elicitation::Accepted(l)) => {
            Ok(format!("{} {}", f.name, l.name))
        }
        _ => Err(ToolError::new("no name given")),
    }
}

/// Asks two questions in one round.
#[tool]
pub async fn pair(ctx: Context) -> Result<String, ToolError> {
    let (a, b) = tokio::try_join!(
        ctx.elicit::<Name>("a", "Name A?"),
        ctx.elicit::<Name>("b", "Name B?")
    )?;
    let name = |e: Elicitation<Name>| e.accepted().map(|n| n.name).unwrap_or_default();
    Ok(format!("{} & {}", name(a), name(b)))
}

/// Says what the user did with the question.
#[tool]
pub async fn outcome(ctx: Context) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Confirm>("c", "Proceed?").await? {
        Elicitation::Accepted(c) => format!("accepted ok={}", c.ok),
        Elicitation::Declined => "declined".into(),
        Elicitation::Cancelled => "cancelled".into(),
    })
}

/// Sends the user to a URL to sign in.
#[tool]
pub async fn connect_account(ctx: Context) -> Result<String, ToolError> {
    let action = ctx
        .elicit_url("login", "Sign in to continue", "https://example.com/login")
        .await?;
    Ok(format!("{action:?}"))
}

/// Returns a hand-built result with its own `_meta`.
#[tool]
pub async fn raw_result() -> CallToolResult {
    let mut result = CallToolResult::from_text("raw");
    result.result_type = presa::wire::ResultType::Other("bogus".into());
    let mut meta = presa::wire::ResultMeta::default();
    meta.other.insert("com.example/trace".into(), json!("t1"));
    result.meta = Some(meta);
    result
}

/// Waits for the probe's release signal.
#[tool]
pub async fn gated(State(probe): State<Probe>) -> &'static str {
    probe.release.notified().await;
    "released"
}

/// Tells the probe it started, then waits for its release signal: for a
/// test that must know the call is running before it goes on.
#[tool]
pub async fn gated_started(State(probe): State<Probe>) -> &'static str {
    probe.started.notify_one();
    probe.release.notified().await;
    "released"
}

/// Returns `size` bytes of text.
#[tool]
pub async fn big(size: usize) -> String {
    "x".repeat(size)
}

/// Uses one key for two different questions.
#[tool]
pub async fn conflicting(ctx: Context) -> Result<String, ToolError> {
    let _ = ctx.elicit::<Confirm>("k", "Confirm?").await;
    ctx.elicit::<Name>("k", "Name?").await?;
    Ok("unreachable".into())
}

/// A policy that panics.
fn panicking_policy(_args: &SometimesArgs, _request: &presa::RequestInfo) -> presa::TaskPolicy {
    panic!("policy bug")
}

/// Runs under a policy function that panics.
#[tool(task = panicking_policy)]
pub async fn sometimes(n: u32) -> String {
    n.to_string()
}

/// Asks a fresh question forever.
#[tool]
pub async fn endless(ctx: Context) -> Result<String, ToolError> {
    let mut round = 0;
    loop {
        ctx.elicit::<Confirm>(format!("q{round}"), "Again?").await?;
        round += 1;
    }
}

/// Asks the client's model.
#[tool]
pub async fn ask_model(ctx: Context, question: String) -> Result<String, ToolError> {
    let params = CreateMessageParams::new(vec![SamplingMessage::user(question)], 64);
    let reply = ctx.sample("answer", params).await?;
    Ok(reply.text().unwrap_or_default().to_owned())
}

/// Lists the client's roots.
#[tool]
pub async fn roots(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(roots
        .into_iter()
        .map(|r| r.uri)
        .collect::<Vec<_>>()
        .join(","))
}

/// Panics with a secret.
#[tool]
pub async fn explode() -> String {
    panic!("secret-panic-detail")
}

/// Fails internally with a secret.
#[tool]
pub async fn broken() -> Result<String, ToolError> {
    Err(ToolError::internal("db password is secret-internal-detail"))
}

/// Runs only as a task.
#[tool(task = "required")]
pub async fn long_job() -> String {
    "done".into()
}

/// A sum, as structured output.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema, PartialEq)]
pub struct Sum {
    pub total: i64,
}

/// An order with constraints only the schema can express.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Order {
    #[schemars(range(min = 1, max = 10))]
    pub quantity: u32,
    #[schemars(length(max = 5))]
    pub code: String,
}

/// Places an order.
#[tool]
pub async fn order(order: Order) -> String {
    format!("{} x {}", order.quantity, order.code)
}

/// Adds two numbers.
#[tool]
pub async fn add(a: i64, b: i64, note: Option<String>) -> Json<Sum> {
    let _ = note;
    Json(Sum { total: a + b })
}

/// Reports progress and logs.
#[tool]
pub async fn chatty(ctx: Context) -> &'static str {
    ctx.progress(1.0, Some(2.0), Some("half".into())).await;
    ctx.log(LoggingLevel::Info, json!("halfway")).await;
    ctx.log(LoggingLevel::Debug, json!("noise")).await;
    ctx.progress(2.0, Some(2.0), None).await;
    ctx.progress(1.5, Some(2.0), Some("going backwards is dropped".into()))
        .await;
    "done"
}

/// Waits until cancelled; the probe sees it start and sees it dropped.
#[tool]
pub async fn wait_forever(State(probe): State<Probe>) -> String {
    let _dropped = probe.drop_signal();
    probe.started.notify_one();
    std::future::pending::<String>().await
}

/// Counts how often `full_name` ran, to pin the re-run rule.
#[derive(Clone, Default)]
pub struct RunCounter(pub Arc<AtomicUsize>);

/// Signals from `wait_forever`.
#[derive(Clone, Default)]
pub struct Probe {
    pub started: Arc<Notify>,
    pub dropped: Arc<Notify>,
    pub release: Arc<Notify>,
}

pub struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

impl Probe {
    fn drop_signal(&self) -> DropSignal {
        DropSignal(Arc::clone(&self.dropped))
    }
}

/// Everything a fixture test needs to look at.
pub struct Fixture {
    pub server: Server,
    pub runs: RunCounter,
    pub probe: Probe,
}

pub fn fixture() -> Fixture {
    fixture_with(|b| b)
}

pub fn fixture_with(
    configure: impl FnOnce(presa::server::ServerBuilder) -> presa::server::ServerBuilder,
) -> Fixture {
    let runs = RunCounter::default();
    let probe = Probe::default();
    let builder = Server::builder("fixture", "1.0.0")
        .tool(BuildTool)
        .tool(FullNameTool)
        .tool(PairTool)
        .tool(OutcomeTool)
        .tool(EndlessTool)
        .tool(AskModelTool)
        .tool(RootsTool)
        .tool(ExplodeTool)
        .tool(BrokenTool)
        .tool(LongJobTool)
        .tool(AddTool)
        .tool(ChattyTool)
        .tool(WaitForeverTool)
        .tool(ConnectAccountTool)
        .tool(RawResultTool)
        .tool(GatedTool)
        .tool(GatedStartedTool)
        .tool(BigTool)
        .tool(ConflictingTool)
        .tool(SometimesTool)
        .tool(OrderTool)
        .state(runs.clone())
        .state(probe.clone())
        .tasks(presa::server::TaskSettings::default());
    Fixture {
        server: configure(builder).build(),
        runs,
        probe,
    }
}

/// The two ways a test reaches the server.
#[derive(Debug, Clone, Copy)]
pub enum Wire {
    /// Channels, no bytes.
    InProcess,
    /// Newline-delimited JSON over a byte stream, as on stdio.
    Stdio,
}

pub const WIRES: [Wire; 2] = [Wire::InProcess, Wire::Stdio];

/// Connects to `server` on behalf of `caller` over `wire`.
pub fn connect(server: &Server, caller: Caller, wire: Wire) -> FrameChannel {
    match wire {
        Wire::InProcess => presa::server::in_process(server, caller),
        Wire::Stdio => stdio_pair(server, caller, presa::transport::DEFAULT_MAX_MESSAGE_SIZE),
    }
}

/// A server serving stdio framing over an in-memory byte pipe.
pub fn stdio_pair(server: &Server, caller: Caller, limit: usize) -> FrameChannel {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(presa::server::serve(
        server.clone(),
        byte_stream(sr, sw, limit),
        caller,
    ));
    let (cr, cw) = tokio::io::split(client_io);
    byte_stream(cr, cw, limit)
}

/// A client over `wire`.
pub fn client(builder: ClientBuilder, server: &Server, wire: Wire) -> Client {
    builder.connect(ClientTransport::from(connect(
        server,
        Caller::anonymous(),
        wire,
    )))
}

/// A client that accepts every elicitation with `content`.
pub fn accepting(content: Value) -> ClientBuilder {
    Client::builder().on_elicitation(move |_| {
        let content = content.clone();
        async move { presa::wire::ElicitResult::accept(content) }
    })
}

/// The `_meta` every request needs, with `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    })
}

/// A peer that writes raw JSON and reads raw JSON. Every message it reads
/// is checked against the spec's schema (see [`spec`]).
pub struct RawPeer {
    channel: FrameChannel,
    /// Whether the peer speaks a legacy session, whose messages are
    /// checked against the 2025-11-25 schema: once an `initialize` of its
    /// is answered with a result.
    legacy: std::sync::atomic::AtomicBool,
    /// The method of each request sent and not yet answered, by id, and
    /// whether it was sent in a legacy session, so that a result is
    /// checked against its method's result type in its era. An
    /// `initialize` without the modern `_meta` is the session's.
    sent: std::sync::Mutex<std::collections::HashMap<String, (String, bool)>>,
    /// The `notifications/tasks/status` a legacy session heard, set aside
    /// by `recv` (the server may send them at any time).
    task_statuses: Vec<Value>,
}

impl RawPeer {
    pub fn new(channel: FrameChannel) -> Self {
        RawPeer {
            channel,
            legacy: Default::default(),
            sent: Default::default(),
            task_statuses: Vec::new(),
        }
    }

    /// A peer that opens a legacy session with `initialize` at `version`,
    /// declaring `capabilities`, and sends `notifications/initialized`.
    /// Returns it with the `InitializeResult`.
    pub async fn legacy(
        channel: FrameChannel,
        version: &str,
        capabilities: Value,
    ) -> (Self, Value) {
        let mut peer = RawPeer::new(channel);
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "legacy-raw", "version": "0"}
        });
        let response = peer.request(0, "initialize", params).await;
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (peer, response)
    }

    pub fn over(server: &Server, wire: Wire) -> Self {
        Self::new(connect(server, Caller::anonymous(), wire))
    }

    pub async fn send_line(&self, line: impl Into<String>) {
        let line = line.into();
        if let Ok(message) = serde_json::from_str::<Value>(&line)
            && let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str())
        {
            let opens = method == "initialize"
                && message
                    .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                    .is_none();
            let legacy = opens || self.legacy.load(Ordering::Relaxed);
            self.sent
                .lock()
                .unwrap()
                .insert(id.to_string(), (method.to_owned(), legacy));
        }
        self.channel
            .outgoing
            .send(line)
            .await
            .expect("server is connected");
    }

    pub async fn send(&self, message: Value) {
        self.send_line(message.to_string()).await;
    }

    /// The next message, failing the test if none arrives in time.
    pub async fn recv(&mut self) -> Value {
        self.recv_within(RECV_GUARD)
            .await
            .expect("a message arrives")
    }

    /// The next message, or `None` if none arrives within `limit`. In a
    /// legacy session, `notifications/tasks/status` is set aside for
    /// [`RawPeer::task_statuses`].
    pub async fn recv_within(&mut self, limit: Duration) -> Option<Value> {
        loop {
            let message = self.recv_any_within(limit).await?;
            if self.legacy.load(Ordering::Relaxed)
                && message["method"] == "notifications/tasks/status"
            {
                self.task_statuses.push(message["params"].clone());
            } else {
                return Some(message);
            }
        }
    }

    /// The `notifications/tasks/status` params heard so far for `task`,
    /// reading until one says the task ended.
    pub async fn task_statuses_until_end(&mut self, task: &str) -> Vec<Value> {
        let of_task = |peer: &Self| -> Vec<Value> {
            let heard = peer.task_statuses.iter();
            heard.filter(|s| s["taskId"] == task).cloned().collect()
        };
        let ended = |statuses: &[Value]| {
            statuses.last().is_some_and(|s| {
                ["completed", "failed", "cancelled"].contains(&s["status"].as_str().unwrap_or(""))
            })
        };
        while !ended(&of_task(self)) {
            let message = self
                .recv_any_within(RECV_GUARD)
                .await
                .unwrap_or_else(|| panic!("no end of {task}: {:?}", of_task(self)));
            assert_eq!(message["method"], "notifications/tasks/status", "{message}");
            self.task_statuses.push(message["params"].clone());
        }
        of_task(self)
    }

    /// The next message of any kind, checked against the schema.
    async fn recv_any_within(&mut self, limit: Duration) -> Option<Value> {
        let inbound = tokio::time::timeout(limit, self.channel.incoming.recv())
            .await
            .ok()?
            .expect("the connection is open");
        let message: Value = match inbound {
            Inbound::Frame(f) => serde_json::from_str(&f).expect("the server sends JSON"),
            other => panic!("unexpected {other:?} from the server"),
        };
        let request = message
            .get("id")
            .filter(|_| message.get("method").is_none())
            .and_then(|id| self.sent.lock().unwrap().remove(&id.to_string()));
        let legacy = match &request {
            Some((_, legacy)) => *legacy,
            None => self.legacy.load(Ordering::Relaxed),
        };
        let method = request.as_ref().map(|(method, _)| method.as_str());
        if method == Some("initialize") && legacy && message.get("result").is_some() {
            self.legacy.store(true, Ordering::Relaxed);
        }
        if legacy {
            spec::check_legacy_from_server(&message, method);
        } else {
            spec::check_from_server(&message, method);
        }
        Some(message)
    }

    /// Sends a request and returns the next message (its response, when the
    /// method sends no notifications).
    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.recv().await
    }

    /// `tools/call` with the given capabilities.
    pub async fn call(&mut self, id: i64, capabilities: Value, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = meta(capabilities);
        self.request(id, "tools/call", params).await
    }

    /// Closes the client side.
    pub fn close(self) -> presa::transport::Incoming {
        self.channel.incoming
    }
}

/// Capabilities of a client that answers form elicitation.
pub fn elicitation() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// The code of an error response; fails the test on anything else.
pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error: {response}"))
}
