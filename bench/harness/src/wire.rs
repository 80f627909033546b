//! The bytes the neutral driver sends, and the check it makes of each
//! answer.
//!
//! Both servers get exactly the same requests: stateless 2026-07-28
//! messages whose `_meta` carries the protocol version, the client's
//! capabilities and its identity, as every request of that revision must.
//! Over HTTP the same body goes with the headers the Streamable HTTP
//! transport of 2026-07-28 requires (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`).
//!
//! Three workloads go over stdio ([`Workload`]): `tools/call echo`, the
//! cost of a call; `tools/list`, the cost of a request that neither
//! validates nor signs anything; and an MRTR-shaped `tools/call ask`, which
//! carries the answer to `ask`'s question (`inputResponses`) and the
//! `requestState` the server issued when it asked, so that the call
//! completes in one round trip. Each server issues its own `requestState`
//! (the driver asks once, before measuring), so only that string differs
//! between servers.
//!
//! A server that answers with an error is not fast, it is wrong: the
//! driver checks every answer with [`is_success`], which is a scan for
//! markers rather than a parse, so that checking costs the driver little
//! on a machine it shares with the server.

/// The protocol revision every request names.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The text the `echo` calls send, and expect back.
pub const ECHO_TEXT: &str = "hello";

/// The `_meta` object of a stateless request from a client without tasks.
pub fn request_meta() -> serde_json::Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench-driver", "version": "1"}
    })
}

/// The JSON-RPC `tools/call echo` request with id `id`, as one line with
/// its newline, ready for a stdio server.
pub fn echo_call_line(id: u64) -> String {
    let mut line = echo_call_body(id);
    line.push('\n');
    line
}

/// The JSON-RPC `tools/call echo` request with id `id`, without newline
/// (an HTTP body).
pub fn echo_call_body(id: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": ECHO_TEXT}, "_meta": request_meta()}
    })
    .to_string()
}

/// The answer a framework-free server would give `echo_call_body`; the
/// floor encodes and decodes these bytes.
pub fn echo_response_body(id: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"content": [{"type": "text", "text": ECHO_TEXT}], "resultType": "complete"}
    })
    .to_string()
}

/// What a stdio request asks the server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// `tools/call echo`.
    Echo,
    /// `tools/list`.
    List,
    /// `tools/call ask` with its answer and the server's `requestState`.
    Mrtr,
}

impl Workload {
    /// The request line (with its newline) with id `id`; `state` is the
    /// server's `requestState`, which only [`Workload::Mrtr`] sends.
    pub fn line(self, id: u64, state: &str) -> String {
        let mut line = match self {
            Workload::Echo => echo_call_body(id),
            Workload::List => list_body(id),
            Workload::Mrtr => ask_call_body(id, Some(state)),
        };
        line.push('\n');
        line
    }

    /// Whether `answer` is this workload's successful result.
    pub fn is_success(self, answer: &[u8]) -> bool {
        let marker: &[u8] = match self {
            Workload::Echo => ECHO_TEXT.as_bytes(),
            Workload::List => b"\"inputSchema\"",
            Workload::Mrtr => ASK_ANSWER.as_bytes(),
        };
        contains(answer, b"\"result\"")
            && contains(answer, marker)
            && !contains(answer, b"\"error\"")
            && !contains(answer, b"\"isError\":true")
            && !contains(answer, b"\"input_required\"")
    }
}

/// The key under which `ask` asks its question.
pub const ASK_KEY: &str = "confirm";

/// The text `ask` answers with once its question is answered yes.
pub const ASK_ANSWER: &str = "\"text\":\"true\"";

/// The `_meta` of a stateless request from a client that can answer form
/// elicitations (which `ask`'s question is) but declares no tasks.
fn eliciting_meta() -> serde_json::Value {
    let mut meta = request_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] =
        serde_json::json!({"elicitation": {"form": {}}});
    meta
}

/// The JSON-RPC `tools/list` request with id `id`, without newline.
pub fn list_body(id: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/list",
        "params": {"_meta": request_meta()}
    })
    .to_string()
}

/// The JSON-RPC `tools/call ask` request with id `id`: without `state`,
/// the first round (the server answers `input_required`); with it, the
/// retry that carries the answer, yes, and the server's `requestState`.
pub fn ask_call_body(id: u64, state: Option<&str>) -> String {
    let mut params = serde_json::json!({"name": "ask", "arguments": {}, "_meta": eliciting_meta()});
    if let Some(state) = state {
        params["inputResponses"] =
            serde_json::json!({ASK_KEY: {"action": "accept", "content": {"ok": true}}});
        params["requestState"] = state.into();
    }
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        .to_string()
}

/// The `requestState` of an `input_required` answer, if it has one.
pub fn request_state_of(answer: &[u8]) -> Option<String> {
    let answer: serde_json::Value = serde_json::from_slice(answer).ok()?;
    Some(answer["result"]["requestState"].as_str()?.to_owned())
}

/// The HTTP headers (name, value) of a `tools/call echo` POST, beside
/// `Host` and `Content-Length`.
pub fn echo_call_headers() -> [(&'static str, &'static str); 5] {
    [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", PROTOCOL_VERSION),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ]
}

/// Whether `answer` (a JSON-RPC message, or an SSE body carrying one) is
/// a successful `echo` result: a `result` member with the echoed text, and
/// no `error` member nor a tool error.
pub fn is_success(answer: &[u8]) -> bool {
    contains(answer, b"\"result\"")
        && contains(answer, ECHO_TEXT.as_bytes())
        && !contains(answer, b"\"error\"")
        && !contains(answer, b"\"isError\":true")
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_with_the_text_is_a_success() {
        assert!(is_success(echo_response_body(3).as_bytes()));
    }

    #[test]
    fn an_error_or_a_tool_error_is_not() {
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"hello"}}"#;
        assert!(!is_success(error));
        let tool_error = br#"{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"hello"}]}}"#;
        assert!(!is_success(tool_error));
    }

    #[test]
    fn the_mrtr_retry_carries_the_answer_and_the_state() {
        let line = Workload::Mrtr.line(2, "signed");
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(request["params"]["requestState"], "signed");
        assert_eq!(
            request["params"]["inputResponses"][ASK_KEY]["action"],
            "accept"
        );
    }

    #[test]
    fn an_input_required_answer_is_not_a_completed_mrtr_call() {
        let asked = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#;
        assert!(!Workload::Mrtr.is_success(asked));
        assert_eq!(request_state_of(asked).as_deref(), Some("s"));
        let done =
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"true"}]}}"#;
        assert!(Workload::Mrtr.is_success(done));
    }

    #[test]
    fn the_request_carries_the_stateless_meta() {
        let line = echo_call_line(7);
        assert!(line.ends_with('\n'));
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(request["params"]["_meta"], request_meta());
    }
}
