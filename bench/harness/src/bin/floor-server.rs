//! The framework-free floors of the stdio and HTTP figures: what
//! answering a request costs with nothing but a loop, the transport and
//! serde_json.
//!
//! - `floor-server LIST_RESULT CALL_RESULT` reads JSON-RPC requests, one a
//!   line, on stdin, on one thread. It answers `tools/list` with
//!   `LIST_RESULT` and any `tools/call` with `CALL_RESULT`. Output is
//!   flushed only when no further request is already buffered, as a
//!   server that batches its writes would.
//! - `floor-server http CALL_RESULT` serves HTTP/1.1 on a free loopback
//!   port, on tokio's multi-threaded runtime, and prints `listening ADDR`
//!   as the other benchmark servers do. It answers the body of every POST
//!   with `CALL_RESULT`, as `application/json`, whatever the path, the
//!   method and the headers.
//!
//! Both parse each request into a `serde_json::Value` and write the answer
//! with the request's id, the result parsed once at start. The driver
//! passes presa's own answers, so that a floor writes the same bytes
//! presa does. A floor checks, signs and validates nothing, which is the
//! point: the distance from it to a framework is the framework's own cost
//! per request.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [http, call] if http == "http" => {
            let call = parse(call)?;
            tokio::runtime::Runtime::new()?.block_on(serve_http(Arc::new(call)))
        }
        [list, call] => serve_lines(&parse(list)?, &parse(call)?),
        _ => {
            eprintln!(
                "usage: floor-server LIST_RESULT CALL_RESULT | floor-server http CALL_RESULT"
            );
            std::process::exit(2);
        }
    }
}

/// Parses a result given on the command line.
fn parse(text: &str) -> std::io::Result<Value> {
    serde_json::from_str(text).map_err(std::io::Error::other)
}

/// Answers every line of stdin until it closes.
fn serve_lines(list: &Value, call: &Value) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        let request: Value = serde_json::from_str(&line).map_err(std::io::Error::other)?;
        let result = match request["method"].as_str() {
            Some("tools/list") => list,
            _ => call,
        };
        let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        serde_json::to_writer(&mut output, &answer)?;
        output.write_all(b"\n")?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

/// Serves HTTP/1.1 on a free loopback port until the process is killed,
/// each connection on a tokio task of its own.
async fn serve_http(call: Arc<Value>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let call = Arc::clone(&call);
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(request, Arc::clone(&call)));
            // A connection that fails ends; the others go on.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Answers one POST: its body's id, with `call` as the result.
async fn answer(
    request: hyper::Request<Incoming>,
    call: Arc<Value>,
) -> Result<hyper::Response<Full<Bytes>>, hyper::Error> {
    let body = request.into_body().collect().await?.to_bytes();
    let id = serde_json::from_slice::<Value>(&body)
        .map(|request| request["id"].clone())
        .unwrap_or(Value::Null);
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": &*call});
    let bytes = serde_json::to_vec(&answer).expect("a Value always serializes");
    let response = hyper::Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(bytes)))
        .expect("a well-formed response");
    Ok(response)
}
