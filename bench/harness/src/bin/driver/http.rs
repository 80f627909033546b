//! Figures over Streamable HTTP: a server process per framework (presa
//! and each peer built), per variant of presa's (a cost switched on,
//! [`PresaVariant`](bench_harness::PresaVariant)), and the framework-free
//! floor (`floor-server http`), loaded by a small hyper client of our own
//! with 64 keep-alive connections.
//!
//! The floor is bare hyper and serde_json: it answers every POST with
//! presa's own `echo` result, which the driver reads from presa's server
//! first, so that it writes the same bytes. It checks nothing, so the
//! distance from it to a framework is the framework's cost per call over
//! HTTP.
//!
//! Each connection sends one POST at a time and reads its whole answer
//! before the next; the connections share one counter of requests left,
//! so a round ends when the last answer is in. Every answer must be a
//! `200` whose body is a successful result.
//!
//! Each round also measures sequential latency: one connection, one call
//! at a time, so that the figure is the server's time per call plus the
//! loopback's, with no queueing.
//!
//! A session-based server (2025-11-25, [`Era::Sessions`]) gets its
//! `initialize` handshake once, when it starts; every call then carries
//! the `Mcp-Session-Id` it issued, on every connection.
//!
//! Besides calls per second, each round measures the CPU time the server
//! and the driver spent per call (Linux only, [`bench_harness::cpu`]): on a
//! two-core machine the driver shares the cores with the server, so the
//! throughput is bounded by both; the server's CPU per call is its own.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bench_harness::cpu::{own_cpu, process_cpu};
use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, ops_per_sec, rounds, scaled};
use bench_harness::wire::{
    Era, echo_call_body_in, echo_call_headers, handshake_bodies, is_success, session_headers,
};
use bench_harness::{Served, not_started, sibling_binary};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// Concurrent keep-alive connections.
const CONNECTIONS: usize = 64;

/// Calls per round of the sequential latency figure, before scaling.
const SEQUENTIAL_CALLS: usize = 2_000;

/// One server process, the address it serves on, and what every call to
/// it carries.
struct HttpServer {
    /// The name that starts its figure keys.
    name: &'static str,
    child: Child,
    address: SocketAddr,
    calls: Calls,
}

/// What every `echo` call to one server carries: the body and the
/// headers of its revision, with its session if it issued one.
#[derive(Clone)]
struct Calls {
    body: Bytes,
    headers: Arc<Vec<(&'static str, String)>>,
}

impl Calls {
    /// The calls of a stateless server.
    fn stateless() -> Calls {
        let headers = echo_call_headers()
            .into_iter()
            .map(|(name, value)| (name, value.to_owned()))
            .collect();
        Calls {
            body: Bytes::from(echo_call_body_in(Era::Stateless, 1)),
            headers: Arc::new(headers),
        }
    }

    /// Opens a session on the server at `address` and returns the calls
    /// that belong to it.
    async fn open_session(address: SocketAddr) -> std::io::Result<Calls> {
        let mut headers: Vec<(&'static str, String)> = session_headers()
            .into_iter()
            .map(|(name, value)| (name, value.to_owned()))
            .collect();
        let [initialize, initialized] = handshake_bodies();
        let (status, session, answer) = post_once(address, &headers, initialize).await?;
        if status != hyper::StatusCode::OK || !answer.windows(8).any(|w| w == b"\"result\"") {
            let text = String::from_utf8_lossy(&answer);
            return Err(std::io::Error::other(format!(
                "initialize failed: {status}: {text}"
            )));
        }
        if let Some(session) = session {
            headers.push(("mcp-session-id", session));
        }
        let (status, _, answer) = post_once(address, &headers, initialized).await?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&answer);
            return Err(std::io::Error::other(format!(
                "notifications/initialized refused: {status}: {text}"
            )));
        }
        Ok(Calls {
            body: Bytes::from(echo_call_body_in(Era::Sessions, 1)),
            headers: Arc::new(headers),
        })
    }

    /// The POST of one `tools/call echo` to `host`.
    fn request(&self, host: &str) -> hyper::Request<Full<Bytes>> {
        let mut request = hyper::Request::post("/mcp").header("host", host);
        for (name, value) in self.headers.iter() {
            request = request.header(*name, value);
        }
        request
            .body(Full::new(self.body.clone()))
            .expect("a well-formed request")
    }
}

/// Sends one POST of `body` with `headers` on a connection of its own;
/// the status, the `Mcp-Session-Id` the answer carries, and its body.
async fn post_once(
    address: SocketAddr,
    headers: &[(&'static str, String)],
    body: String,
) -> std::io::Result<(hyper::StatusCode, Option<String>, Bytes)> {
    let stream = TcpStream::connect(address).await?;
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(connection);
    let mut request = hyper::Request::post("/mcp").header("host", address.to_string());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .expect("a well-formed request");
    let response = sender
        .send_request(request)
        .await
        .map_err(std::io::Error::other)?;
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let answer = response
        .into_body()
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    Ok((status, session, answer))
}

impl HttpServer {
    /// Starts `served` over HTTP and reads its address.
    async fn start(served: Served) -> std::io::Result<HttpServer> {
        let command = Command::from(served.command("http"));
        let era = served.framework().era();
        HttpServer::spawn(served.name(), command, era).await
    }

    /// Starts the floor, answering every call with `call` (result JSON).
    async fn start_floor(call: &str) -> std::io::Result<HttpServer> {
        let mut command = Command::new(sibling_binary("floor-server"));
        command.args(["http", call]);
        HttpServer::spawn("floor", command, Era::Stateless).await
    }

    /// Runs `command`, reads the address it prints, and opens a session
    /// if `era` has sessions.
    async fn spawn(
        name: &'static str,
        mut command: Command,
        era: Era,
    ) -> std::io::Result<HttpServer> {
        let program = command.as_std().get_program().to_owned();
        let mut child = command
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| not_started(&program, e))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await?;
        let address = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("no address in {line:?}")))?;
        let calls = match era {
            Era::Stateless => Calls::stateless(),
            Era::Sessions => Calls::open_session(address).await?,
        };
        Ok(HttpServer {
            name,
            child,
            address,
            calls,
        })
    }

    /// The `result` of one `echo` call, as JSON text.
    async fn echo_result(&self) -> std::io::Result<String> {
        let body = String::from_utf8_lossy(&self.calls.body).into_owned();
        let (status, _, answer) = post_once(self.address, &self.calls.headers, body).await?;
        let answer: serde_json::Value = serde_json::from_slice(&answer).map_err(|e| {
            std::io::Error::other(format!("{status}: an answer that is no JSON: {e}"))
        })?;
        match answer.get("result") {
            Some(result) if status == hyper::StatusCode::OK => Ok(result.to_string()),
            _ => Err(std::io::Error::other(format!(
                "{status}: no result in {answer}"
            ))),
        }
    }

    /// Sends `count` calls one at a time on one connection; microseconds
    /// per call.
    async fn sequential(&self, count: usize) -> std::io::Result<f64> {
        let left = AtomicUsize::new(count);
        let start = Instant::now();
        drive_connection(self.address, self.calls.clone(), &left).await?;
        Ok(micros_per_op(start.elapsed(), count))
    }

    /// Sends `count` calls over [`CONNECTIONS`] connections.
    async fn load(&self, count: usize) -> std::io::Result<Round> {
        let left = Arc::new(AtomicUsize::new(count));
        let server_cpu = self.cpu();
        let driver_cpu = own_cpu();
        let start = Instant::now();
        let mut connections = tokio::task::JoinSet::new();
        for _ in 0..CONNECTIONS {
            let (left, calls, address) = (left.clone(), self.calls.clone(), self.address);
            connections.spawn(async move { drive_connection(address, calls, &left).await });
        }
        while let Some(done) = connections.join_next().await {
            done.map_err(std::io::Error::other)??;
        }
        let elapsed = start.elapsed();
        Ok(Round {
            seq_us: f64::NAN,
            calls_per_s: ops_per_sec(elapsed, count),
            server_cpu_us: per_call(server_cpu, self.cpu(), count),
            driver_cpu_us: per_call(driver_cpu, own_cpu(), count),
        })
    }

    /// The CPU time the server has used so far.
    fn cpu(&self) -> Option<Duration> {
        process_cpu(self.child.id()?)
    }
}

/// What one round measured.
struct Round {
    /// Sequential latency, µs per call (one connection, one call at a
    /// time).
    seq_us: f64,
    calls_per_s: f64,
    /// The server's CPU time per call, in microseconds (`NaN` if unknown).
    server_cpu_us: f64,
    /// The driver's CPU time per call, in microseconds (`NaN` if unknown).
    driver_cpu_us: f64,
}

/// Microseconds of CPU per call between two readings; `NaN` if either is
/// missing.
fn per_call(before: Option<Duration>, after: Option<Duration>, calls: usize) -> f64 {
    match (before, after) {
        (Some(before), Some(after)) => micros_per_op(after.saturating_sub(before), calls),
        _ => f64::NAN,
    }
}

/// One keep-alive connection, sending calls while `left` has some.
async fn drive_connection(
    address: SocketAddr,
    calls: Calls,
    left: &AtomicUsize,
) -> std::io::Result<()> {
    let stream = TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(connection);
    let host = address.to_string();
    while take_one(left) {
        let request = calls.request(&host);
        let response = sender
            .send_request(request)
            .await
            .map_err(std::io::Error::other)?;
        let status = response.status();
        let answer = response
            .into_body()
            .collect()
            .await
            .map_err(std::io::Error::other)?
            .to_bytes();
        if status != hyper::StatusCode::OK || !is_success(&answer) {
            let text = String::from_utf8_lossy(&answer);
            return Err(std::io::Error::other(format!("{status}: {text}")));
        }
    }
    Ok(())
}

/// Takes one request from the shared count; false when none are left.
fn take_one(left: &AtomicUsize) -> bool {
    left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
}

/// Runs the HTTP section: start every server (the floor with presa's
/// answer), warm each up, then alternating rounds.
pub async fn measure(figures: &mut Figures) -> std::io::Result<()> {
    let mut servers = Vec::new();
    // presa's plain server comes first: the floor answers with its bytes.
    for served in Served::available() {
        servers.push(HttpServer::start(served).await?);
    }
    let call = servers[0].echo_result().await?;
    servers.push(HttpServer::start_floor(&call).await?);
    for server in &servers {
        server.load(scaled(5_000)).await?; // warm-up
        server.sequential(scaled(200)).await?;
    }
    let (calls, sequential) = (scaled(20_000), scaled(SEQUENTIAL_CALLS));
    let mut samples: Vec<Vec<Round>> = servers.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds(7) {
        for (i, server) in servers.iter().enumerate() {
            let mut round = server.load(calls).await?;
            round.seq_us = server.sequential(sequential).await?;
            samples[i].push(round);
        }
    }
    for (i, server) in servers.iter().enumerate() {
        let name = server.name;
        let of =
            |figure: fn(&Round) -> f64| median(&samples[i].iter().map(figure).collect::<Vec<_>>());
        figures.record(
            &format!("{name}_http_seq_us"),
            &format!("{name}: HTTP sequential tools/call echo, µs"),
            of(|r| r.seq_us),
        );
        figures.record(
            &format!("{name}_http_calls_per_s"),
            &format!("{name}: HTTP throughput, {CONNECTIONS} connections, calls/s"),
            of(|r| r.calls_per_s),
        );
        figures.record(
            &format!("{name}_http_server_cpu_us"),
            &format!("{name}: HTTP server's CPU per call, us"),
            of(|r| r.server_cpu_us),
        );
        figures.record(
            &format!("{name}_http_driver_cpu_us"),
            &format!("{name}: HTTP driver's CPU per call, us"),
            of(|r| r.driver_cpu_us),
        );
    }
    Ok(())
}
