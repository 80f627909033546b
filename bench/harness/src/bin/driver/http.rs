//! Figures over Streamable HTTP: a server process per framework (presa,
//! rmcp, tower-mcp), loaded by
//! a small hyper client of our own with 64 keep-alive connections.
//!
//! Each connection sends one POST at a time and reads its whole answer
//! before the next; the connections share one counter of requests left,
//! so a round ends when the last answer is in. Every answer must be a
//! `200` whose body is a successful result.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bench_harness::Framework;
use bench_harness::figures::Figures;
use bench_harness::stats::{median, ops_per_sec, rounds, scaled};
use bench_harness::wire::{echo_call_body, echo_call_headers, is_success};
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
    _child: Child,
    address: SocketAddr,
}

impl HttpServer {
    /// Starts `framework`'s server over HTTP and reads its address.
    async fn start(framework: Framework) -> std::io::Result<HttpServer> {
        let mut child = Command::new(framework.server_binary())
            .arg("http")
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await?;
        let address = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("no address in {line:?}")))?;
        Ok(HttpServer {
            _child: child,
            address,
        })
    }

    /// Sends `count` calls over [`CONNECTIONS`] connections; calls per second.
    async fn load(&self, count: usize) -> std::io::Result<f64> {
        let left = Arc::new(AtomicUsize::new(count));
        let body = Bytes::from(echo_call_body(1));
        let start = Instant::now();
        let mut connections = tokio::task::JoinSet::new();
        for _ in 0..CONNECTIONS {
            let (left, body, address) = (left.clone(), body.clone(), self.address);
            connections.spawn(async move { drive_connection(address, body, &left).await });
        }
        while let Some(done) = connections.join_next().await {
            done.map_err(std::io::Error::other)??;
        }
        Ok(ops_per_sec(start.elapsed(), count))
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
    for framework in Framework::SERVED {
        let server = HttpServer::start(framework).await?;
        server.load(scaled(5_000)).await?;
        servers.push((framework, server));
    }
    let calls = scaled(20_000);
    let mut samples = vec![Vec::new(); servers.len()];
    for _ in 0..rounds(7) {
        for (i, (_, server)) in servers.iter().enumerate() {
            samples[i].push(server.load(calls).await?);
        }
    }
    for (i, (framework, _)) in servers.iter().enumerate() {
        let name = framework.name();
        let label = format!("{name}: HTTP throughput, {CONNECTIONS} connections, calls/s");
        figures.record(
            &format!("{name}_http_calls_per_s"),
            &label,
            median(&samples[i]),
        );
    }
    Ok(())
}
