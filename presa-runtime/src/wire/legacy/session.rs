//! What opens a legacy session, and the HTTP header that names one.

use super::method::INITIALIZE;

/// Whether `request` opens a legacy session: an `initialize` without the
/// modern per-request `_meta`. One that carries it is a modern request
/// (which has no `initialize`), served statelessly as the 2026-07-28
/// versioning rules ask.
pub fn opens_session(request: &crate::wire::jsonrpc::Request) -> bool {
    let modern = request
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(crate::wire::protocol::META_PROTOCOL_VERSION))
        .is_some();
    request.method == INITIALIZE && !modern
}

/// The HTTP header naming a legacy session (Streamable HTTP, 2025-03-26
/// to 2025-11-25).
pub const SESSION_ID_HEADER: &str = "Mcp-Session-Id";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::jsonrpc::Request;
    use serde_json::json;

    #[test]
    fn only_an_initialize_without_modern_meta_opens_a_session() {
        let legacy = Request::new(1, "initialize", json!({"protocolVersion": "2025-11-25"}));
        assert!(opens_session(&legacy));
        let modern = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        assert!(!opens_session(&Request::new(1, "initialize", modern)));
        assert!(!opens_session(&Request::new(1, "ping", json!({}))));
    }
}
