//! `docs/tasks-extension.md` held to presa and to the specification, so
//! that the wire reference cannot drift.
//!
//! Every ```` ```json ```` block of the document is one JSON-RPC message,
//! preceded by an HTML comment that names the exchange it belongs to and
//! who sends it:
//!
//! ```text
//! <!-- exchange: build; from: client -->
//! <!-- exchange: build; from: server -->
//! <!-- exchange: build; from: client; peer: bob; poll -->
//! <!-- exchange: ttl; advance: 60000 -->          (no block: a step)
//! ```
//!
//! - `from` is `client` or `server`. `peer` names the connection (default
//!   `client`): `alice` and `bob` are authenticated subjects, every other
//!   name is anonymous, and in the `replicas` exchange `replica-b` is
//!   connected to the second server. `server` (on any marker of the
//!   exchange) picks the server's configuration ([`profile`]).
//! - `poll`: a request the client repeats, as a polling client would,
//!   until presa's answer matches the block after it.
//! - `advance: MS` moves tokio's paused clock on by `MS` milliseconds.
//!
//! Two tests read the document:
//!
//! 1. [`every_example_matches_its_schema`]: each block is checked against
//!    the official schema of its era: MCP 2026-07-28 and the Tasks
//!    extension, or 2025-11-25 for an exchange that opens with a legacy
//!    `initialize`. (The schemas come from the shared spec folder, as in
//!    `tests/common/spec.rs`.)
//! 2. [`every_exchange_runs_against_presa`]: each exchange runs, in order,
//!    against an in-process presa server: client blocks are sent, and each
//!    server block must equal the next message presa sends that peer.
//!
//! What varies from run to run is compared by these rules, and nothing
//! else is ignored:
//!
//! - **Ids the server makes** (`taskId`, each of `taskIds`, `requestState`,
//!   and the `id` of a request the server sends) are names: the first time
//!   the document shows one, it stands for the value presa sent there, and
//!   every later occurrence in the exchange, sent or received (even inside
//!   a string), must be that same value.
//! - **Timestamps** (`createdAt`, `lastUpdatedAt`) are only checked to be
//!   ISO 8601 UTC instants to the millisecond, in the document and from
//!   presa.
//! - **`notifications/tasks/status`** of a legacy session may come at any
//!   time: a block showing one matches the first the session hears with
//!   its status, and the others are set aside.
//!
//! Time is tokio's paused clock, and every wait is for a message, never a
//! sleep.

use crate::common::spec;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::{
    Lease, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch,
};
use presa::transport::{FrameChannel, Inbound};
use serde::Deserialize;
use serde_json::Value;

// ---------------------------------------------------------------------------
// The server the document talks to

/// The answer `build` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Whether to go ahead with the build.
    ok: bool,
}

/// Builds a target after the user confirms.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Indexes a folder, and keeps it indexed until cancelled.
#[tool(task = "required")]
async fn index(ctx: Context, folder: String) -> String {
    ctx.set_status_message(format!("indexing {folder}")).await;
    std::future::pending().await
}

/// Counts the words of a text.
#[tool(task = "optional")]
async fn count(text: String) -> String {
    format!("{} words", text.split_whitespace().count())
}

/// Fetches a report from an upstream service (which is down).
#[tool(task = "optional")]
async fn fetch(report: String) -> Result<String, ToolError> {
    Err(ToolError::internal(format!(
        "upstream refused report {report}: connection reset"
    )))
}

fn builder(settings: TaskSettings) -> presa::server::ServerBuilder {
    Server::builder("jobs", "1.0.0")
        .tool(BuildTool)
        .tool(IndexTool)
        .tool(CountTool)
        .tool(FetchTool)
        .tasks(settings)
}

/// A task store that cannot be reached, as a shared database that is down.
struct Unreachable;

fn down() -> StoreError {
    StoreError::Backend("connection refused".into())
}

#[async_trait::async_trait]
impl TaskStore for Unreachable {
    async fn create(&self, _: TaskRecord, _: &TaskLimits) -> Result<(), StoreError> {
        Err(down())
    }
    async fn get(&self, _: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        Err(down())
    }
    async fn apply(
        &self,
        _: &str,
        _: TaskChange,
        _: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        Err(down())
    }
    async fn watch(&self, _: &str) -> Result<Option<TaskWatch>, StoreError> {
        Err(down())
    }
    async fn purge_expired(&self) -> Result<usize, StoreError> {
        Err(down())
    }
    async fn count(&self) -> Result<usize, StoreError> {
        Err(down())
    }
    async fn hold(&self, _: &str, _: &Lease, _: SystemTime) -> Result<bool, StoreError> {
        Err(down())
    }
}

/// The servers of an exchange: the first serves every peer but
/// `replica-b`, which the second serves.
struct Servers {
    first: Server,
    second: Option<Server>,
}

/// The server configuration named `name` in the document.
fn profile(name: &str) -> Servers {
    let one = |server| Servers {
        first: server,
        second: None,
    };
    let defaults = TaskSettings::default;
    match name {
        // The defaults: a one-hour TTL, a 20 ms poll interval.
        "jobs" => one(builder(defaults()).build()),
        "ttl" => one(builder(defaults().ttl(Some(Duration::from_secs(60)))).build()),
        "cap" => one(builder(defaults().max_tasks(1)).build()),
        "quota" => one(builder(defaults().max_tasks_per_subject(1)).build()),
        "outage" => one(builder(defaults()).task_store(Unreachable).build()),
        "replicas" => {
            let store = Arc::new(InMemoryTaskStore::new());
            let replica = || {
                builder(defaults().lease(Duration::from_secs(30)))
                    .task_store(Arc::clone(&store))
                    .build()
            };
            Servers {
                first: replica(),
                second: Some(replica()),
            }
        }
        other => panic!("the document names server `{other}`, which this test does not know"),
    }
}

// ---------------------------------------------------------------------------
// The document

/// Who sends a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

/// One step of an exchange.
#[derive(Debug, Clone)]
enum Step {
    /// A message, with its line in the document.
    Message {
        from: Side,
        peer: String,
        poll: bool,
        message: Value,
        line: usize,
    },
    /// Moves the paused clock on.
    Advance(Duration),
}

#[derive(Debug, Default)]
struct Exchange {
    name: String,
    server: Option<String>,
    steps: Vec<Step>,
}

impl Exchange {
    /// Whether it speaks 2025-11-25: it opens with a legacy `initialize`.
    fn legacy(&self) -> bool {
        self.steps.iter().find_map(|step| match step {
            Step::Message {
                from: Side::Client,
                message,
                ..
            } => Some(
                message["method"] == "initialize"
                    && message
                        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                        .is_none(),
            ),
            _ => None,
        }) == Some(true)
    }

    fn messages(&self) -> impl Iterator<Item = (Side, &str, &Value, usize)> {
        self.steps.iter().filter_map(|step| match step {
            Step::Message {
                from,
                peer,
                message,
                line,
                ..
            } => Some((*from, peer.as_str(), message, *line)),
            Step::Advance(_) => None,
        })
    }
}

fn document_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/tasks-extension.md")
}

/// The exchanges of the document, in order of first appearance.
fn exchanges() -> Vec<Exchange> {
    let text = std::fs::read_to_string(document_path()).expect("docs/tasks-extension.md exists");
    parse(&text)
}

fn parse(text: &str) -> Vec<Exchange> {
    let lines: Vec<&str> = text.lines().collect();
    let mut exchanges: Vec<Exchange> = Vec::new();
    let mut marker: Option<(usize, BTreeMap<String, String>)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(inner) = line
            .strip_prefix("<!-- exchange:")
            .and_then(|rest| rest.strip_suffix("-->"))
        {
            let fields = marker_fields(&format!("exchange:{inner}"), i + 1);
            if let Some(ms) = fields.get("advance") {
                let ms: u64 = ms
                    .parse()
                    .unwrap_or_else(|_| panic!("line {}: `advance` is milliseconds", i + 1));
                let exchange = exchange_named(&mut exchanges, &fields, i + 1);
                exchange
                    .steps
                    .push(Step::Advance(Duration::from_millis(ms)));
            } else {
                marker = Some((i + 1, fields));
            }
            i += 1;
            continue;
        }
        if line.starts_with("```json") {
            let start = i + 1;
            let (marked_at, fields) = marker
                .take()
                .unwrap_or_else(|| panic!("line {start}: a ```json block without its marker"));
            let between = &lines[marked_at..i];
            assert!(
                between.iter().all(|l| l.trim().is_empty()),
                "line {marked_at}: the marker must sit right above its ```json block"
            );
            let mut body = String::new();
            i += 1;
            while !lines[i].trim_start().starts_with("```") {
                body.push_str(lines[i]);
                body.push('\n');
                i += 1;
            }
            let message: Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("line {start}: the block is not JSON: {e}"));
            let from = match fields.get("from").map(String::as_str) {
                Some("client") => Side::Client,
                Some("server") => Side::Server,
                other => panic!("line {marked_at}: `from` is client or server, not {other:?}"),
            };
            let step = Step::Message {
                from,
                peer: fields
                    .get("peer")
                    .cloned()
                    .unwrap_or_else(|| "client".into()),
                poll: fields.contains_key("poll"),
                message,
                line: start,
            };
            exchange_named(&mut exchanges, &fields, marked_at)
                .steps
                .push(step);
        } else if line.starts_with("```") {
            // Another fence: skip to its end, so that nothing in it counts.
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                i += 1;
            }
        }
        i += 1;
    }
    assert!(marker.is_none(), "a marker without its ```json block");
    exchanges
}

/// `exchange: NAME; from: client; poll` as fields; a field without a
/// value is a flag.
fn marker_fields(inner: &str, line: usize) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = match part.split_once(':') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (part, ""),
        };
        assert!(
            ["exchange", "from", "peer", "poll", "server", "advance"].contains(&key),
            "line {line}: unknown marker field `{key}`"
        );
        fields.insert(key.to_owned(), value.to_owned());
    }
    fields
}

fn exchange_named<'a>(
    exchanges: &'a mut Vec<Exchange>,
    fields: &BTreeMap<String, String>,
    line: usize,
) -> &'a mut Exchange {
    let name = fields["exchange"].clone();
    let at = match exchanges.iter().position(|e| e.name == name) {
        Some(at) => at,
        None => {
            exchanges.push(Exchange {
                name,
                ..Default::default()
            });
            exchanges.len() - 1
        }
    };
    let exchange = &mut exchanges[at];
    if let Some(server) = fields.get("server") {
        assert!(
            exchange.server.as_ref().is_none_or(|s| s == server),
            "line {line}: exchange `{}` names two servers",
            exchange.name
        );
        exchange.server = Some(server.clone());
    }
    exchange
}

// ---------------------------------------------------------------------------
// Schemas

/// Whether the shared spec folder is here (see `tests/common/spec.rs`).
fn schemas_present() -> bool {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().any(|folder| {
        folder
            .join("shared/spec/tasks-extension/schema.json")
            .is_file()
    })
}

/// Checks one message against its era's schema. `request` is the method of
/// the request a response answers: the client's, for a server's response,
/// and the server's, for a client's.
fn check_schema(message: &Value, from: Side, legacy: bool, request: Option<&str>) {
    match (from, legacy) {
        (Side::Client, false) => spec::check_from_client(message),
        (Side::Client, true) => spec::check_legacy_from_client(message, request),
        (Side::Server, false) => spec::check_from_server(message, request),
        (Side::Server, true) => spec::check_legacy_from_server(message, request),
    }
}

/// Tracks which request each response answers, per peer and direction.
#[derive(Default)]
struct Requests {
    /// (peer, who sent it, id) to method.
    open: HashMap<(String, bool, String), String>,
}

impl Requests {
    /// Notes a request; returns the method of the request `message`
    /// answers, if it is a response.
    fn see(&mut self, peer: &str, from: Side, message: &Value) -> Option<String> {
        let id = message.get("id")?.to_string();
        let by_client = from == Side::Client;
        match message["method"].as_str() {
            Some(method) => {
                self.open
                    .insert((peer.to_owned(), by_client, id), method.to_owned());
                None
            }
            None => self.open.remove(&(peer.to_owned(), !by_client, id)),
        }
    }
}

#[test]
fn every_example_matches_its_schema() {
    let exchanges = exchanges();
    let mut checked = 0;
    for exchange in &exchanges {
        let legacy = exchange.legacy();
        let mut requests = Requests::default();
        for (from, peer, message, line) in exchange.messages() {
            let request = requests.see(peer, from, message);
            let outcome = std::panic::catch_unwind(|| {
                check_schema(message, from, legacy, request.as_deref())
            });
            if let Err(panic) = outcome {
                panic!(
                    "docs/tasks-extension.md line {line} (exchange `{}`): {}",
                    exchange.name,
                    panic_text(&panic)
                );
            }
            checked += 1;
        }
    }
    if schemas_present() {
        eprintln!(
            "{checked} JSON examples in {} exchanges checked against their schemas",
            exchanges.len()
        );
    } else {
        eprintln!("note: no schemas here; {checked} JSON examples parsed only");
    }
    assert!(checked > 0, "the document has JSON examples");
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Running the exchanges

/// How long a peer waits for a message before the test fails.
const RECV_GUARD: Duration = Duration::from_secs(20);

/// How many times a `poll` request is repeated at most.
const MAX_POLLS: usize = 2_000;

/// One connection to a server.
struct Peer {
    channel: FrameChannel,
    /// Messages read while waiting for a legacy status notification.
    held: VecDeque<Value>,
    /// Legacy `notifications/tasks/status` set aside.
    statuses: VecDeque<Value>,
}

impl Peer {
    async fn send(&self, message: &Value) {
        self.channel
            .outgoing
            .send(message.to_string())
            .await
            .expect("the server is connected");
    }

    async fn read(&mut self) -> Value {
        let inbound = tokio::time::timeout(RECV_GUARD, self.channel.incoming.recv())
            .await
            .expect("the server answers in time")
            .expect("the connection is open");
        match inbound {
            Inbound::Frame(frame) => serde_json::from_str(&frame).expect("the server sends JSON"),
            other => panic!("unexpected {other:?} from the server"),
        }
    }

    /// The next message; in a legacy session, status notifications are set
    /// aside unless `status` asks for one.
    async fn recv(&mut self, legacy: bool, status: bool) -> Value {
        if status {
            if let Some(found) = self.statuses.pop_front() {
                return found;
            }
            loop {
                let message = self.read().await;
                if message["method"] == "notifications/tasks/status" {
                    return message;
                }
                self.held.push_back(message);
            }
        }
        if let Some(message) = self.held.pop_front() {
            return message;
        }
        loop {
            let message = self.read().await;
            if legacy && message["method"] == "notifications/tasks/status" {
                self.statuses.push_back(message);
            } else {
                return message;
            }
        }
    }
}

/// What the document's names for server-made values stand for.
#[derive(Debug, Clone, Default)]
struct Bindings {
    values: HashMap<String, Value>,
}

/// Keys whose values the server makes.
const BOUND_KEYS: [&str; 2] = ["taskId", "requestState"];

impl Bindings {
    /// `message` as the client sends it: names replaced by their values.
    fn substitute(&self, message: &Value) -> Value {
        let mut message = message.clone();
        let response = message.get("method").is_none();
        self.substitute_in(&mut message);
        if response
            && let Some(id) = message.get_mut("id")
            && let Some(bound) = self.values.get(&id.to_string())
        {
            *id = bound.clone();
        }
        message
    }

    fn substitute_in(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.substitute_str(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.substitute_in(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.substitute_in(v)),
            _ => {}
        }
    }

    /// `text` with every bound name in it replaced by its value.
    fn substitute_str(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (name, value) in &self.values {
            if let (Ok(Value::String(name)), Value::String(value)) =
                (serde_json::from_str::<Value>(name), value)
                && !name.is_empty()
            {
                text = text.replace(&name, value);
            }
        }
        text
    }

    /// Binds `name` to `actual`, or checks it is already bound to it.
    fn bind(&mut self, name: &Value, actual: &Value, path: &str) -> Result<(), String> {
        let key = name.to_string();
        match self.values.get(&key) {
            Some(bound) if bound == actual => Ok(()),
            Some(bound) => Err(format!(
                "{path}: the document's {name} stands for {bound} already, but presa sent {actual}"
            )),
            None => {
                if let Some((other, _)) = self.values.iter().find(|(_, v)| *v == actual) {
                    return Err(format!(
                        "{path}: presa sent {actual}, which the document calls {other}, not {name}"
                    ));
                }
                if !actual.is_string() && !actual.is_number() {
                    return Err(format!("{path}: expected an id, presa sent {actual}"));
                }
                self.values.insert(key, actual.clone());
                Ok(())
            }
        }
    }

    /// Binds what it can of `expected`'s names to `actual`'s values,
    /// ignoring every difference (`PRESA_DOC_PRINT` only).
    fn bind_loose(&mut self, expected: &Value, actual: &Value, key: Option<&str>) {
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                if e.contains_key("method") && e.contains_key("id") {
                    let _ = self.bind(&e["id"], &a["id"], "id");
                }
                for (k, v) in e {
                    if let Some(a) = a.get(k) {
                        self.bind_loose(v, a, Some(k));
                    }
                }
            }
            (Value::Array(e), Value::Array(a)) => {
                let inner = (key == Some("taskIds")).then_some("taskId");
                for (e, a) in e.iter().zip(a) {
                    self.bind_loose(e, a, inner.or(key));
                }
            }
            (e, a) if key.is_some_and(|k| BOUND_KEYS.contains(&k)) => {
                let _ = self.bind(e, a, "");
            }
            _ => {}
        }
    }

    /// Compares the document's `expected` with presa's `actual`.
    fn compare(&mut self, expected: &Value, actual: &Value) -> Result<(), String> {
        let server_request = expected.get("method").is_some() && expected.get("id").is_some();
        if server_request {
            self.bind(&expected["id"], &actual["id"], "id")?;
            let mut expected = expected.clone();
            let mut actual = actual.clone();
            expected.as_object_mut().unwrap().remove("id");
            if let Some(actual) = actual.as_object_mut() {
                actual.remove("id");
            }
            return self.compare_at(&expected, &actual, "", None);
        }
        self.compare_at(expected, actual, "", None)
    }

    fn compare_at(
        &mut self,
        expected: &Value,
        actual: &Value,
        path: &str,
        key: Option<&str>,
    ) -> Result<(), String> {
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                let missing: Vec<_> = e.keys().filter(|k| !a.contains_key(*k)).collect();
                let extra: Vec<_> = a.keys().filter(|k| !e.contains_key(*k)).collect();
                if !missing.is_empty() || !extra.is_empty() {
                    return Err(format!(
                        "{path}: presa's object lacks {missing:?} and adds {extra:?}"
                    ));
                }
                // Names first, so that a string beside one may mention it.
                let mut keys: Vec<&String> = e.keys().collect();
                keys.sort_by_key(|k| !BOUND_KEYS.contains(&k.as_str()));
                for k in keys {
                    self.compare_at(&e[k], &a[k], &format!("{path}/{k}"), Some(k))?;
                }
                Ok(())
            }
            (Value::Array(e), Value::Array(a)) => {
                if e.len() != a.len() {
                    return Err(format!(
                        "{path}: {} items in the document, {} from presa",
                        e.len(),
                        a.len()
                    ));
                }
                let inner = if key == Some("taskIds") {
                    Some("taskId")
                } else {
                    None
                };
                for (i, (e, a)) in e.iter().zip(a).enumerate() {
                    self.compare_at(e, a, &format!("{path}/{i}"), inner)?;
                }
                Ok(())
            }
            (Value::String(e), Value::String(a)) if is_timestamp_key(key) => {
                for (who, stamp) in [("the document", e), ("presa", a)] {
                    if !is_timestamp(stamp) {
                        return Err(format!(
                            "{path}: {who} has {stamp:?}, not an ISO 8601 instant"
                        ));
                    }
                }
                Ok(())
            }
            (expected, actual) if key.is_some_and(|k| BOUND_KEYS.contains(&k)) => {
                self.bind(expected, actual, path)
            }
            (Value::String(e), Value::String(a)) => {
                let e = self.substitute_str(e);
                if &e == a {
                    Ok(())
                } else {
                    Err(format!("{path}: the document has {e:?}, presa sent {a:?}"))
                }
            }
            (e, a) if e == a => Ok(()),
            (e, a) => Err(format!("{path}: the document has {e}, presa sent {a}")),
        }
    }
}

fn is_timestamp_key(key: Option<&str>) -> bool {
    matches!(key, Some("createdAt" | "lastUpdatedAt"))
}

/// `2026-07-28T10:00:00.000Z`.
fn is_timestamp(stamp: &str) -> bool {
    const SHAPE: &[u8; 24] = b"0000-00-00T00:00:00.000Z";
    stamp.len() == SHAPE.len()
        && stamp.bytes().zip(SHAPE).all(|(c, &shape)| match shape {
            b'0' => c.is_ascii_digit(),
            other => c == other,
        })
}

/// Whether the test prints what presa sent, for writing the document.
fn printing() -> bool {
    std::env::var_os("PRESA_DOC_PRINT").is_some()
}

async fn run(exchange: &Exchange) {
    let servers = profile(exchange.server.as_deref().unwrap_or("jobs"));
    let legacy = exchange.legacy();
    let mut peers: HashMap<String, Peer> = HashMap::new();
    let mut bindings = Bindings::default();
    let mut requests = Requests::default();
    // The last request each peer sent with `poll`, as presa received it.
    let mut polled: HashMap<String, Value> = HashMap::new();
    for step in &exchange.steps {
        let (from, peer_name, poll, message, line) = match step {
            Step::Advance(by) => {
                tokio::time::advance(*by).await;
                continue;
            }
            Step::Message {
                from,
                peer,
                poll,
                message,
                line,
            } => (*from, peer.as_str(), *poll, message, *line),
        };
        let peer = peers.entry(peer_name.to_owned()).or_insert_with(|| {
            let server = match (peer_name, &servers.second) {
                ("replica-b", Some(second)) => second,
                _ => &servers.first,
            };
            let caller = match peer_name {
                "alice" | "bob" => Caller::subject(peer_name),
                _ => Caller::anonymous(),
            };
            Peer {
                channel: presa::server::in_process(server, caller),
                held: VecDeque::new(),
                statuses: VecDeque::new(),
            }
        });
        let request = requests.see(peer_name, from, message);
        let at = format!(
            "docs/tasks-extension.md line {line} (exchange `{}`)",
            exchange.name
        );
        match from {
            Side::Client => {
                let sent = bindings.substitute(message);
                peer.send(&sent).await;
                if poll {
                    polled.insert(peer_name.to_owned(), sent);
                } else {
                    polled.remove(peer_name);
                }
            }
            Side::Server => {
                let status = legacy && message["method"] == "notifications/tasks/status";
                let mut polls = 0;
                loop {
                    let actual = peer.recv(legacy, status).await;
                    check_schema(&actual, Side::Server, legacy, request.as_deref());
                    let mut attempt = bindings.clone();
                    let outcome = attempt.compare(message, &actual);
                    let repeat = polled.get(peer_name).filter(|r| r["id"] == actual["id"]);
                    match (outcome, repeat) {
                        (Ok(()), _) => {
                            bindings = attempt;
                            if printing() {
                                record(exchange, line, &actual);
                            }
                            break;
                        }
                        (Err(_), Some(request)) if polls < MAX_POLLS => {
                            polls += 1;
                            let request = request.clone();
                            peer.send(&request).await;
                        }
                        (Err(_), _) if status => {}
                        (Err(why), _) if printing() => {
                            eprintln!("{at}: MISMATCH {why}");
                            // Go on with the names the document gives.
                            bindings.bind_loose(message, &actual, None);
                            record(exchange, line, &actual);
                            break;
                        }
                        (Err(why), _) => panic!(
                            "{at}: presa's message differs from the document's: {why}\npresa sent:\n{}",
                            serde_json::to_string_pretty(&actual).unwrap()
                        ),
                    }
                }
            }
        }
    }
    if printing() {
        let bound: BTreeMap<_, _> = bindings.values.iter().collect();
        let bound = serde_json::to_string(&bound).unwrap();
        eprintln!(
            "BINDINGS {{\"exchange\": {:?}, \"names\": {bound}}}",
            exchange.name
        );
    }
}

/// Prints what presa sent for the block at `line`, for writing the
/// document (`PRESA_DOC_PRINT`).
fn record(exchange: &Exchange, line: usize, actual: &Value) {
    let record = serde_json::json!({"exchange": exchange.name, "line": line, "actual": actual});
    eprintln!("RECORD {record}");
}

#[tokio::test(start_paused = true)]
async fn every_exchange_runs_against_presa() {
    let exchanges = exchanges();
    for exchange in &exchanges {
        run(exchange).await;
    }
    let messages: usize = exchanges.iter().map(|e| e.messages().count()).sum();
    eprintln!(
        "{} exchanges ({messages} messages) ran against presa",
        exchanges.len()
    );
    assert!(exchanges.len() >= 10, "the document shows every case");
}

#[test]
fn the_markers_are_read_as_documented() {
    let text = "<!-- exchange: a; from: client; poll -->\n\n```json\n{\"x\": 1}\n```\n\
                <!-- exchange: a; advance: 5 -->\n\
                ```text\n<!-- exchange: ignored; from: client -->\n```\n\
                <!-- exchange: b; from: server; peer: bob; server: cap -->\n```json\n[]\n```\n";
    let exchanges = parse(text);
    assert_eq!(exchanges.len(), 2);
    assert_eq!(exchanges[0].steps.len(), 2);
    assert!(matches!(
        &exchanges[0].steps[0],
        Step::Message {
            from: Side::Client,
            poll: true,
            ..
        }
    ));
    assert!(matches!(exchanges[0].steps[1], Step::Advance(d) if d == Duration::from_millis(5)));
    assert_eq!(exchanges[1].server.as_deref(), Some("cap"));
    assert!(matches!(
        &exchanges[1].steps[0],
        Step::Message { from: Side::Server, peer, .. } if peer == "bob"
    ));
}

#[test]
fn names_bind_once_and_timestamps_are_checked_for_shape() {
    let mut bindings = Bindings::default();
    let doc = serde_json::json!({"taskId": "T1", "createdAt": "2026-07-28T10:00:00.000Z",
                                 "statusMessage": "task T1 done"});
    let real = serde_json::json!({"taskId": "abc", "createdAt": "2026-12-01T20:57:09.123Z",
                                  "statusMessage": "task abc done"});
    bindings.compare(&doc, &real).unwrap();
    let other = serde_json::json!({"taskId": "xyz", "createdAt": "2026-12-01T20:57:09.123Z",
                                   "statusMessage": "task xyz done"});
    assert!(bindings.compare(&doc, &other).is_err());
    let sent = bindings.substitute(&serde_json::json!({"method": "tasks/get",
                                                       "params": {"taskId": "T1"}}));
    assert_eq!(sent["params"]["taskId"], "abc");
    let late = serde_json::json!({"taskId": "abc", "createdAt": "yesterday",
                                  "statusMessage": "task abc done"});
    assert!(bindings.compare(&doc, &late).is_err());
}
