//! The benchmark server written with presa: `echo`, `work`, `ask` and
//! `resumable`.
//!
//! - `echo` answers with its `text` argument: the cost of a call, nothing
//!   else.
//! - `work` returns at once, and runs as a task for a client that declares
//!   the Tasks extension (`task = "optional"`): the task lifecycle and
//!   scale figures use it, its tiny result keeping the payload out of the
//!   memory figure.
//! - `ask` elicits once, as a task too; nobody answers in the scale
//!   figure, so its tasks stay parked at `input_required`. Called without
//!   tasks, it asks over MRTR: the stdio driver's MRTR workload answers it
//!   in the request itself.
//! - `resumable` is `ask` declared `resumable`: its task can be run again
//!   from the start with the answers it has, so a parked one need not keep
//!   its handler alive. The scale figure parks its tasks the same way, to
//!   measure what that saves.
//!
//! The limits are raised so that 100 000 live tasks fit: the defaults keep
//! 1 000 tasks, 100 running per caller.

use presa::prelude::*;
use presa::server::{ServerBuilder, TaskSettings, TaskStore};
use serde::Deserialize;
use tower::layer::util::Identity;

use crate::wire::ASK_KEY;

/// The answer `ask` waits for.
#[derive(Deserialize, schemars::JsonSchema, Elicit)]
pub struct Confirm {
    /// Whether to go ahead.
    pub ok: bool,
}

/// Echoes its input.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Returns at once; a task for clients that declare tasks.
#[tool(task = "optional")]
async fn work() -> String {
    "done".to_owned()
}

/// Asks once, then answers; a task for clients that declare tasks.
#[tool(task = "optional")]
async fn ask(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>(ASK_KEY, "Go ahead?").await?;
    Ok(answer.accepted().is_some_and(|c| c.ok).to_string())
}

/// Asks once, then answers, as `ask` does; a resumable task for clients
/// that declare tasks.
#[tool(task = "optional", resumable)]
async fn resumable(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>(ASK_KEY, "Go ahead?").await?;
    Ok(answer.accepted().is_some_and(|c| c.ok).to_string())
}

/// The benchmark server, with room for a million tasks.
pub fn server() -> Server {
    builder().build()
}

/// The benchmark server with one empty tower layer around every handler
/// (`tower::layer::util::Identity`): each call runs through the tower
/// path, and the layer adds no work of its own. Its gap to [`server`] is
/// what the tower path costs.
pub fn layered_server() -> Server {
    builder().layer(Identity::new()).build()
}

/// The benchmark server keeping its tasks in `store`, for the figures that
/// compare task stores.
pub fn server_with_store(store: impl TaskStore) -> Server {
    builder().task_store(store).build()
}

/// The benchmark server's tools and limits, before its task store is set.
fn builder() -> ServerBuilder {
    Server::builder("bench-presa", "1")
        .tool(EchoTool)
        .tool(WorkTool)
        .tool(AskTool)
        .tool(ResumableTool)
        .tasks(
            TaskSettings::default()
                .max_tasks(1_000_000)
                .max_tasks_per_subject(1_000_000)
                .max_store_size(1 << 30),
        )
        .memory_limit(4 << 30)
        .connection_memory_limit(4 << 30)
}
