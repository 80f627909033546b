//! The registered tools: lookup by name, `tools/list` pages, and the checks
//! each tool's schemas pass once, at registration.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::args::ArgumentSchema;
use super::error::Failure;
use super::reply::invalid_params;
use super::state::StateType;
use super::tool::{TaskStart, ToolHandler, ToolPolicy};
use crate::wire::headers::{HeaderParam, header_params};
use crate::wire::{
    CacheScope, CallToolResult, ErrorObject, ListToolsParams, ListToolsResult, ResultMeta,
    ResultType, Tool,
};

/// A tool as the server holds it: its listing, its compiled schemas, its
/// handler, and how its calls relate to tasks.
pub(crate) struct RegisteredTool {
    pub definition: Tool,
    pub arguments: ArgumentSchema,
    /// The compiled `outputSchema`, when the tool declares one.
    output: Option<jsonschema::Validator>,
    pub handler: Arc<dyn ToolHandler>,
    pub policy: ToolPolicy,
    pub start: TaskStart,
    /// The application state the tool reads, checked at `build`.
    pub required_state: Vec<StateType>,
    /// The parameters mirrored into `Mcp-Param-*` headers over HTTP. The
    /// annotations are checked on every transport: a tool whose headers
    /// break the rules is a bug wherever it is served.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub headers: Vec<HeaderParam>,
}

impl RegisteredTool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// Checks a successful result against the tool's `outputSchema`: the
    /// spec has the server guarantee that structured content conforms. A
    /// tool error (`isError`) carries no structured content and is not
    /// checked. A result that does not conform is a bug in the tool, so it
    /// becomes an internal failure.
    pub fn check_output(&self, result: CallToolResult) -> Result<CallToolResult, Failure> {
        let Some(schema) = &self.output else {
            return Ok(result);
        };
        if result.is_error() {
            return Ok(result);
        }
        let Some(structured) = &result.structured_content else {
            return Err(Failure::Internal(format!(
                "tool `{}` declares an outputSchema but returned no structuredContent",
                self.name()
            )));
        };
        let violation = schema.iter_errors(structured).next().map(|error| {
            format!(
                "tool `{}` returned structuredContent that does not match its outputSchema: \
                 {error} at `{}`",
                self.name(),
                error.instance_path()
            )
        });
        match violation {
            None => Ok(result),
            Some(cause) => Err(Failure::Internal(cause)),
        }
    }
}

/// Why a tool cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RegistrationError {
    #[error("tool `{0}` is registered twice")]
    Duplicate(String),
    #[error("tool `{name}` has an invalid inputSchema: {reason}")]
    InputSchema { name: String, reason: String },
    #[error("tool `{name}` has an invalid outputSchema: {reason}")]
    OutputSchema { name: String, reason: String },
    #[error("tool `{name}` has an invalid inputSchema: {reason}")]
    HeaderAnnotation { name: String, reason: String },
}

/// The server's tools, in registration order.
pub(crate) struct ToolCatalog {
    tools: Vec<Arc<RegisteredTool>>,
    index: HashMap<String, usize>,
    /// How many tools one `tools/list` page holds.
    pub page_size: usize,
    /// The `ttlMs` of `tools/list` results.
    pub list_ttl: Duration,
}

impl Default for ToolCatalog {
    fn default() -> Self {
        ToolCatalog {
            tools: Vec::new(),
            index: HashMap::new(),
            page_size: 100,
            list_ttl: Duration::from_secs(300),
        }
    }
}

impl ToolCatalog {
    /// Adds `handler`, compiling its schemas; network `$ref`s are never
    /// fetched.
    pub fn register(&mut self, handler: impl ToolHandler) -> Result<(), RegistrationError> {
        let definition = handler.definition();
        let name = definition.name.clone();
        if self.index.contains_key(&name) {
            return Err(RegistrationError::Duplicate(name));
        }
        let arguments = ArgumentSchema::compile(&definition.input_schema).map_err(|reason| {
            RegistrationError::InputSchema {
                name: name.clone(),
                reason,
            }
        })?;
        let output = definition
            .output_schema
            .as_ref()
            .map(jsonschema::validator_for)
            .transpose()
            .map_err(|e| RegistrationError::OutputSchema {
                name: name.clone(),
                reason: e.to_string(),
            })?;
        let headers = header_params(&definition.input_schema).map_err(|e| {
            RegistrationError::HeaderAnnotation {
                name: name.clone(),
                reason: e.to_string(),
            }
        })?;
        let tool = RegisteredTool {
            headers,
            policy: handler.policy(),
            start: handler.task_start(),
            required_state: handler.required_state(),
            handler: Arc::new(handler),
            definition,
            arguments,
            output,
        };
        self.index.insert(name, self.tools.len());
        self.tools.push(Arc::new(tool));
        Ok(())
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.tools.iter().map(Arc::as_ref)
    }

    /// One page of `tools/list`, from the cursor in `params`.
    pub fn page(
        &self,
        params: ListToolsParams,
        meta: &ResultMeta,
    ) -> Result<ListToolsResult, ErrorObject> {
        let start = match &params.cursor {
            None => 0,
            Some(cursor) => decode_cursor(cursor)
                .filter(|&offset| offset < self.tools.len())
                .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))?,
        };
        let end = (start + self.page_size).min(self.tools.len());
        Ok(ListToolsResult {
            result_type: ResultType::Complete,
            tools: self.tools[start..end]
                .iter()
                .map(|t| t.definition.clone())
                .collect(),
            next_cursor: (end < self.tools.len()).then(|| encode_cursor(end)),
            ttl_ms: self.list_ttl.as_millis() as u64,
            cache_scope: CacheScope::Public,
            meta: Some(meta.clone()),
        })
    }
}

fn encode_cursor(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("presa:{offset}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&bytes)
        .ok()?
        .strip_prefix("presa:")?
        .parse()
        .ok()
}
