//! The framework-free floor of the stdio figures: what answering a line
//! costs with nothing but a loop, buffered I/O and serde_json.
//!
//! `floor-server LIST_RESULT CALL_RESULT` reads JSON-RPC requests, one a
//! line, on stdin, on one thread. It parses each line into a
//! `serde_json::Value`, and answers `tools/list` with `LIST_RESULT` and
//! any `tools/call` with `CALL_RESULT` (both JSON texts, parsed once at
//! start), serialized with the request's id. The driver passes presa's own
//! answers, so that the floor writes the same bytes presa does; it checks,
//! signs and validates nothing, which is the point: the distance from it
//! to a framework is the framework's own cost per request.
//!
//! Output is flushed only when no further request is already buffered, as
//! a server that batches its writes would.

use std::io::{BufRead, BufReader, BufWriter, Write};

use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [list, call] = args.as_slice() else {
        eprintln!("usage: floor-server LIST_RESULT CALL_RESULT");
        std::process::exit(2);
    };
    let list: Value = serde_json::from_str(list).map_err(std::io::Error::other)?;
    let call: Value = serde_json::from_str(call).map_err(std::io::Error::other)?;
    serve(&list, &call)
}

/// Answers every line of stdin until it closes.
fn serve(list: &Value, call: &Value) -> std::io::Result<()> {
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
