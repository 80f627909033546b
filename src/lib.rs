//! # presa
//!
//! Build [MCP](https://modelcontextprotocol.io) servers and clients in Rust,
//! on the stateless 2026-07-28 revision, with tools that can run as tasks.
//!
//! ```no_run
//! use presa::prelude::*;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
//! struct Confirm {
//!     ok: bool,
//! }
//!
//! /// Builds a target.
//! #[tool(task = "optional")]
//! async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
//!     match ctx.elicit::<Confirm>("confirm", format!("Build {target}?")).await? {
//!         Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
//!         _ => Err(ToolError::new("not confirmed")),
//!     }
//! }
//!
//! # async fn run() {
//! let server = Server::builder("jobs", "1").tool(BuildTool).build();
//! presa::server::serve(server, presa::transport::stdio(presa::transport::DEFAULT_MAX_MESSAGE_SIZE), Caller::anonymous()).await;
//! # }
//! ```
//!
//! This crate is a facade: it re-exports [`presa_runtime`] (wire types,
//! server, client, transports) and the macros of `presa_macros`.

pub use presa_macros::{Elicit, tool};
pub use presa_runtime::{client, schema, server, transport, wire};

pub use presa_runtime::client::{AwaitOptions, CallOutcome, Client};
pub use presa_runtime::server::{
    Caller, Context, Elicitation, InputRequired, Json, RequestInfo, Server, State, TaskPolicy,
    TaskSettings, ToolError, in_process,
};
pub use presa_runtime::wire::{CallToolResult, Content};

/// The names most tool authors need: `use presa::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AwaitOptions, CallOutcome, CallToolResult, Caller, Client, Content, Context, Elicit,
        Elicitation, InputRequired, Json, RequestInfo, Server, State, TaskPolicy, TaskSettings,
        ToolError, in_process, tool,
    };
}

#[doc(hidden)]
pub use presa_runtime::__private;
