//! Figures over Streamable HTTP: a server process per framework (presa,
//! rmcp, tower-mcp) and per variant of presa's (a cost switched on,
//! [`PresaVariant`](bench_harness::PresaVariant)), loaded by a small hyper
//! client of our own with 64 keep-alive connections.
//!
//! Each connection sends one POST at a time and reads its whole answer
//! before the next; the connections share one counter of requests left,
//! so a round ends when the last answer is in. Every answer must be a
//! `200` whose body is a successful result.
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
use bench_harness::wire::{echo_call_body, echo_call_headers, is_success};
use bench_harness::{Served, not_started};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// Concurrent keep-alive connections.
const CONNECTIONS: usize = 64;

/// One server process and the address it serves on.
struct HttpServer {
    child: Child,
    address: SocketAddr,
}

impl HttpServer {
    /// Starts `served` over HTTP and reads its address.
    async fn start(served: Served) -> std::io::Result<HttpServer> {
        let mut command = Command::from(served.command("http"));
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
        Ok(HttpServer { child, address })
    }

    /// Sends `count` calls over [`CONNECTIONS`] connections.
    async fn load(&self, count: usize) -> std::io::Result<Round> {
        let left = Arc::new(AtomicUsize::new(count));
        let body = Bytes::from(echo_call_body(1));
        let server_cpu = self.cpu();
        let driver_cpu = own_cpu();
        let start = Instant::now();
        let mut connections = tokio::task::JoinSet::new();
        for _ in 0..CONNECTIONS {
            let (left, body, address) = (left.clone(), body.clone(), self.address);
            connections.spawn(async move { drive_connection(address, body, &left).await });
        }
        while let Some(done) = connections.join_next().await {
            done.map_err(std::io::Error::other)??;
        }
        let elapsed = start.elapsed();
        Ok(Round {
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
    body: Bytes,
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
        let request = echo_request(&host, body.clone());
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

/// The POST of one `tools/call echo`, with the 2026-07-28 headers.
fn echo_request(host: &str, body: Bytes) -> hyper::Request<Full<Bytes>> {
    let mut request = hyper::Request::post("/mcp").header("host", host);
    for (name, value) in echo_call_headers() {
        request = request.header(name, value);
    }
    request
        .body(Full::new(body))
        .expect("a well-formed request")
}

/// Runs the HTTP section: warm-up, then alternating rounds.
pub async fn measure(figures: &mut Figures) -> std::io::Result<()> {
    let mut servers = Vec::new();
    for served in Served::ALL {
        let server = HttpServer::start(served).await?;
        server.load(scaled(5_000)).await?; // warm-up
        servers.push((served, server));
    }
    let calls = scaled(20_000);
    let mut samples: Vec<Vec<Round>> = servers.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds(7) {
        for (i, (_, server)) in servers.iter().enumerate() {
            samples[i].push(server.load(calls).await?);
        }
    }
    for (i, (served, _)) in servers.iter().enumerate() {
        let name = served.name();
        let of =
            |figure: fn(&Round) -> f64| median(&samples[i].iter().map(figure).collect::<Vec<_>>());
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
