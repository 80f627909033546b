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

/// The protocol revision every request to a stateless server names.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The session-based revision, for peers that do not speak
/// [`PROTOCOL_VERSION`] yet.
pub const SESSIONS_PROTOCOL_VERSION: &str = "2025-11-25";

/// The protocol revision a benchmark server speaks, which decides the bytes
/// the driver sends it.
///
/// Every server gets the requests of its own revision: a stateless server
/// gets the 2026-07-28 `_meta` on each request, a session-based one gets an
/// `initialize` handshake once and then requests without it. So each pays
/// for what its revision asks of it, and nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: no handshake; each request carries its `_meta`.
    Stateless,
    /// 2025-11-25: `initialize` and `notifications/initialized` first;
    /// over HTTP, each POST carries the session's `Mcp-Session-Id`.
    Sessions,
}

impl Era {
    /// The revision's date, as `MCP-Protocol-Version` and `initialize`
    /// name it.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Era::Stateless => PROTOCOL_VERSION,
            Era::Sessions => SESSIONS_PROTOCOL_VERSION,
        }
    }

    /// The `params` of a request: `extra` with the stateless `_meta` added
    /// for a stateless server (`meta`), as is otherwise.
    fn params(self, mut extra: serde_json::Value, meta: serde_json::Value) -> serde_json::Value {
        if self == Era::Stateless {
            extra["_meta"] = meta;
        }
        extra
    }
}

/// The `initialize` request and the `notifications/initialized` that
/// follows it, each without newline: the handshake a session-based server
/// needs before anything else. The client declares form elicitation, as
/// the stateless requests do.
pub fn handshake_bodies() -> [String; 2] {
    let initialize = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": SESSIONS_PROTOCOL_VERSION,
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "bench-driver", "version": "1"}
        }
    });
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    [initialize.to_string(), initialized.to_string()]
}

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
/// (an HTTP body), for a stateless server.
pub fn echo_call_body(id: u64) -> String {
    echo_call_body_in(Era::Stateless, id)
}

/// The JSON-RPC `tools/call echo` request with id `id` in `era`'s shape,
/// without newline.
pub fn echo_call_body_in(era: Era, id: u64) -> String {
    let params = serde_json::json!({"name": "echo", "arguments": {"text": ECHO_TEXT}});
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": era.params(params, request_meta())
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
    /// The request line (with its newline) with id `id`, in `era`'s
    /// shape; `state` is the server's `requestState`, which only
    /// [`Workload::Mrtr`] sends (a stateless server's only).
    pub fn line(self, era: Era, id: u64, state: &str) -> String {
        let mut line = match self {
            Workload::Echo => echo_call_body_in(era, id),
            Workload::List => list_body(era, id),
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

/// The JSON-RPC `tools/list` request with id `id` in `era`'s shape,
/// without newline.
pub fn list_body(era: Era, id: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/list",
        "params": era.params(serde_json::json!({}), request_meta())
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

/// The HTTP headers (name, value) of a `tools/call echo` POST to a
/// stateless server, beside `Host` and `Content-Length`.
pub fn echo_call_headers() -> [(&'static str, &'static str); 5] {
    [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", PROTOCOL_VERSION),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ]
}

/// The HTTP headers of any POST to a session-based server, beside `Host`,
/// `Content-Length` and, once the server issued one, `Mcp-Session-Id`.
/// The handshake's POSTs carry no `MCP-Protocol-Version`: the revision is
/// agreed in `initialize`.
pub fn session_headers() -> [(&'static str, &'static str); 3] {
    [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", SESSIONS_PROTOCOL_VERSION),
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
        let line = Workload::Mrtr.line(Era::Stateless, 2, "signed");
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

    #[test]
    fn a_session_based_server_gets_its_handshake_and_no_stateless_meta() {
        for workload in [Workload::Echo, Workload::List] {
            let line = workload.line(Era::Sessions, 4, "");
            let request: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(request["id"], 4);
            assert!(request["params"].get("_meta").is_none(), "{line}");
        }
        let [initialize, initialized] = handshake_bodies();
        let initialize: serde_json::Value = serde_json::from_str(&initialize).unwrap();
        assert_eq!(initialize["method"], "initialize");
        assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
        let initialized: serde_json::Value = serde_json::from_str(&initialized).unwrap();
        assert_eq!(initialized["method"], "notifications/initialized");
        assert!(initialized.get("id").is_none());
    }
}
