//! What a tool can fail with, and how each failure reaches the client.
//!
//! Two kinds of failure are kept apart, as the spec asks:
//!
//! - a **tool error** is part of the conversation with the model: it becomes
//!   a normal result with `isError: true` and the error's message as text;
//! - an **internal error** (or a panic) is the server's problem: the client
//!   sees `-32603` with a fixed message, and the cause goes only to `tracing`
//!   and stderr.

use std::fmt;

use crate::wire::CallToolResult;

/// The error type of a tool.
///
/// Convert into it with `?` from any [`std::error::Error`] (a tool error
/// carrying that error's message), or build one with [`ToolError::new`] or
/// [`ToolError::internal`].
///
/// **Mind what `?` shows the client.** A tool error is meant for the model,
/// so an error converted with `?` sends its `Display` text to the client. For
/// an error whose message may hold secrets (a database error quoting its
/// connection string, say), use `.map_err(ToolError::internal)?`: the client
/// then sees only `-32603 Internal error`. It deliberately does
/// not implement `std::error::Error` itself, as `anyhow::Error` does not, so
/// that the blanket conversion can exist.
pub struct ToolError(Repr);

enum Repr {
    Tool(String),
    Internal(Box<dyn std::error::Error + Send + Sync>),
    InputRequired,
}

impl ToolError {
    /// A tool error: the client gets `isError: true` with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(Repr::Tool(message.into()))
    }

    /// An internal error: the client gets `-32603` and never sees `cause`.
    pub fn internal(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ToolError(Repr::Internal(cause.into()))
    }

    /// Whether this error only signals that the call is waiting for input.
    pub fn is_input_required(&self) -> bool {
        matches!(self.0, Repr::InputRequired)
    }

    /// A tool error becomes the `isError` result the client sees; the
    /// other kinds are failures the server answers for.
    pub(crate) fn settle(self) -> Result<CallToolResult, Failure> {
        match self.0 {
            Repr::Tool(message) => Ok(CallToolResult::error(message)),
            Repr::Internal(cause) => Err(Failure::Internal(cause.to_string())),
            Repr::InputRequired => Err(Failure::InputRequired),
        }
    }
}

/// A tool run that produced no result to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// An internal error or a panic; the cause is for the logs only.
    Internal(String),
    /// `InputRequired` with no input request registered.
    InputRequired,
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Tool(m) => f.debug_tuple("ToolError::Tool").field(m).finish(),
            Repr::Internal(e) => f.debug_tuple("ToolError::Internal").field(e).finish(),
            Repr::InputRequired => f.write_str("ToolError::InputRequired"),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Tool(m) => f.write_str(m),
            Repr::Internal(e) => write!(f, "internal error: {e}"),
            Repr::InputRequired => f.write_str("waiting for client input"),
        }
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::new(e.to_string())
    }
}

/// Returned by `ctx.elicit`, `ctx.sample` and `ctx.list_roots` when the
/// answer is not there yet.
///
/// The request is already registered on the context when you see this
/// value; propagate it with `?` and the server answers the call with an
/// `InputRequiredResult`. It converts into [`ToolError`]; for your own
/// error type, add `impl From<InputRequired> for MyError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRequired;

impl fmt::Display for InputRequired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("waiting for client input")
    }
}

impl From<InputRequired> for ToolError {
    fn from(_: InputRequired) -> Self {
        ToolError(Repr::InputRequired)
    }
}
