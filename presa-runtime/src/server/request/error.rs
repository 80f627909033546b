//! What a tool can fail with, and how each failure reaches the client.
//!
//! Two kinds of failure are kept apart, as the spec asks:
//!
//! - a **tool error** is part of the conversation with the model: it becomes
//!   a normal result with `isError: true` and the error's message as text;
//! - an **internal error** (or a panic) is the server's problem: the client
//!   sees `-32603` with a fixed message, and the cause goes only to `tracing`
//!   and stderr.
//!
//! Between the two sits an error a tool propagated with `?`: a tool error,
//! whose text the model sees by default (the ecosystem's habit). A server
//! that would rather not show unexpected error text sets
//! [`ErrorDetails::Masked`]; the model then reads a generic message and the
//! cause goes to `tracing`. A message made with [`ToolError::new`] is
//! always shown: it was written for the model.
//!
//! A prompt or a resource read has no `isError` result: no model reads its
//! failures, the client does, as JSON-RPC errors. There a
//! [`ToolError::new`] message rejects the request (`-32602`, the code of a
//! bad argument or an unknown resource), and every other error is internal
//! (`-32603`, the cause logged).

use std::fmt;

use crate::wire::CallToolResult;

/// What the model reads of an error a tool propagated with `?`:
/// [`ServerBuilder::error_details`](crate::server::ServerBuilder::error_details).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ErrorDetails {
    /// The error's own text (the default).
    #[default]
    Shown,
    /// A generic message; the text goes to `tracing`.
    Masked,
}

/// The text the model reads of a masked error.
pub const MASKED_ERROR_MESSAGE: &str = "The tool failed with an unexpected error.";

/// The error type of a tool.
///
/// Convert into it with `?` from any [`std::error::Error`], from
/// `anyhow::Error`, or from a `String` or `&str` (a tool error carrying that
/// text), or build one with [`ToolError::new`] (a message for the model) or
/// [`ToolError::internal`] (a failure of the server's own).
///
/// **Mind what `?` shows the client.** A tool error is meant for the model,
/// so an error converted with `?` sends its `Display` text to the client,
/// unless the server masks error details ([`ErrorDetails::Masked`]). For
/// an error whose message may hold secrets (a database error quoting its
/// connection string, say), use `.map_err(ToolError::internal)?`: the client
/// then sees only `-32603 Internal error`. It deliberately does not
/// implement `std::error::Error` itself, as `anyhow::Error` does not, so
/// that the blanket conversion can exist.
pub struct ToolError(Repr);

enum Repr {
    /// Written for the model with [`ToolError::new`]: always shown.
    Tool(String),
    /// Propagated with `?`: shown unless the server masks error details.
    Propagated(Box<dyn std::error::Error + Send + Sync>),
    Internal(Box<dyn std::error::Error + Send + Sync>),
    InputRequired,
}

impl ToolError {
    /// A tool error: the client gets `isError: true` with `message`, whatever
    /// the server's [`ErrorDetails`].
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

    /// For a request whose errors are JSON-RPC errors (a prompt, a
    /// resource read): a message written for the client rejects the
    /// request, anything else is an internal failure.
    pub(crate) fn into_failure(self) -> Failure {
        match self.0 {
            Repr::Tool(message) => Failure::Rejected(message),
            Repr::Propagated(error) | Repr::Internal(error) => Failure::Internal(error.to_string()),
            Repr::InputRequired => Failure::InputRequired,
        }
    }

    /// A tool error becomes the `isError` result the client sees, its text
    /// as `details` allow; the other kinds are failures the server answers
    /// for. `tool` names the tool in logs.
    pub(crate) fn settle(
        self,
        tool: &str,
        details: ErrorDetails,
    ) -> Result<CallToolResult, Failure> {
        match self.0 {
            Repr::Tool(message) => Ok(CallToolResult::error(message)),
            Repr::Propagated(error) => match details {
                ErrorDetails::Shown => Ok(CallToolResult::error(error.to_string())),
                ErrorDetails::Masked => {
                    tracing::warn!(tool, error = %error, "tool error masked from the client");
                    Ok(CallToolResult::error(MASKED_ERROR_MESSAGE))
                }
            },
            Repr::Internal(cause) => Err(Failure::Internal(cause.to_string())),
            Repr::InputRequired => Err(Failure::InputRequired),
        }
    }
}

/// A run that produced no result to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// An internal error or a panic; the cause is for the logs only.
    Internal(String),
    /// `InputRequired` with no input request registered.
    InputRequired,
    /// The handler refused the request with a message for the client (a
    /// prompt or a resource read only; a tool's refusal is its `isError`
    /// result).
    Rejected(String),
}

/// What a request runs, named in messages and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin<'a> {
    /// A tool, by name.
    Tool(&'a str),
    /// A prompt, by name.
    Prompt(&'a str),
    /// A resource, by the URI read.
    Resource(&'a str),
}

impl<'a> Origin<'a> {
    /// The name or URI alone, for logs.
    pub(crate) fn name(self) -> &'a str {
        match self {
            Origin::Tool(name) | Origin::Prompt(name) | Origin::Resource(name) => name,
        }
    }
}

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Tool(name) => write!(f, "Tool `{name}`"),
            Origin::Prompt(name) => write!(f, "Prompt `{name}`"),
            Origin::Resource(uri) => write!(f, "Resource `{uri}`"),
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Tool(m) => f.debug_tuple("ToolError::Tool").field(m).finish(),
            Repr::Propagated(e) => f.debug_tuple("ToolError::Propagated").field(e).finish(),
            Repr::Internal(e) => f.debug_tuple("ToolError::Internal").field(e).finish(),
            Repr::InputRequired => f.write_str("ToolError::InputRequired"),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Tool(m) => f.write_str(m),
            Repr::Propagated(e) => write!(f, "{e}"),
            Repr::Internal(e) => write!(f, "internal error: {e}"),
            Repr::InputRequired => f.write_str("waiting for client input"),
        }
    }
}

/// `?` on any error: [`std::error::Error`]s, `anyhow::Error`, `String`
/// and `&str` all convert into a boxed error.
impl<E: Into<Box<dyn std::error::Error + Send + Sync>>> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError(Repr::Propagated(error.into()))
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
