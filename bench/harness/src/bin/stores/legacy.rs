//! Legacy (2025-11-25) sessions over Streamable HTTP, kept in the
//! server's memory and in Redis: what a host of the session era pays per
//! request when replicas share its sessions.
//!
//! A 2025-11-25 client of the section's own (a few lines over hyper, as
//! the neutral driver is) opens a session and sends requests one at a
//! time on one keep-alive connection. It reads each request's event
//! stream to its end. Each server runs in this process, on a free
//! loopback port, with `TCP_NODELAY` ([`LegacyServer`] says why). Two
//! parts:
//!
//! - `requests`: `tools/call echo` on one server, with its sessions in
//!   memory (`LegacySessions::new()`) and in Redis
//!   (`LegacySessions::new().shared(store.session_store())`). The two
//!   take turns, round by round. Each round also counts the round trips
//!   to Redis (`presa_redis::round_trips`, which counts each command,
//!   pipeline or script sent once), so the round trips per request are
//!   measured, not assumed, and prints the commands Redis ran
//!   (`INFO commandstats`), for what they are;
//! - `answers`: two servers on one Redis, as two replicas. The client
//!   calls `ask` on replica A, which elicits once. It posts its answer on
//!   a second connection, to replica B (the answer crosses Redis to A) or
//!   to A itself, in turns. The figure is the whole call: the question,
//!   the answer, and the result.
//!
//! Every answer is checked: the echo's text, the question's method and
//! the call's result.
//!
//! Each round opens its session and sends one request before the clock
//! starts, and a warm-up round comes first. So the figures leave out what
//! happens once per session: its record's `SET`, and the `SUBSCRIBE` of a
//! replica that serves the session for the first time.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::presa_server::server;
use bench_harness::stats::{median, micros_per_op, rounds, scaled};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use presa::server::http::{LegacySessions, StreamableHttp};
use presa_redis::RedisTaskStore;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::Bench;
use crate::redis_server::RedisServer;

/// The protocol revision of the session era.
const LEGACY_VERSION: &str = "2025-11-25";

/// The prefix of the replicas' keys, apart from the task stores' own.
const PREFIX: &str = "bench-legacy:";

/// Runs the legacy part: the request figures, then the answer figures.
pub async fn measure(bench: &Bench, figures: &mut Figures) {
    requests(bench.server(), figures).await;
    answers(bench.server(), figures).await;
}

/// `{memory,redis}_legacy_request_us`, and the Redis commands each
/// request costs.
async fn requests(redis: &RedisServer, figures: &mut Figures) {
    let calls = scaled(1_000);
    let memory = LegacyServer::start(LegacySessions::new()).await;
    let shared = LegacyServer::start(shared_sessions(redis).await).await;
    let mut samples: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut commands: [Vec<Commands>; 2] = [Vec::new(), Vec::new()];
    let mut trips = Vec::new();
    for round in 0..=rounds(7) {
        let kept = samples.iter_mut().zip(commands.iter_mut());
        for (server, (kept, commands)) in [&memory, &shared].into_iter().zip(kept) {
            let mut session = Session::open(server.address, server.address).await;
            session.echo().await;
            let before = redis.command_calls().await;
            let trips_before = presa_redis::round_trips();
            let micros = echo_calls(&mut session, calls).await;
            let sent = presa_redis::round_trips() - trips_before;
            let ran = Commands::between(&before, &redis.command_calls().await, calls);
            if round > 0 {
                kept.push(micros);
                commands.push(ran);
                if std::ptr::eq(server, &shared) {
                    trips.push(sent as f64 / calls as f64);
                }
            }
        }
    }
    for (name, kept) in ["memory", "redis"].into_iter().zip(&samples) {
        let label = format!("{name} sessions: legacy request over HTTP, µs");
        figures.record(&format!("{name}_legacy_request_us"), &label, median(kept));
    }
    let label = "redis sessions: round trips to Redis per legacy request";
    figures.record(
        "redis_round_trips_per_legacy_request",
        label,
        median(&trips),
    );
    // What each command is, and whether anything else ran on Redis
    // meanwhile (the memory rounds show that).
    for (name, kept) in ["memory", "redis"].into_iter().zip(&commands) {
        if let Some(last) = kept.last() {
            println!(
                "  Redis commands per request, last {name} round: {:.2} ({})",
                last.per_request, last.by_name
            );
        }
    }
}

/// The commands Redis ran over some requests, less the `INFO` that
/// counted them.
struct Commands {
    /// All of them, per request.
    per_request: f64,
    /// Each command's calls per request, for the reader: `getex 1.00`.
    by_name: String,
}

impl Commands {
    /// What ran between two readings of [`RedisServer::command_calls`],
    /// over `requests` requests.
    fn between(
        before: &BTreeMap<String, u64>,
        after: &BTreeMap<String, u64>,
        requests: usize,
    ) -> Self {
        let mut total = 0;
        let mut by_name = Vec::new();
        for (name, calls) in after {
            let ran = calls - before.get(name).copied().unwrap_or(0);
            if name == "info" || ran == 0 {
                continue;
            }
            total += ran;
            by_name.push(format!("{name} {:.2}", ran as f64 / requests as f64));
        }
        Commands {
            per_request: total as f64 / requests as f64,
            by_name: by_name.join(", "),
        }
    }
}

/// `redis_legacy_answer_{other,same}_replica_us`: a call that elicits
/// once, answered through the other replica or through its own.
async fn answers(redis: &RedisServer, figures: &mut Figures) {
    let calls = scaled(300);
    let a = LegacyServer::start(shared_sessions(redis).await).await;
    let b = LegacyServer::start(shared_sessions(redis).await).await;
    let mut samples: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..=rounds(7) {
        for (answered_on, kept) in [b.address, a.address].into_iter().zip(samples.iter_mut()) {
            let mut session = Session::open(a.address, answered_on).await;
            session.ask().await;
            let micros = ask_calls(&mut session, calls).await;
            if round > 0 {
                kept.push(micros);
            }
        }
    }
    for (which, kept) in ["other", "same"].into_iter().zip(&samples) {
        let label = format!("redis sessions: elicit, answer on {which} replica, µs");
        let key = format!("redis_legacy_answer_{which}_replica_us");
        figures.record(&key, &label, median(kept));
    }
}

/// Legacy sessions in `redis`, on a task store (and so connections) of
/// their own, as a replica has.
async fn shared_sessions(redis: &RedisServer) -> LegacySessions {
    let store = RedisTaskStore::builder(redis.url())
        .prefix(PREFIX)
        .build()
        .expect("the private server's URL is a Redis URL");
    store.connect().await.expect("the store reaches its server");
    LegacySessions::new().shared(store.session_store())
}

/// `calls` sequential `tools/call echo` of `session`; µs each.
async fn echo_calls(session: &mut Session, calls: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        session.echo().await;
    }
    micros_per_op(start.elapsed(), calls)
}

/// `calls` sequential calls of `ask`, each answered; µs each.
async fn ask_calls(session: &mut Session, calls: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        session.ask().await;
    }
    micros_per_op(start.elapsed(), calls)
}

/// The benchmark server, serving legacy sessions as `sessions` says on a
/// free loopback port; stops serving when dropped.
///
/// It is served with `StreamableHttp::serve_on`, as a user serves it.
struct LegacyServer {
    address: SocketAddr,
    serving: JoinHandle<std::io::Result<()>>,
}

impl LegacyServer {
    async fn start(sessions: LegacySessions) -> LegacyServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free loopback port");
        let address = listener.local_addr().expect("its address");
        let http = StreamableHttp::new(server()).legacy_sessions(sessions);
        let serving = tokio::spawn(http.serve_on(listener));
        LegacyServer { address, serving }
    }
}

impl Drop for LegacyServer {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// A 2025-11-25 client's session: requests go to one server, answers to
/// the server's questions to another (or the same), each on a keep-alive
/// connection of its own.
struct Session {
    id: String,
    requests: Connection,
    answers: Connection,
    next_id: u64,
}

impl Session {
    /// Opens a session on `server`, declaring form elicitation; answers
    /// go to `answered_on`.
    async fn open(server: SocketAddr, answered_on: SocketAddr) -> Session {
        let mut requests = Connection::open(server).await;
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "bench-legacy", "version": "1"}
        });
        let initialize =
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
        let response = requests.post(None, &initialize).await;
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|id| id.to_str().ok())
            .expect("initialize answers with a session id")
            .to_owned();
        let body = read_all(response).await;
        assert!(body.contains("\"result\""), "initialize failed: {body}");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = requests.post(Some(&id), &initialized).await;
        assert_eq!(response.status(), hyper::StatusCode::ACCEPTED);
        read_all(response).await;
        Session {
            id,
            requests,
            answers: Connection::open(answered_on).await,
            next_id: 1,
        }
    }

    /// One `tools/call echo`, read to the end of its stream and checked.
    async fn echo(&mut self) {
        let id = self.next();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "echo", "arguments": {"text": "hello"}}});
        let response = self.requests.post(Some(&self.id), &call).await;
        let mut events = Events::of(response);
        let answer = events.message().await;
        assert_eq!(answer["result"]["content"][0]["text"], "hello", "{answer}");
        events.end().await;
    }

    /// One `tools/call ask`: its question answered through the answers'
    /// connection, and its result checked.
    async fn ask(&mut self) {
        let id = self.next();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "ask", "arguments": {}}});
        let response = self.requests.post(Some(&self.id), &call).await;
        let mut events = Events::of(response);
        let question = events.message().await;
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                            "result": {"action": "accept", "content": {"ok": true}}});
        let posted = self.answers.post(Some(&self.id), &answer).await;
        assert_eq!(posted.status(), hyper::StatusCode::ACCEPTED);
        read_all(posted).await;
        let result = events.message().await;
        assert_eq!(result["result"]["content"][0]["text"], "true", "{result}");
        events.end().await;
    }

    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// One keep-alive HTTP/1.1 connection to a server's endpoint.
struct Connection {
    host: String,
    sender: SendRequest<Full<Bytes>>,
}

impl Connection {
    async fn open(address: SocketAddr) -> Connection {
        let stream = TcpStream::connect(address)
            .await
            .expect("the server accepts");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .expect("an HTTP/1.1 connection");
        tokio::spawn(connection);
        Connection {
            host: address.to_string(),
            sender,
        }
    }

    /// POSTs `message`, in session `session` if any.
    async fn post(&mut self, session: Option<&str>, message: &Value) -> hyper::Response<Incoming> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", LEGACY_VERSION);
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .expect("a well-formed request");
        self.sender.ready().await.expect("the connection is open");
        self.sender.send_request(request).await.expect("a response")
    }
}

/// A whole response body, as text.
async fn read_all(response: hyper::Response<Incoming>) -> String {
    let body = response.into_body().collect().await.expect("the body");
    String::from_utf8_lossy(&body.to_bytes()).into_owned()
}

/// A request's event stream, read message by message.
struct Events {
    body: Incoming,
    /// What was read and not yet taken as an event.
    buffer: Vec<u8>,
}

impl Events {
    fn of(response: hyper::Response<Incoming>) -> Events {
        assert_eq!(response.status(), hyper::StatusCode::OK);
        Events {
            body: response.into_body(),
            buffer: Vec::new(),
        }
    }

    /// The next message, past events without one (the priming event).
    async fn message(&mut self) -> Value {
        loop {
            if let Some(data) = self.next_event() {
                if !data.is_empty() {
                    return serde_json::from_str(&data).expect("an event's data is JSON");
                }
                continue;
            }
            let more = self.chunk().await;
            assert!(more, "the stream ended before its message");
        }
    }

    /// Reads the stream to its end, which must carry no other message.
    async fn end(mut self) {
        while self.chunk().await {}
        while let Some(data) = self.next_event() {
            assert!(data.is_empty(), "a message after the response: {data}");
        }
    }

    /// The data of the next whole event in the buffer, taken out of it.
    fn next_event(&mut self) -> Option<String> {
        let end = self.buffer.windows(2).position(|w| w == b"\n\n")?;
        let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
        let event = std::str::from_utf8(&event).expect("an event is UTF-8");
        let data = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        Some(data)
    }

    /// Appends the next chunk of the body; false at its end.
    async fn chunk(&mut self) -> bool {
        while let Some(frame) = self.body.frame().await {
            let frame = frame.expect("the stream reads");
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
                return true;
            }
        }
        false
    }
}
