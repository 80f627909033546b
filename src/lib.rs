//! # presa
//!
//! Build [MCP](https://modelcontextprotocol.io) servers and clients in Rust,
//! on the stateless 2026-07-28 revision, with tools that can run as tasks.
//!
//! The package is [`presa-mcp`](https://crates.io/crates/presa-mcp), and
//! its library is `presa`. So you add `presa-mcp = "0.1"` to your
//! `[dependencies]`, and your code says `use presa::…`. (The name `presa`
//! on crates.io belongs to another project.) These docs live at
//! [docs.rs/presa-mcp](https://docs.rs/presa-mcp).
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
//! # Contents
//!
//! **[The guide](guide)**, chapter by chapter; every example in it
//! compiles:
//!
//! 1. [Tools and extractors](guide::tools)
//! 2. [Asking the user](guide::asking_the_user)
//! 3. [Tasks](guide::tasks)
//! 4. [Prompts, resources and completion](guide::prompts_and_resources)
//! 5. [Transports and HTTP](guide::transports)
//! 6. [Authorization](guide::authorization)
//! 7. [Legacy hosts](guide::legacy_hosts)
//! 8. [The client](guide::client)
//! 9. [Replicas on Redis](guide::replicas)
//! 10. [Limits and bad input](guide::limits)
//! 11. [Skills](guide::skills)
//!
//! **The reference**, where the rules live, in order:
//!
//! | module | what it holds |
//! |---|---|
//! | [`server`] | the server: validation order, handlers, the builder, transports |
//! | [`server::tasks`] | the task engine, and [`server::tasks::store`], what a task store keeps |
//! | [`server::http`] | Streamable HTTP: the endpoint, authentication, OAuth, legacy sessions |
//! | [`client`] | the client: eras, MRTR, tasks, and [`client::oauth`], signing in |
//! | [`transport`] | moving frames: in-memory pairs, byte streams, stdio |
//! | [`wire`] | every message of the protocol, and the error codes in [`wire::codes`] |
//! | [`schema`] | JSON Schema for tool parameters and elicitation forms |
//!
//! # The map
//!
//! This crate is a facade over two crates: the macros of `presa_macros`
//! (`#[tool]`, `#[prompt]`, `#[resource]`, `#[derive(Elicit)]`) and
//! [`presa_runtime`], whose modules it re-exports. The runtime's module
//! docs give its layers, the one map of the tree.
//!
//! Two preludes hold what each side reaches for first: [`prelude`] for a
//! server author (its names are also at this crate's root) and
//! [`client::prelude`] for a client user.
//!
//! # Semver
//!
//! See [the runtime's policy](presa_runtime#semver): this crate follows it.

// docs.rs (nightly) marks each item that a feature gates with its badge.
#![cfg_attr(docsrs, feature(doc_cfg))]

/// Test kits for what you write yourself: the conformance kit of task
/// stores (feature `testing`).
#[cfg(feature = "testing")]
pub use presa_runtime::testing;
pub use presa_runtime::{client, schema, server, telemetry, transport, wire};

pub mod guide;

pub use prelude::*;
/// Embeds a folder of skills in the binary at compile time: see
/// [`server::skills`] and [the Skills chapter](guide::skills). Feature
/// `skills` (on by default).
#[cfg(feature = "skills")]
pub use presa_macros::embed_skills;

/// The names a server author reaches for first: `use presa::prelude::*;`.
/// They are also at the crate's root (`presa::Server`). A client user's
/// names are in [`client::prelude`].
pub mod prelude {
    pub use presa_macros::{Elicit, prompt, resource, tool};
    #[cfg(feature = "http-server")]
    pub use presa_runtime::server::Headers;
    pub use presa_runtime::server::{
        Caller, Claims, CompletionContext, Context, Elicitation, ErrorDetails, FormSchema,
        InputRequired, Json, RequestInfo, Scopes, Server, State, TaskPolicy, TaskSettings,
        ToolError, in_process,
    };
    pub use presa_runtime::wire::{
        CallToolResult, Content, GetPromptResult, PromptMessage, ReadResourceResult,
        ResourceContents,
    };
}

#[doc(hidden)]
pub use presa_runtime::__private;
