//! `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    CacheScope, Content, InputResponses, PaginatedParams, RequestMeta, ResultMeta, ResultType,
};

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Unique name within the server.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema (2020-12) of the arguments; its root is an object.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, when the tool returns structured output.
    #[serde(
        rename = "outputSchema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Untrusted hints about a tool's behaviour.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(
        rename = "readOnlyHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    #[serde(
        rename = "destructiveHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(
        rename = "idempotentHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to the outside world.
    #[serde(
        rename = "openWorldHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world_hint: Option<bool>,
}

/// Params of `tools/list`: those of every paginated list.
pub type ListToolsParams = PaginatedParams;

/// The answer to `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListToolsResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// This page of tools, in a stable order.
    pub tools: Vec<Tool>,
    /// The cursor of the next page; absent on the last page.
    #[serde(
        rename = "nextCursor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// How long the client may cache this page.
    #[serde(
        rename = "ttlMs",
        default,
        deserialize_with = "super::result::lenient_ttl"
    )]
    pub ttl_ms: u64,
    /// Who may share the cached page.
    #[serde(rename = "cacheScope", default = "super::result::public")]
    pub cache_scope: CacheScope,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Params of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallToolParams {
    /// The tool to call.
    pub name: String,
    /// The arguments, matching the tool's `inputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Answers to the previous round's `inputRequests` (MRTR retry).
    #[serde(
        rename = "inputResponses",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_responses: Option<InputResponses>,
    /// Echo of the previous round's `requestState`, byte for byte.
    #[serde(
        rename = "requestState",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub request_state: Option<String>,
    /// Request metadata; see [`PaginatedParams::meta`].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// The final result of a tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallToolResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// Unstructured output.
    #[serde(default)]
    pub content: Vec<Content>,
    /// Structured output, matching the tool's `outputSchema`.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// `true` when the tool itself failed; the content says why.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl CallToolResult {
    /// A successful result made of `content`.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result with one text block.
    pub fn from_text(text: impl Into<String>) -> Self {
        Self::success(vec![Content::text(text)])
    }

    /// A structured result; `value` is also rendered as JSON text for
    /// clients that ignore `structuredContent`.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// A tool execution error (`isError: true`) with a message for the model.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(message)],
            is_error: Some(true),
            ..Default::default()
        }
    }

    /// Whether this is a tool execution error.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The first text block, if any.
    pub fn text(&self) -> Option<&str> {
        self.content.iter().find_map(Content::as_text)
    }
}
