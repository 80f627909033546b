//! What the HTTP client knows of the server's tools: which parameters each
//! mirrors into `Mcp-Param-*` headers, and which it must not call.
//!
//! Every `tools/list` answer passes through the transport, which reads the
//! `x-mcp-header` annotations of each tool. A tool whose annotations break
//! the rules is removed from the answer (with a warning naming the tool and
//! the reason), as the spec requires, and a later call to it is answered
//! locally with an error instead of being sent.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use crate::util::lock;
use crate::wire::headers::{HeaderParam, header_params};

/// The header parameters of the tools seen so far, by name.
#[derive(Default)]
pub(super) struct ToolHeaders {
    tools: Mutex<HashMap<String, Known>>,
}

/// What is known of one tool.
#[derive(Clone)]
pub(super) enum Known {
    /// Callable; these parameters become headers.
    Usable(Vec<HeaderParam>),
    /// Not callable over HTTP, for this reason.
    Unusable(String),
}

impl ToolHeaders {
    /// What is known of tool `name`, if it was listed.
    pub fn get(&self, name: &str) -> Option<Known> {
        lock(&self.tools).get(name).cloned()
    }

    /// Learns the tools of one `tools/list` result and removes the
    /// unusable ones from it.
    pub fn learn(&self, result: &mut Value) {
        let Some(Value::Array(tools)) = result.get_mut("tools") else {
            return;
        };
        let mut known = lock(&self.tools);
        tools.retain(|tool| {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                return true;
            };
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            match header_params(schema) {
                Ok(params) => {
                    known.insert(name.to_owned(), Known::Usable(params));
                    true
                }
                Err(error) => {
                    tracing::warn!(
                        tool = name,
                        reason = %error,
                        "ignoring a tool that cannot be called over HTTP"
                    );
                    known.insert(name.to_owned(), Known::Unusable(error.to_string()));
                    false
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listing_keeps_usable_tools_and_remembers_the_rest() {
        let headers = ToolHeaders::default();
        let mut result = json!({"tools": [
            {"name": "ok", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {
                "n": {"type": "number", "x-mcp-header": "N"}}}},
        ]});
        headers.learn(&mut result);
        assert_eq!(result["tools"].as_array().unwrap().len(), 1);
        assert!(matches!(headers.get("ok"), Some(Known::Usable(p)) if p.len() == 1));
        assert!(matches!(headers.get("bad"), Some(Known::Unusable(r)) if r.contains("integer")));
        assert!(headers.get("unknown").is_none());
    }
}
