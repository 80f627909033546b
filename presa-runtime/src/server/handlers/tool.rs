//! Tools: the trait `#[tool]` implements, return-value conversion, and the
//! task policy.
//!
//! You rarely implement [`ToolHandler`] by hand; `#[tool]` on an `async fn`
//! generates it. The trait is public so that tools can also be built at run
//! time (from a plugin manifest, say).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::server::input::context::{Context, RequestInfo};
use crate::server::middleware::stack::HandlerLayers;
use crate::server::request::error::{InputRequired, ToolError};
use crate::server::request::state::StateType;
use crate::wire::{CallToolResult, Content, Tool};

/// How a tool call may run with respect to the Tasks extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskPolicy {
    /// Always answered synchronously.
    #[default]
    Sync,
    /// A task when the client declares the Tasks extension, else synchronous.
    Optional,
    /// Only as a task; a client without the extension gets `-32021`.
    Required,
}

/// How a tool's calls get their [`TaskPolicy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolPolicy {
    /// Every call has this policy.
    Fixed(TaskPolicy),
    /// [`ToolHandler::task_policy`] picks one for each call.
    PerCall,
}

impl Default for ToolPolicy {
    fn default() -> Self {
        ToolPolicy::Fixed(TaskPolicy::Sync)
    }
}

/// Where a call that becomes a task turns into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskStart {
    /// The task is created before the handler runs (the default).
    #[default]
    Immediate,
    /// The handler runs within the request until it calls
    /// [`Context::start_task`], so it can ask for input over MRTR, or
    /// return a plain result, before the task exists
    /// (`#[tool(task_start = "explicit")]`).
    Explicit,
}

/// A function that picks the [`TaskPolicy`] of one call from its typed
/// arguments: `task = some_fn` in `#[tool]`. Two shapes are accepted:
///
/// - `fn(&BuildArgs, &RequestInfo) -> TaskPolicy`, which decides from the
///   arguments and the caller;
/// - `fn(&BuildArgs, &Context) -> Result<TaskPolicy, InputRequired>`, which
///   may also ask the user first: `ctx.elicit::<T>(key, message).now()?`
///   returns the answer, or registers the question and answers the call
///   over MRTR before any task exists.
///
/// `Marker` only tells the two shapes apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a task policy function",
    label = "expected a task policy function here",
    note = "a policy function is `fn(&{A}, &RequestInfo) -> TaskPolicy` or `fn(&{A}, &Context) -> Result<TaskPolicy, InputRequired>`"
)]
pub trait PolicyFn<A, Marker> {
    /// Picks the policy.
    fn decide(&self, arguments: &A, ctx: &Context) -> Result<TaskPolicy, InputRequired>;
}

impl<A, F> PolicyFn<A, fn(&RequestInfo)> for F
where
    F: Fn(&A, &RequestInfo) -> TaskPolicy,
{
    fn decide(&self, arguments: &A, ctx: &Context) -> Result<TaskPolicy, InputRequired> {
        Ok(self(arguments, ctx.request()))
    }
}

impl<A, F> PolicyFn<A, fn(&Context)> for F
where
    F: Fn(&A, &Context) -> Result<TaskPolicy, InputRequired>,
{
    fn decide(&self, arguments: &A, ctx: &Context) -> Result<TaskPolicy, InputRequired> {
        self(arguments, ctx)
    }
}

/// A tool the server can list and call.
///
/// A hand implementation writes `#[async_trait::async_trait]` on its
/// `impl`, as for every async trait of presa, and `call` as an `async fn`.
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "expected a tool here",
    note = "`#[tool] async fn build` generates `BuildTool`: register that, or implement `ToolHandler` yourself"
)]
pub trait ToolHandler: Send + Sync + 'static {
    /// The tool's listing: name, description and schemas.
    fn definition(&self) -> Tool;

    /// How the tool's calls get their task policy. The default is
    /// [`TaskPolicy::Sync`] for every call.
    fn policy(&self) -> ToolPolicy {
        ToolPolicy::default()
    }

    /// The policy of one call, for a tool whose [`policy`](Self::policy)
    /// is [`ToolPolicy::PerCall`]. `arguments` have passed the schema
    /// check. The policy may ask for input through `ctx` (with
    /// [`InputFuture::now`](crate::server::InputFuture::now)); returning
    /// [`InputRequired`] answers the call over MRTR, before any task
    /// exists, and the retry asks the policy again with the answers.
    fn task_policy(
        &self,
        arguments: &Map<String, Value>,
        ctx: &Context,
    ) -> Result<TaskPolicy, InputRequired> {
        let _ = (arguments, ctx);
        match self.policy() {
            ToolPolicy::Fixed(policy) => Ok(policy),
            ToolPolicy::PerCall => Ok(TaskPolicy::Sync),
        }
    }

    /// Where a call that becomes a task turns into one; see [`TaskStart`].
    fn task_start(&self) -> TaskStart {
        TaskStart::Immediate
    }

    /// Whether a task of this tool may run again from the start on another
    /// server, when the server running it dies (`#[tool(resumable)]`; see
    /// [`Lease`](crate::server::tasks::store::Lease)), and on its own
    /// server, which drops the handler while the task waits for input and
    /// runs it again when the answers come. Every question already answered
    /// then returns its answer at once, so the user is never asked twice;
    /// but the code before the last answered question runs again, so its
    /// side effects must be idempotent. The default is `false`: such a
    /// task fails with `-32603` when its server dies, and its handler
    /// stays parked while it waits.
    fn resumable(&self) -> bool {
        false
    }

    /// The OAuth scopes a caller must hold to use this (`scopes = [...]`
    /// on the macro; see `server::authorize` for the rules). The default is
    /// none.
    fn scopes(&self) -> &'static [&'static str] {
        &[]
    }

    /// The application state the tool reads, one entry per type (see
    /// [`FromContext::required_state`](crate::server::FromContext::required_state));
    /// `#[tool]` lists what its extractors declare. The default is none.
    /// [`ServerBuilder::build`](crate::server::ServerBuilder::build) panics if any
    /// of it was not registered.
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }

    /// The layers around this tool's runs, inside the server's (see
    /// [`middleware`](crate::server::middleware)): `layer = …` on the
    /// macro, or [`Layered`](crate::server::Layered). The server asks once,
    /// when the tool is registered. The default is none.
    fn layers(&self) -> HandlerLayers {
        HandlerLayers::new()
    }

    /// Whether the tool reads its arguments into Rust types that check
    /// them (`#[tool]` says yes), and builds its structured content from a
    /// typed value. Without the `json-schema` feature such a tool needs no
    /// JSON Schema validator; any other tool with a schema to check is
    /// refused at registration. The default is `false`.
    #[doc(hidden)]
    fn typed_arguments(&self) -> bool {
        false
    }

    /// Runs the tool. Argument errors are returned as `Ok` with
    /// `isError: true`, as the spec asks.
    async fn call(&self, ctx: Context, arguments: Map<String, Value>) -> ToolResult;
}

/// The outcome of one run of a tool, before it is put on the wire.
pub type ToolResult = Result<CallToolResult, ToolError>;

/// Converts a tool's return value into a result.
///
/// Implemented for `String`, `&'static str`, `()`, [`Content`],
/// `Vec<Content>`, [`Json<T>`], [`CallToolResult`] and `Result<T, E>` where
/// `T` converts and `E: Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type does not convert into a tool result",
    note = "return `String`, `&'static str`, `()`, `Content`, `Vec<Content>`, `Json<T>` or `CallToolResult`, or a `Result<_, E>` of one of them where `E: Into<ToolError>`"
)]
pub trait IntoToolResult {
    /// The conversion.
    fn into_tool_result(self) -> ToolResult;

    /// The `outputSchema` this return type implies, if any.
    fn output_schema() -> Option<Value> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> ToolResult {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::from_text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::from_text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::success(Vec::new()))
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        Ok(CallToolResult::success(self))
    }
}

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        self.map_err(Into::into).and_then(T::into_tool_result)
    }

    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

/// Structured output: serialized into `structuredContent`, with an
/// `outputSchema` derived from `T`. `T` should serialize to a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        let value = serde_json::to_value(&self.0).map_err(ToolError::internal)?;
        Ok(CallToolResult::structured(value))
    }

    fn output_schema() -> Option<Value> {
        Some(crate::schema::root_schema::<T>())
    }
}
