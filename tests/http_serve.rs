//! The standalone HTTP server (`StreamableHttp::serve`, `serve_on`): it
//! closes connections that never finish their headers or sit idle, keeps
//! no more connections than its bound while it serves the others, and on
//! shutdown answers every request it accepted.
//!
//! The sockets are real, so time is too: each test waits for the server
//! to act (to close a socket, to answer), never for a while; a guard only
//! turns a hang into a failure.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use futures::StreamExt;
use presa::server::http::StreamableHttp;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// How long a test waits for the server before it fails instead of
/// hanging.
const GUARD: Duration = Duration::from_secs(20);

/// A server header timeout short enough for a test to wait for.
const SHORT: Duration = Duration::from_millis(300);

/// Binds a free loopback port for `http` and serves it there.
async fn serve(http: StreamableHttp) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(http.serve_on(listener));
    address
}

/// A connection that has sent a request line and one byte of a header,
/// as a slow client does.
async fn slow_headers(address: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nH").await.unwrap();
    stream
}

/// Reads until the server closes `stream`; what it sent before.
async fn until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    timeout(GUARD, stream.read_to_end(&mut received))
        .await
        .expect("the server closes the connection")
        .expect("a clean close");
    received
}

/// A raw `server/discover`; with `close`, the connection ends after it.
fn discover(address: SocketAddr, close: bool) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                      "params": {"_meta": common::meta(json!({}))}})
    .to_string();
    let connection = if close { "close" } else { "keep-alive" };
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n\
         Mcp-Method: server/discover\r\nConnection: {connection}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        common::VERSION,
        body.len()
    )
    .into_bytes()
}

/// Reads one response with a `Content-Length` body; its status line and
/// body.
async fn read_response(stream: &mut TcpStream) -> (String, Value) {
    let mut received = Vec::new();
    let mut byte = [0u8; 1];
    while !received.ends_with(b"\r\n\r\n") {
        let read = timeout(GUARD, stream.read(&mut byte))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read, 1, "the server closed inside a response: {received:?}");
        received.push(byte[0]);
    }
    let head = String::from_utf8(received).unwrap();
    let length: usize = head
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_owned)
        })
        .expect("a Content-Length")
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; length];
    timeout(GUARD, stream.read_exact(&mut body))
        .await
        .unwrap()
        .unwrap();
    let status = head.lines().next().unwrap().to_owned();
    (status, serde_json::from_slice(&body).unwrap())
}

/// Whether the server has closed `stream` (its end of file is there to
/// read) without waiting.
fn closed_by_server(stream: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(stream.try_read(&mut byte), Ok(0))
}

/// A connection that sends its request line and then a header byte now
/// and then is closed after the header timeout; so is a keep-alive
/// connection that sends nothing after its answer. Both used to stay
/// open for ever: `axum::serve` sets no timeout.
#[tokio::test]
async fn slow_headers_and_idle_keep_alive_connections_are_closed() {
    let f = common::fixture();
    let address = serve(StreamableHttp::new(f.server.clone()).header_read_timeout(SHORT)).await;

    let mut slow = slow_headers(address).await;
    assert_eq!(
        until_closed(&mut slow).await,
        b"",
        "closed without an answer"
    );

    let mut idle = TcpStream::connect(address).await.unwrap();
    idle.write_all(&discover(address, false)).await.unwrap();
    let (status, answer) = read_response(&mut idle).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(
        until_closed(&mut idle).await,
        b"",
        "nothing after the answer"
    );
}

/// Slow connections below the bound do not keep a normal request from
/// being served at once.
#[tokio::test]
async fn slow_connections_do_not_hold_up_the_others() {
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone()).max_connections(8);
    let address = serve(http).await;
    let mut slow = Vec::new();
    for _ in 0..4 {
        slow.push(slow_headers(address).await);
    }
    let mut normal = TcpStream::connect(address).await.unwrap();
    normal.write_all(&discover(address, true)).await.unwrap();
    let (status, answer) = read_response(&mut normal).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(
        slow.iter().all(|stream| !closed_by_server(stream)),
        "the slow connections are still open (10 s to finish their headers)"
    );
}

/// At `max_connections` the server accepts no more: a request on a new
/// connection waits until the header timeout closes a slow one, and is
/// then served. On loopback the server's close of the slow connection is
/// delivered before it can accept the new one, so once the answer is
/// here, the slow connection's end is too.
#[tokio::test]
async fn past_max_connections_a_new_connection_waits_for_a_free_slot() {
    let f = common::fixture();
    let http = StreamableHttp::new(f.server.clone())
        .max_connections(1)
        .header_read_timeout(SHORT);
    let address = serve(http).await;
    let slow = slow_headers(address).await;
    let mut waiting = TcpStream::connect(address).await.unwrap();
    waiting.write_all(&discover(address, true)).await.unwrap();
    let (status, answer) = read_response(&mut waiting).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(
        closed_by_server(&slow),
        "the second connection was served while the first held the only slot"
    );
}

/// The start of a POST that announces a 4 MiB body, or a chunked one,
/// and sends a few bytes of it.
fn slow_body_start(address: SocketAddr, chunked: bool) -> Vec<u8> {
    let framing = if chunked {
        "Transfer-Encoding: chunked\r\n\r\n4\r\n{\"js\r\n"
    } else {
        "Content-Length: 4194304\r\n\r\n{\"js"
    };
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n\
         Mcp-Method: server/discover\r\n{framing}",
        common::VERSION,
    )
    .into_bytes()
}

/// A body that does not arrive in time is answered `408`, and its
/// connection closed, announced or chunked; so is one that falls behind
/// the minimum pace. Slow bodies used to be read for ever.
#[tokio::test]
async fn a_slow_body_is_answered_408_and_its_connection_closed() {
    let f = common::fixture();
    let timed = serve(StreamableHttp::new(f.server.clone()).body_timeout(SHORT)).await;
    let paced = serve(StreamableHttp::new(f.server.clone()).min_body_rate(1 << 20, SHORT)).await;
    for (address, chunked, says) in [
        (timed, false, "did not arrive within"),
        (timed, true, "did not arrive within"),
        (paced, false, "slower than 1048576 bytes per second"),
    ] {
        let mut slow = TcpStream::connect(address).await.unwrap();
        slow.write_all(&slow_body_start(address, chunked))
            .await
            .unwrap();
        let answer = String::from_utf8(until_closed(&mut slow).await).unwrap();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains(says), "{answer}");
    }
}

/// A raw `server/discover` over `version` (`HTTP/1.1`, `HTTP/1.0`),
/// whose connection closes after it, with `headers` (raw lines, each
/// ending in CRLF) and no others of its own: no `Host` unless given.
fn discover_with(version: &str, headers: &[u8]) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                      "params": {"_meta": common::meta(json!({}))}})
    .to_string();
    let mut request = format!(
        "POST /mcp {version}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n\
         Mcp-Method: server/discover\r\nConnection: close\r\nContent-Length: {}\r\n",
        common::VERSION,
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(headers);
    request.extend_from_slice(b"\r\n");
    request.extend_from_slice(body.as_bytes());
    request
}

/// The status code the server at `address` answers `request` with.
async fn status_of(address: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let (status, _) = read_response(&mut stream).await;
    status.split(' ').nth(1).unwrap().to_owned()
}

/// Over real connections, the guard refuses a request that names no host
/// (HTTP/1.1 and HTTP/1.0 alike), a `Host` or an `Origin` that is not
/// ASCII, and `Origin: null`; a request without `Origin` is served.
#[tokio::test]
async fn the_guard_refuses_a_host_or_origin_it_cannot_read() {
    let f = common::fixture();
    let address = serve(StreamableHttp::new(f.server.clone())).await;
    let host = format!("Host: {address}\r\n");
    let served = discover_with("HTTP/1.1", host.as_bytes());
    assert_eq!(status_of(address, &served).await, "200");

    let mut refused: Vec<(&str, Vec<u8>)> = vec![
        ("HTTP/1.1", b"".to_vec()),
        ("HTTP/1.0", b"".to_vec()),
        ("HTTP/1.1", b"Host: l\xc3\xb6calhost\r\n".to_vec()),
    ];
    for origin in [&b"null"[..], b"http://localhost\xff", b"http://127.0.0.1/x"] {
        let mut headers = host.clone().into_bytes();
        headers.extend_from_slice(b"Origin: ");
        headers.extend_from_slice(origin);
        headers.extend_from_slice(b"\r\n");
        refused.push(("HTTP/1.1", headers));
    }
    for (version, headers) in refused {
        let status = status_of(address, &discover_with(version, &headers)).await;
        let shown = String::from_utf8_lossy(&headers);
        assert_eq!(status, "403", "{version} {shown}");
    }
}

/// The warnings logged, as text, by what a [`Warnings`] subscriber saw.
#[derive(Clone, Default)]
struct Warnings(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    *self.0 = format!("{value:?}");
                }
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut message = String::new();
            event.record(&mut Message(&mut message));
            self.0.lock().unwrap().push(message);
        }
    }
}

/// The warnings the server logs at start when it serves `http` on
/// `bound`: its start is over once it has answered a request.
async fn start_warnings(http: StreamableHttp, bound: &str) -> Vec<String> {
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::layer::SubscriberExt;
    let warnings = Warnings::default();
    let subscriber = tracing_subscriber::registry().with(warnings.clone());
    let listener = tokio::net::TcpListener::bind(bound).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(http.serve_on(listener).with_subscriber(subscriber));
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    assert_eq!(status_of(address, &discover(address, true)).await, "200");
    warnings.0.lock().unwrap().clone()
}

/// A server that other machines can reach but that allows loopback names
/// only warns at start, naming the setting to change; it still serves
/// (a container reached as localhost through a forwarded port is right).
/// Bound to loopback, or with a name allowed, it says nothing.
#[tokio::test]
async fn serving_beyond_loopback_with_loopback_names_only_warns_at_start() {
    use presa::server::http::{AllowedHosts, ProtectedResourceMetadata};
    let f = common::fixture();
    let warned = start_warnings(StreamableHttp::new(f.server.clone()), "0.0.0.0:0").await;
    assert_eq!(warned.len(), 1, "{warned:?}");
    let warning = &warned[0];
    assert!(warning.starts_with("serving on 0.0.0.0:"), "{warning}");
    assert!(
        warning.contains(
            "StreamableHttp::allowed_hosts(AllowedHosts::loopback().with(\"mcp.example.com\"))"
        ),
        "{warning}"
    );

    let local = start_warnings(StreamableHttp::new(f.server.clone()), "127.0.0.1:0").await;
    assert_eq!(local, Vec::<String>::new());
    let named = StreamableHttp::new(f.server.clone())
        .allowed_hosts(AllowedHosts::loopback().with("mcp.example.com"));
    assert_eq!(
        start_warnings(named, "0.0.0.0:0").await,
        Vec::<String>::new()
    );
    let any = StreamableHttp::new(f.server.clone()).allowed_hosts(AllowedHosts::any());
    assert_eq!(start_warnings(any, "0.0.0.0:0").await, Vec::<String>::new());
    let metadata =
        ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example");
    let published = StreamableHttp::new(f.server.clone()).protected_resource(metadata);
    assert_eq!(
        start_warnings(published, "0.0.0.0:0").await,
        Vec::<String>::new()
    );
}

/// A raw POST of `body` to the endpoint at `address`.
async fn post(address: SocketAddr, body: Value) -> reqwest::Response {
    let method = body["method"].as_str().unwrap().to_owned();
    let mut request = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", common::VERSION)
        .header("mcp-method", method);
    if let Some(name) = body["params"]["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    request.body(body.to_string()).send().await.unwrap()
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}, "_meta": common::meta(json!({}))}})
}

/// The JSON messages of an event stream, until it ends.
async fn events(response: reqwest::Response) -> Vec<Value> {
    let mut text = String::new();
    let mut body = response.bytes_stream();
    let reading = async {
        while let Some(chunk) = body.next().await {
            text.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    };
    timeout(GUARD, reading).await.expect("the stream ends");
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

/// On shutdown the server accepts no more connections; a listen stream
/// ends at once with its graceful closure; a call that finishes within
/// the drain period gets its result, one that does not gets `503` with
/// `-31003`; then `serve_on` returns.
#[tokio::test]
async fn shutdown_answers_every_request_accepted_then_returns() {
    let f = common::fixture_with(|b| b.drain_period(Duration::from_millis(500)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        StreamableHttp::new(f.server.clone())
            .serve_on(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            }),
    );
    let finishing = tokio::spawn(post(address, call(1, "gated_started")));
    f.probe.started.notified().await;
    let stuck = tokio::spawn(post(address, call(2, "wait_forever")));
    f.probe.started.notified().await;
    let listen = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
                        "params": {"notifications": {"toolsListChanged": true},
                                   "_meta": common::meta(json!({}))}});
    let listening = post(address, listen).await;
    assert_eq!(listening.headers()["content-type"], "text/event-stream");

    stop.send(()).unwrap();
    let messages = events(listening).await;
    assert_eq!(
        messages[0]["method"], "notifications/subscriptions/acknowledged",
        "{messages:?}"
    );
    assert_eq!(messages[1]["id"], 3, "{messages:?}");
    assert_eq!(messages[1]["result"]["resultType"], "complete");
    assert_eq!(messages.len(), 2, "the stream ends with its result");

    f.probe.release.notify_one();
    let finished = finishing.await.unwrap();
    assert_eq!(finished.status().as_u16(), 200);
    let finished: Value = serde_json::from_str(&finished.text().await.unwrap()).unwrap();
    assert_eq!(finished["result"]["content"][0]["text"], "released");

    let cut = stuck.await.unwrap();
    assert_eq!(cut.status().as_u16(), 503);
    let cut: Value = serde_json::from_str(&cut.text().await.unwrap()).unwrap();
    assert_eq!(cut["id"], 2, "{cut}");
    assert_eq!(cut["error"]["code"], -31003, "{cut}");
    assert_eq!(cut["error"]["data"], json!({"started": true}), "{cut}");

    timeout(GUARD, serving)
        .await
        .expect("serve_on returns")
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(address).await.is_err(),
        "the listener is closed"
    );
}

/// A legacy session's standalone GET stream, which never ends on its own,
/// ends when serving does, so the server does not wait the drain period
/// for it.
#[tokio::test]
async fn a_legacy_standalone_stream_ends_on_shutdown() {
    let f = common::fixture();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        StreamableHttp::new(f.server.clone())
            .serve_on(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            }),
    );
    let url = format!("http://{address}/mcp");
    let client = reqwest::Client::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "legacy", "version": "0"}}});
    let opened = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status().as_u16(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let standalone = client
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(standalone.headers()["content-type"], "text/event-stream");
    stop.send(()).unwrap();
    assert_eq!(events(standalone).await, Vec::<Value>::new());
    timeout(GUARD, serving)
        .await
        .expect("serve_on returns without waiting the drain period")
        .unwrap()
        .unwrap();
}

/// `jobs http` stops on SIGTERM or Ctrl-C: it ends gracefully and exits
/// with status 0, where the signal used to kill it.
// Unix only, as tests/stdio_process.rs's signal tests are: no SIGTERM on
// Windows, and no Ctrl-C for one child alone.
#[cfg(unix)]
#[test]
fn the_http_server_process_ends_gracefully_on_sigterm_and_ctrl_c() {
    use std::io::{BufRead, Read, Write};
    use std::process::{Command, Stdio};

    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    use crate::jobs_example;
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let mut child = Command::new(jobs_example::jobs_binary())
            .args(["http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let address: SocketAddr = line
            .trim()
            .strip_prefix("serving the jobs server at http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("the address on stderr: {line:?}"))
            .parse()
            .unwrap();
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream.write_all(&discover(address, true)).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");

        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        // Reading stderr to its end waits for the exit; the guard below
        // only turns a hang into a failure.
        let pid = child.id();
        let (done, exited) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            let _ = done.send(child.wait().unwrap());
        });
        let Ok(status) = exited.recv_timeout(GUARD) else {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
            panic!("still running {GUARD:?} after {signal}");
        };
        assert!(status.success(), "{signal}: {status:?}");
    }
}
