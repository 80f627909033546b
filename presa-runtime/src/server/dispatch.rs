//! Request validation and method dispatch.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::FutureExt;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::connection::Caller;
use super::context::{Context, ContextParts, InputBook, RequestInfo};
use super::error::Failure;
use super::error::ToolError;
use super::request_state::CallBinding;
use super::tool::TaskPolicy;
use super::{ResponseStream, Server, ServerInner, TASKS_EXTENSION};
use crate::wire::{
    CacheScope, CallToolParams, CallToolResult, ClientCapabilities, DiscoverResult, ErrorObject,
    InputRequiredResult, InputResponses, ListToolsParams, ListToolsResult, Request, RequestMeta,
    Response, ResultMeta, ResultType, ServerCapabilities, ToolsCapability, codes, methods,
};

/// How many notifications a handler may queue before `progress`/`log` wait.
const NOTIFICATION_BUFFER: usize = 64;

impl Server {
    /// Handles one request: validates it, runs it, and returns the stream of
    /// messages that answer it. Nothing runs until the stream is polled.
    pub fn handle(&self, mut request: Request, caller: &Caller) -> ResponseStream {
        let id = request.id.clone();
        match self.inner.prepare(&mut request) {
            Err(error) => ResponseStream::ready(Response::error(Some(id), error)),
            Ok(meta) if request.method == methods::TOOLS_CALL => {
                let (tx, rx) = mpsc::channel(NOTIFICATION_BUFFER);
                let inner = Arc::clone(&self.inner);
                let caller = caller.clone();
                let params = request.params;
                let handler = async move {
                    let call = inner.call_tool(params, meta, &caller, tx);
                    // The tool body has its own guard; this one catches a
                    // panicking per-call policy or `Deserialize` impl.
                    let outcome =
                        AssertUnwindSafe(call)
                            .catch_unwind()
                            .await
                            .unwrap_or_else(|panic| {
                                Err(internal_error("(dispatch)", &panic_message(&*panic)))
                            });
                    into_response(id, outcome)
                }
                .boxed();
                ResponseStream::new(rx, handler)
            }
            Ok(_) => {
                let outcome = match request.method.as_str() {
                    methods::SERVER_DISCOVER => Ok(self.inner.discover()),
                    methods::TOOLS_LIST => self.inner.list_tools(request.params),
                    _ => unreachable!("prepare admits only known methods"),
                };
                ResponseStream::ready(into_response(id, outcome))
            }
        }
    }
}

fn into_response(id: crate::wire::RequestId, outcome: Result<Value, ErrorObject>) -> Response {
    match outcome {
        Ok(result) => Response::result(id, result),
        Err(error) => Response::error(Some(id), error),
    }
}

fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

fn parse_params<T: serde::de::DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    serde_json::from_value(params.unwrap_or_else(|| json!({})))
        .map_err(|e| invalid_params(format!("Invalid params: {e}")))
}

impl ServerInner {
    /// Steps 1 to 3 of validation; takes the request's `_meta` out of its
    /// params and returns it parsed.
    fn prepare(&self, request: &mut Request) -> Result<RequestMeta, ErrorObject> {
        if request.method == methods::INITIALIZE {
            return Err(self.legacy_initialize(request));
        }
        let meta = request
            .params
            .as_mut()
            .and_then(|p| p.as_object_mut())
            .and_then(|p| p.remove("_meta"))
            .ok_or_else(|| {
                invalid_params(
                    "Invalid params: missing `_meta`; every 2026-07-28 request carries \
                     io.modelcontextprotocol/protocolVersion and clientCapabilities there",
                )
            })?;
        let meta: RequestMeta = serde_json::from_value(meta)
            .map_err(|e| invalid_params(format!("Invalid params: `_meta`: {e}")))?;
        if !self.supported_versions.contains(&meta.protocol_version) {
            return Err(ErrorObject::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                format!(
                    "Unsupported protocol version {:?}; this server supports {}",
                    meta.protocol_version,
                    self.supported_versions.join(", ")
                ),
            )
            .with_data(json!({
                "supported": self.supported_versions,
                "requested": meta.protocol_version,
            })));
        }
        match request.method.as_str() {
            methods::SERVER_DISCOVER | methods::TOOLS_LIST | methods::TOOLS_CALL => Ok(meta),
            other => Err(ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                format!("Method not found: `{other}`"),
            )),
        }
    }

    fn legacy_initialize(&self, request: &Request) -> ErrorObject {
        let requested = request
            .params
            .as_ref()
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        ErrorObject::new(
            codes::METHOD_NOT_FOUND,
            format!(
                "`initialize` is not supported: this server speaks only MCP protocol version(s) {} \
                 (stateless, no handshake), and the client asked for {requested}. \
                 Upgrade the client to a 2026-07-28 MCP client.",
                self.supported_versions.join(", ")
            ),
        )
        .with_data(json!({ "supported": self.supported_versions, "requested": requested }))
    }

    fn result_meta(&self) -> Option<ResultMeta> {
        Some(ResultMeta {
            server_info: Some(self.info.clone()),
            other: Map::new(),
        })
    }

    fn discover(&self) -> Value {
        to_value(DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: self.supported_versions.clone(),
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability { list_changed: None }),
                logging: Some(Map::new()),
                extensions: (!self.extensions.is_empty()).then(|| self.extensions.clone()),
                ..Default::default()
            },
            instructions: self.instructions.clone(),
            ttl_ms: self.discover_ttl.as_millis() as u64,
            cache_scope: CacheScope::Public,
            meta: self.result_meta(),
        })
    }

    fn list_tools(&self, params: Option<Value>) -> Result<Value, ErrorObject> {
        let params: ListToolsParams = parse_params(params)?;
        let start = match &params.cursor {
            None => 0,
            Some(cursor) => decode_cursor(cursor)
                .filter(|&offset| offset < self.tools.len())
                .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))?,
        };
        let end = (start + self.page_size).min(self.tools.len());
        Ok(to_value(ListToolsResult {
            result_type: ResultType::Complete,
            tools: self.tools[start..end]
                .iter()
                .map(|t| t.definition.clone())
                .collect(),
            next_cursor: (end < self.tools.len()).then(|| encode_cursor(end)),
            ttl_ms: self.list_ttl.as_millis() as u64,
            cache_scope: CacheScope::Public,
            meta: self.result_meta(),
        }))
    }

    async fn call_tool(
        &self,
        params: Option<Value>,
        meta: RequestMeta,
        caller: &Caller,
        notifier: mpsc::Sender<crate::wire::Message>,
    ) -> Result<Value, ErrorObject> {
        let params: CallToolParams = parse_params(params)?;
        let Some(&index) = self.tool_index.get(&params.name) else {
            return Err(invalid_params(format!("Unknown tool: `{}`", params.name)));
        };
        let tool = &self.tools[index];
        let info = RequestInfo {
            protocol_version: meta.protocol_version,
            client_capabilities: meta.client_capabilities,
            client_info: meta.client_info,
            subject: caller.subject.clone(),
        };
        let arguments = params.arguments.unwrap_or_default();
        check_policy(
            tool.handler.task_policy(&arguments, &info),
            &params.name,
            &info,
        )?;
        let arguments = match tool.arguments.check(arguments) {
            Ok(arguments) => arguments,
            Err(error) => return Ok(self.complete(error.into_result())),
        };
        let binding = CallBinding::tool_call(caller.subject.as_deref(), &params.name, &arguments);
        let answers =
            self.gather_answers(&binding, params.request_state, params.input_responses)?;
        let ctx = Context::new(ContextParts {
            info,
            answers,
            notifier: Some(notifier),
            progress_token: meta.progress_token,
            log_level: meta.log_level,
            state: Arc::clone(&self.state),
        });
        let run = tool.handler.call(ctx.clone(), arguments);
        let outcome = match AssertUnwindSafe(run).catch_unwind().await {
            Err(panic) => Err(Failure::Internal(panic_message(&*panic))),
            Ok(result) => result.or_else(ToolError::settle),
        };
        self.conclude(&params.name, &binding, ctx.take_input_book(), outcome)
    }

    /// Turns a finished run into the response: registered input first, then
    /// the tool's own outcome.
    fn conclude(
        &self,
        tool: &str,
        binding: &CallBinding<'_>,
        mut book: InputBook,
        outcome: Result<CallToolResult, Failure>,
    ) -> Result<Value, ErrorObject> {
        if let Some(key) = book.conflict {
            let cause = format!("input key `{key}` was used for two different requests in one run");
            return Err(internal_error(tool, &cause));
        }
        if let Some(missing) = book.missing {
            let message = format!("Tool `{tool}` needs input the client cannot give");
            return Err(missing_capability(message, missing));
        }
        if !book.pending.is_empty() {
            let asked = book.pending.keys().cloned().collect();
            let state = self
                .state_codec
                .seal(binding, book.carried_answers(), asked);
            return Ok(to_value(InputRequiredResult {
                result_type: ResultType::InputRequired,
                input_requests: Some(book.pending),
                request_state: Some(state),
                meta: self.result_meta(),
            }));
        }
        match outcome {
            Ok(result) => Ok(self.complete(result)),
            Err(Failure::Internal(cause)) => Err(internal_error(tool, &cause)),
            Err(Failure::InputRequired) => Err(internal_error(
                tool,
                "the tool returned InputRequired without a pending input request",
            )),
        }
    }

    /// A final tool result as sent: `resultType: complete`, with `serverInfo`
    /// beside whatever `_meta` the tool set.
    fn complete(&self, mut result: CallToolResult) -> Value {
        result.result_type = ResultType::Complete;
        result
            .meta
            .get_or_insert_with(ResultMeta::default)
            .server_info = Some(self.info.clone());
        to_value(result)
    }

    /// Earlier answers from the verified `requestState`, plus this round's.
    fn gather_answers(
        &self,
        binding: &CallBinding<'_>,
        request_state: Option<String>,
        responses: Option<InputResponses>,
    ) -> Result<InputResponses, ErrorObject> {
        let responses = responses.unwrap_or_default();
        let Some(state) = request_state else {
            return Ok(responses);
        };
        let payload = self
            .state_codec
            .open(&state, binding)
            .map_err(|e| invalid_params(format!("Invalid params: {e}")))?;
        let mut answers = payload.answers;
        for (key, value) in responses {
            if payload.asked.contains(&key) {
                answers.insert(key, value);
            }
        }
        Ok(answers)
    }
}

/// A tool that runs only as a task refuses a client without the extension.
fn check_policy(policy: TaskPolicy, tool: &str, info: &RequestInfo) -> Result<(), ErrorObject> {
    if policy != TaskPolicy::Required || info.client_capabilities.has_extension(TASKS_EXTENSION) {
        return Ok(());
    }
    Err(missing_capability(
        format!("Tool `{tool}` runs only as a task"),
        ClientCapabilities {
            extensions: Some(BTreeMap::from([(TASKS_EXTENSION.to_owned(), json!({}))])),
            ..Default::default()
        },
    ))
}

fn missing_capability(message: String, required: ClientCapabilities) -> ErrorObject {
    ErrorObject::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
        .with_data(json!({ "requiredCapabilities": required }))
}

/// The generic `-32603`; the cause goes to the logs only.
fn internal_error(tool: &str, cause: &str) -> ErrorObject {
    report_internal(tool, cause);
    ErrorObject::new(codes::INTERNAL_ERROR, "Internal error")
}

/// Logs an internal failure. The cause never goes to the peer; it goes to
/// `tracing`, or to stderr when no subscriber is installed.
fn report_internal(tool: &str, cause: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!(tool, cause, "tool failed with an internal error");
    } else {
        eprintln!("presa: tool `{tool}` failed with an internal error: {cause}");
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    format!("panic: {detail}")
}

fn to_value(result: impl Serialize) -> Value {
    serde_json::to_value(result).expect("results always serialize")
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
