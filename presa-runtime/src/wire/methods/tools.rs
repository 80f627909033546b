//! `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::protocol::{
    InputResponses, ListResult, PaginatedParams, RequestMeta, ResultMeta, ResultType, mrtr_params,
};
use crate::wire::values::Content;

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
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Tool {
    /// A tool called `name` taking arguments that match `input_schema`,
    /// with nothing else said of it. This is how a tool is written without
    /// `#[tool]`: its [`ToolHandler`](crate::server::ToolHandler) lists
    /// what this builds, with the fields it needs set over it.
    ///
    /// ```
    /// use presa_runtime::server::{Context, ToolHandler, ToolResult};
    /// use presa_runtime::wire::{CallToolResult, Tool};
    /// use serde_json::{Map, Value, json};
    ///
    /// /// Echoes its `text` argument.
    /// struct Echo;
    ///
    /// #[async_trait::async_trait]
    /// impl ToolHandler for Echo {
    ///     fn definition(&self) -> Tool {
    ///         Tool {
    ///             description: Some("Echoes its text.".into()),
    ///             ..Tool::new("echo", json!({
    ///                 "type": "object",
    ///                 "properties": {"text": {"type": "string"}},
    ///                 "required": ["text"],
    ///             }))
    ///         }
    ///     }
    ///
    ///     async fn call(&self, _ctx: Context, arguments: Map<String, Value>) -> ToolResult {
    ///         let text = arguments["text"].as_str().unwrap_or_default();
    ///         Ok(CallToolResult::from_text(text))
    ///     }
    /// }
    ///
    /// assert_eq!(Echo.definition().name, "echo");
    /// ```
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            meta: None,
        }
    }
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
pub type ListToolsResult = ListResult<ToolsPage>;

/// The tools of one `tools/list` page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolsPage {
    /// The tools, in a stable order.
    pub tools: Vec<Tool>,
}

mrtr_params! {
    /// Params of `tools/call`: which tool, with which arguments.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct CallToolParams {
        /// The tool to call.
        pub name: String,
        /// The arguments, matching the tool's `inputSchema`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<Map<String, Value>>,
    }
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
