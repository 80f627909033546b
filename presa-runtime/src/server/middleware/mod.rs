//! Middleware: [tower] layers around the handlers of tools, prompts and
//! resources.
//!
//! A layer is any [`tower::Layer`] over [`HandlerService`], a service that
//! takes an [`Invocation`] (which handler, its arguments, the caller, the
//! task) and returns what the handler [`Handled`]. Existing tower
//! middleware works unchanged: `tower::timeout`, `tower::limit`,
//! `tower::load_shed`, a `ServiceBuilder` stack of them, or a layer of
//! your own, which [`from_fn`] writes as an async function. You add a layer for every handler with
//! [`ServerBuilder::layer`](crate::server::ServerBuilder::layer), and for one
//! handler with `#[tool(layer = …)]` (the same on `#[prompt]` and
//! `#[resource]`) or [`Layered`](crate::server::Layered).
//!
//! # Rules
//!
//! 1. **A layer wraps the handler wherever it runs.** A call answered in
//!    its request runs through the layers there. A call that runs as a
//!    task runs through them inside the task, so a timeout bounds the
//!    task's run, not the request that created it. A resumable task that
//!    parked for input drops its run, layers and all, and runs through
//!    the layers again when it resumes; a task that is not resumable
//!    keeps its run, and its layers, while it waits.
//! 2. **Order.** The server's layers are outside the handler's own. Among
//!    the server's, the first [`layer`](crate::server::ServerBuilder::layer) call is the
//!    outermost, as in a `tower::ServiceBuilder`: an invocation passes
//!    through the layers in the order you wrote them, and the result
//!    comes back the other way. The same holds among a handler's own.
//! 3. **Each MRTR round is one invocation.** A call that asks the user
//!    for input ends its round with the question; the client's retry is
//!    a new request, which may reach another replica, and runs the
//!    handler again from the start. So a layer sees every round, and the
//!    retry has its own caller and its own limits. The handler's answer
//!    to a round that asked is [`Handled`] with a result of
//!    [`ToolError::is_input_required`](crate::server::ToolError::is_input_required).
//!    Inside a task no round ends: the run waits for its answer, within
//!    one invocation.
//! 4. **Errors.** A layer that answers in the handler's place returns
//!    `Ok`, for example `Ok(invocation.fail(ToolError::new("…")))`; the
//!    client then sees what it would see had the handler returned that.
//!    A layer's own error (`Err`, such as `tower::timeout`'s `Elapsed`) is
//!    handled as an error the handler propagated with `?`: a tool's call
//!    gets a result with `isError: true` and the error's text (a generic
//!    text when the server masks error details), and a prompt or a
//!    resource read gets `-32603`, the cause logged.
//! 5. **Cost.** A server with no layers runs its handlers directly. Each
//!    layered invocation clones the service stack, as tower services are
//!    meant to be used, and boxes its future.
//!
//! A [`Invocation`] is not [`Clone`]: it holds the handler's run, which
//! runs once, so `tower::retry` does not apply to it.
//!
//! Layers, bottom up: invocation, stack, from_fn.

pub(crate) mod from_fn;
pub(crate) mod invocation;
pub(crate) mod stack;

pub use from_fn::{FromFn, FromFnService, Next, from_fn};
pub use invocation::{Handled, HandlerService, Invocation};
pub use stack::{HandlerLayers, HandlerMiddleware};
