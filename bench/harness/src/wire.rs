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
    fn the_request_carries_the_stateless_meta() {
        let line = echo_call_line(7);
        assert!(line.ends_with('\n'));
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(request["params"]["_meta"], request_meta());
    }
}
