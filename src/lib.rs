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
//! #[tokio::main]
//! async fn main() {
//!     let server = Server::builder("jobs", "1")
//!         .tool(BuildTool)
//!         .tasks(TaskSettings::default())
//!         .build();
//!     server.serve_stdio().await;
//! }
//! ```
//!
//! # The map
//!
//! This crate is a facade over two crates: the macros of `presa_macros`
//! (`#[tool]`, `#[prompt]`, `#[resource]`, `#[derive(Elicit)]`) and
//! [`presa_runtime`], whose modules
//! are layered, each using only those above it:
//!
//! | module | what it is | uses |
//! |---|---|---|
//! | `util` (private) | a poison-tolerant lock, memory budgets in bytes, SHA-256 over JSON | nothing |
//! | [`wire`] | JSON-RPC and MCP message types, method names, error data | nothing |
//! | [`schema`] | JSON Schema for tool parameters and elicitation forms | nothing |
//! | [`transport`] | moving framed messages: in-memory pairs, byte streams, stdio | `util` |
//! | [`server`] | one request in, notifications and one response out; the task engine | `util`, `wire`, `schema`, `transport` |
//! | [`client`] | requests out, MRTR and tasks driven to the end | `util`, `wire`, `transport` |
//!
//! The server and the client know nothing of each other; they meet on the
//! wire (or on an in-memory channel, [`in_process`]). [`prelude`] holds
//! what a tool author and a client user reach for first.

pub use presa_macros::{Elicit, prompt, resource, tool};
/// Test kits for what you write yourself: the conformance kit of task
/// stores (feature `testing`).
#[cfg(feature = "testing")]
pub use presa_runtime::testing;
pub use presa_runtime::{client, schema, server, transport, wire};

pub use presa_runtime::client::{AwaitOptions, CallOutcome, Client};
pub use presa_runtime::server::CompletionContext;
#[cfg(feature = "http-server")]
pub use presa_runtime::server::Headers;
pub use presa_runtime::server::{
    Caller, Claims, Context, Elicitation, ErrorDetails, FormSchema, InputRequired, Json,
    RequestInfo, Scopes, Server, State, TaskPolicy, TaskSettings, ToolError, in_process,
};
pub use presa_runtime::wire::{
    CallToolResult, Content, ElicitResult, GetPromptResult, PromptMessage, ReadResourceResult,
    ResourceContents, SubscriptionFilter,
};

/// The names most tool authors and client users need:
/// `use presa::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AwaitOptions, CallOutcome, CallToolResult, Caller, Claims, Client, CompletionContext,
        Content, Context, Elicit, ElicitResult, Elicitation, ErrorDetails, FormSchema,
        GetPromptResult, InputRequired, Json, PromptMessage, ReadResourceResult, RequestInfo,
        ResourceContents, Scopes, Server, State, SubscriptionFilter, TaskPolicy, TaskSettings,
        ToolError, in_process, prompt, resource, tool,
    };
}

#[doc(hidden)]
pub use presa_runtime::__private;
