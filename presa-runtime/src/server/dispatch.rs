//! Request validation and method dispatch.

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
use super::error::{Failure, InputRequired, ToolError};
use super::request_state::CallBinding;
use super::tasks::{self, CreateError, OrphanGuard, Run, TaskLink, too_many_tasks};
use super::tool::TaskPolicy;
use super::{RegisteredTool, ResponseStream, Server, ServerInner, TASKS_EXTENSION};
use crate::wire::{
    CacheScope, CallToolParams, CallToolResult, ClientCapabilities, DiscoverResult, ErrorObject,
    InputRequiredResult, InputResponses, ListToolsParams, ListToolsResult, Request, RequestMeta,
    Response, ResultMeta, ResultType, ServerCapabilities, ToolsCapability, codes, methods,
    task_methods,
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
            Ok(meta) if request.method == task_methods::SUBSCRIPTIONS_LISTEN => {
                let inner = Arc::clone(&self.inner);
                tasks::listen(inner, id, request.params, meta, caller.clone())
            }
            Ok(meta) if request.method.starts_with("tasks/") => {
                let inner = Arc::clone(&self.inner);
                let caller = caller.clone();
                ResponseStream::deferred(async move {
                    let outcome = inner
                        .task_request(&request.method, request.params, &meta, &caller)
                        .await;
                    into_response(id, outcome)
                })
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

/// How a call that was to become a task went.
enum TaskStart {
    /// The task exists; this is the `CreateTaskResult`.
    Started(Value),
    /// The store is full and the policy allows running synchronously.
    Declined(Run),
    /// The call fails.
    Failed(ErrorObject),
}

/// What happened first in a tool with an explicit task start.
enum FirstEvent {
    Finished(<Run as std::future::Future>::Output),
    StartRequested(tokio::sync::oneshot::Sender<()>),
}

fn into_response(id: crate::wire::RequestId, outcome: Result<Value, ErrorObject>) -> Response {
    match outcome {
        Ok(result) => Response::result(id, result),
        Err(error) => Response::error(Some(id), error),
    }
}

pub(crate) fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

pub(crate) fn parse_params<T: serde::de::DeserializeOwned>(
    params: Option<Value>,
) -> Result<T, ErrorObject> {
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
            methods::SERVER_DISCOVER
            | methods::TOOLS_LIST
            | methods::TOOLS_CALL
            | task_methods::SUBSCRIPTIONS_LISTEN => Ok(meta),
            task_methods::TASKS_GET | task_methods::TASKS_UPDATE | task_methods::TASKS_CANCEL
                if self.tasks.is_some() =>
            {
                Ok(meta)
            }
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

    pub(crate) fn result_meta(&self) -> Option<ResultMeta> {
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
        self: &Arc<Self>,
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
        let fixed_policy = tool.handler.static_task_policy();
        if let Some(policy) = fixed_policy {
            self.check_policy(policy, &params.name, &info)?;
        }
        let arguments = match tool.arguments.check(params.arguments.unwrap_or_default()) {
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
        let policy = match fixed_policy {
            Some(policy) => policy,
            None => match tool.handler.task_policy(&arguments, &ctx) {
                Ok(policy) => policy,
                // The policy asked for input: MRTR, before any task exists.
                Err(InputRequired) => {
                    let outcome = Err(Failure::InputRequired);
                    return self.conclude(&params.name, &binding, ctx.take_input_book(), outcome);
                }
            },
        };
        let as_task = self.check_policy(policy, &params.name, ctx.request())?;
        let mut run: Run = AssertUnwindSafe(tool.handler.call(ctx.clone(), arguments))
            .catch_unwind()
            .boxed();
        if as_task {
            if tool.handler.explicit_task_start() {
                return self
                    .run_until_task_start(tool, policy, &binding, ctx, caller, run)
                    .await;
            }
            match self
                .start_task(&params.name, policy, &ctx, caller, run)
                .await
            {
                TaskStart::Started(created) => return Ok(created),
                TaskStart::Failed(error) => return Err(error),
                TaskStart::Declined(declined) => run = declined,
            }
        }
        let outcome = settle_run(run.await);
        self.conclude(&params.name, &binding, ctx.take_input_book(), outcome)
    }

    /// Whether the call becomes a task; `-32021` for a `required` tool and
    /// a client without the extension.
    fn check_policy(
        &self,
        policy: TaskPolicy,
        tool: &str,
        info: &RequestInfo,
    ) -> Result<bool, ErrorObject> {
        let declared = info.client_capabilities.has_extension(TASKS_EXTENSION);
        match policy {
            TaskPolicy::Sync => Ok(false),
            TaskPolicy::Required if !declared => Err(missing_capability(
                format!("Tool `{tool}` runs only as a task"),
                tasks::tasks_capability(),
            )),
            TaskPolicy::Required if self.tasks.is_none() => Err(internal_error(
                tool,
                "the policy says `required`, but tasks are not enabled on the server \
                 (ServerBuilder::tasks)",
            )),
            TaskPolicy::Optional | TaskPolicy::Required => Ok(declared && self.tasks.is_some()),
        }
    }

    /// Creates the task, attaches the context and spawns the handler.
    async fn start_task(
        self: &Arc<Self>,
        tool: &str,
        policy: TaskPolicy,
        ctx: &Context,
        caller: &Caller,
        run: Run,
    ) -> TaskStart {
        // Every verified answer travels with the task, whether or not the
        // run has used it yet; the book keeps them for a run that stays
        // synchronous.
        let answers = ctx.with_input_book(|book| book.answers.clone());
        let mut orphan = OrphanGuard::default();
        let created = self.create_task(caller, answers, &mut orphan).await;
        let record = match created {
            Ok(record) => record,
            Err(error) => {
                orphan.disarm();
                return match error {
                    CreateError::Full { .. } if policy == TaskPolicy::Optional => {
                        TaskStart::Declined(run)
                    }
                    CreateError::Full { limit } => TaskStart::Failed(too_many_tasks(limit)),
                    CreateError::Store(error) => TaskStart::Failed(error),
                };
            }
        };
        let store = Arc::clone(&self.engine().store);
        ctx.attach_task(TaskLink::new(record.id.clone(), store));
        self.spawn_runner(tool.to_owned(), ctx.clone(), run);
        orphan.disarm();
        TaskStart::Started(self.create_task_result(&record))
    }

    /// Runs a tool declared with an explicit task start within the request
    /// until it calls `ctx.start_task()`, then turns it into a task.
    async fn run_until_task_start(
        self: &Arc<Self>,
        tool: &RegisteredTool,
        policy: TaskPolicy,
        binding: &CallBinding<'_>,
        ctx: Context,
        caller: &Caller,
        mut run: Run,
    ) -> Result<Value, ErrorObject> {
        let name = &tool.definition.name;
        let mut requested = ctx.allow_start();
        let first = tokio::select! {
            outcome = &mut run => FirstEvent::Finished(outcome),
            Ok(started) = &mut requested => FirstEvent::StartRequested(started),
        };
        let outcome = match first {
            FirstEvent::Finished(outcome) => outcome,
            FirstEvent::StartRequested(started) => {
                if ctx.with_input_book(|book| book.has_unmet_input()) {
                    // Input registered before the start wins, as in any run.
                    drop(run);
                    let outcome = Err(Failure::InputRequired);
                    return self.conclude(name, binding, ctx.take_input_book(), outcome);
                }
                match self.start_task(name, policy, &ctx, caller, run).await {
                    TaskStart::Started(created) => {
                        let _ = started.send(());
                        return Ok(created);
                    }
                    TaskStart::Failed(error) => return Err(error),
                    TaskStart::Declined(run) => {
                        let _ = started.send(());
                        run.await
                    }
                }
            }
        };
        self.conclude(name, binding, ctx.take_input_book(), settle_run(outcome))
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
    pub(crate) fn complete(&self, mut result: CallToolResult) -> Value {
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

/// A handler's outcome, with a caught panic as an internal failure.
pub(crate) fn settle_run(
    outcome: <Run as std::future::Future>::Output,
) -> Result<CallToolResult, Failure> {
    match outcome {
        Ok(result) => result.or_else(ToolError::settle),
        Err(panic) => Err(Failure::Internal(panic_message(&*panic))),
    }
}

pub(crate) fn missing_capability(message: String, required: ClientCapabilities) -> ErrorObject {
    ErrorObject::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
        .with_data(json!({ "requiredCapabilities": required }))
}

/// The generic `-32603`; the cause goes to the logs only.
pub(crate) fn internal_error(tool: &str, cause: &str) -> ErrorObject {
    report_internal(tool, cause);
    ErrorObject::new(codes::INTERNAL_ERROR, "Internal error")
}

/// Logs an internal failure. The cause never goes to the peer; it goes to
/// `tracing`, or to stderr when no subscriber is installed.
pub(crate) fn report_internal(tool: &str, cause: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!(tool, cause, "tool failed with an internal error");
    } else {
        eprintln!("presa: tool `{tool}` failed with an internal error: {cause}");
    }
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    format!("panic: {detail}")
}

pub(crate) fn to_value(result: impl Serialize) -> Value {
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
