//! [`Invocation`], what a layer receives: one run of one handler;
//! [`Handled`], what it returns: the handler's outcome; and
//! [`HandlerService`], the service between the two that every layer
//! wraps.

use std::fmt;

use serde_json::{Map, Value};

use tower::BoxError;
use tower::util::BoxCloneSyncService;

use crate::server::caller::Caller;
use crate::server::input::context::Context;
use crate::server::request::error::ToolError;
use crate::util::BoxFuture;
use crate::wire::{CallToolResult, GetPromptResult, Method, ReadResourceResult};

/// The service every layer wraps: it takes an [`Invocation`] and returns
/// what the handler [`Handled`], or a layer's error.
pub type HandlerService = BoxCloneSyncService<Invocation, Handled, BoxError>;

/// The handler's run, waiting for the innermost layer to start it.
pub(crate) type HandlerRun =
    Box<dyn FnOnce(Context, Map<String, Value>) -> BoxFuture<Handled> + Send>;

/// One run of a tool, prompt or resource handler, as the layers around it
/// see it: the request of a [`HandlerService`].
///
/// It says which handler runs ([`method`](Self::method) and
/// [`name`](Self::name)), with what ([`arguments`](Self::arguments)), for
/// whom ([`caller`](Self::caller)) and where ([`task_id`](Self::task_id)).
/// The innermost service runs the handler with it.
pub struct Invocation {
    method: Method,
    name: String,
    arguments: Map<String, Value>,
    ctx: Context,
    run: HandlerRun,
    /// The handler's own layers, which the invocation has not passed
    /// through yet.
    pub(crate) own_layers: Option<HandlerService>,
}

impl Invocation {
    /// An invocation of the handler that `run` starts. `method` is
    /// `tools/call`, `prompts/get` or `resources/read`; `name` the tool or
    /// prompt's name, or the URI read.
    pub(crate) fn new(
        method: Method,
        name: impl Into<String>,
        arguments: Map<String, Value>,
        ctx: Context,
        run: HandlerRun,
    ) -> Self {
        Invocation {
            method,
            name: name.into(),
            arguments,
            ctx,
            run,
            own_layers: None,
        }
    }

    /// What runs: [`Method::ToolsCall`], [`Method::PromptsGet`] or
    /// [`Method::ResourcesRead`].
    pub fn method(&self) -> Method {
        self.method
    }

    /// The tool or prompt's name, or the URI a resource read asks for.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments, after the server checked them: a tool's arguments
    /// object, a prompt's arguments (each a string), or the variables a
    /// resource template matched in the URI.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// Who calls: subject, issuer, scopes and token claims.
    pub fn caller(&self) -> &Caller {
        &self.ctx.request().caller
    }

    /// The context the handler runs with.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The task this run belongs to, when the call runs as a task. A tool
    /// with `task_start = "explicit"` starts its run within the request,
    /// so its layers see no task yet.
    pub fn task_id(&self) -> Option<&str> {
        self.ctx.task_id()
    }

    /// The headers of the HTTP request, without its credentials; `None`
    /// off HTTP, and in a task resumed from its store.
    #[cfg(feature = "http-server")]
    pub fn headers(&self) -> Option<&axum::http::HeaderMap> {
        self.caller().http_headers.as_deref()
    }

    /// What a layer returns to answer in place of the handler with
    /// `error`: the client sees what it would see had the handler returned
    /// it (see the rules of [`middleware`](super)).
    pub fn fail(self, error: ToolError) -> Handled {
        Handled::failed(self.method, error)
    }

    /// Starts the handler's run.
    pub(crate) fn run(self) -> BoxFuture<Handled> {
        (self.run)(self.ctx, self.arguments)
    }
}

impl fmt::Debug for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invocation")
            .field("method", &self.method)
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .field("caller", self.caller())
            .field("task_id", &self.task_id())
            .finish_non_exhaustive()
    }
}

/// What a handler came to, as the layers around it see it: the response
/// of a [`HandlerService`]. Each variant holds the handler's own outcome.
#[derive(Debug)]
pub enum Handled {
    /// A tool's outcome. A result with `isError: true` is `Ok`.
    Tool(Result<CallToolResult, ToolError>),
    /// A prompt's outcome.
    Prompt(Result<GetPromptResult, ToolError>),
    /// A resource read's outcome.
    Resource(Result<ReadResourceResult, ToolError>),
}

impl Handled {
    /// The outcome of a handler of `method` that failed with `error`.
    pub(crate) fn failed(method: Method, error: ToolError) -> Self {
        match method {
            Method::PromptsGet => Handled::Prompt(Err(error)),
            Method::ResourcesRead => Handled::Resource(Err(error)),
            _ => Handled::Tool(Err(error)),
        }
    }

    /// The error the handler failed with, if it did. A tool's result with
    /// `isError: true` is not one: see [`is_success`](Self::is_success).
    pub fn error(&self) -> Option<&ToolError> {
        match self {
            Handled::Tool(outcome) => outcome.as_ref().err(),
            Handled::Prompt(outcome) => outcome.as_ref().err(),
            Handled::Resource(outcome) => outcome.as_ref().err(),
        }
    }

    /// Whether the handler returned a result, and for a tool one without
    /// `isError: true`.
    pub fn is_success(&self) -> bool {
        match self {
            Handled::Tool(outcome) => outcome.as_ref().is_ok_and(|result| !result.is_error()),
            Handled::Prompt(outcome) => outcome.is_ok(),
            Handled::Resource(outcome) => outcome.is_ok(),
        }
    }

    /// A tool's outcome; a layer that answered a tool call with another
    /// kind of result broke the call, which is an internal error.
    pub(crate) fn into_tool(self) -> Result<CallToolResult, ToolError> {
        match self {
            Handled::Tool(outcome) => outcome,
            other => Err(mismatch("tools/call", &other)),
        }
    }

    /// A prompt's outcome, as [`into_tool`](Self::into_tool).
    pub(crate) fn into_prompt(self) -> Result<GetPromptResult, ToolError> {
        match self {
            Handled::Prompt(outcome) => outcome,
            other => Err(mismatch("prompts/get", &other)),
        }
    }

    /// A resource read's outcome, as [`into_tool`](Self::into_tool).
    pub(crate) fn into_resource(self) -> Result<ReadResourceResult, ToolError> {
        match self {
            Handled::Resource(outcome) => outcome,
            other => Err(mismatch("resources/read", &other)),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Handled::Tool(_) => "a tool's",
            Handled::Prompt(_) => "a prompt's",
            Handled::Resource(_) => "a resource's",
        }
    }
}

/// The internal error of a layer that answered `method` with another
/// kind of outcome.
fn mismatch(method: &str, handled: &Handled) -> ToolError {
    ToolError::internal(format!(
        "a layer answered a {method} with {} outcome",
        handled.kind()
    ))
}
