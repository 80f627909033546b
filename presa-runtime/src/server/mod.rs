//! The server: a transport-agnostic core that turns one request into a
//! [`ResponseStream`].
//!
//! ```text
//!   transport ──frames──▶ connection ──Request──▶ Server::handle ──▶ ResponseStream
//!       ▲                     │ (one tokio task per request,                │
//!       └──────frames─────────┘  cancellation by id)          notifications, then one response
//! ```
//!
//! [`Server`] knows nothing of sockets or stdio; [`serve`] drives it over any
//! [`FrameChannel`](crate::transport::FrameChannel), one tokio task per
//! request, and [`in_process`] serves it on an in-memory channel.
//! Because the 2026-07-28 protocol is stateless, every request is validated
//! on its own, in this order:
//!
//! 1. missing `_meta`, `protocolVersion` or `clientCapabilities` → `-32602`;
//! 2. unsupported protocol version → `-32022` with `{supported, requested}`;
//! 3. unknown or removed method (`initialize`, `ping`, …) → `-32601`; so are
//!    the prompt, resource and completion methods on a server that does not
//!    offer them;
//! 4. unknown tool or prompt → `-32602`; a URI that names no resource →
//!    `-32602` with `data.uri`;
//! 5. a capability the tool or its input requests need that the client did
//!    not declare → `-32021` with `requiredCapabilities`. (This check needs
//!    the tool, so it follows the lookups. A per-call task policy runs after
//!    the argument check, since it reads the typed arguments, so for such a
//!    tool bad arguments are reported before a missing Tasks declaration.)
//!
//! Steps 1 to 3 happen once per request, in `request/validate`, which parses the
//! method into a [`Method`](crate::wire::Method); everything after matches on
//! that enum. Steps 4 and 5 belong to each method: `tools/call`
//! (`methods/tools_call.rs`), `prompts/get` (`methods/prompts_get.rs`),
//! `resources/read` (`methods/resources_read.rs`).
//!
//! # Tools, prompts and resources
//!
//! The three are handlers of the same shape: a trait the macros implement
//! ([`ToolHandler`], [`PromptHandler`], [`ResourceHandler`]), run with a
//! [`Context`], so that asking the user for input over MRTR works the same
//! in all three, with the same verdict on a run (`input/verdict`) and the same
//! signed `requestState` (`input/request_state`), bound to the method. They live
//! in live catalogs (`catalog/registry`): the application adds and removes them
//! while the server runs ([`Server::add_tool`] and its siblings), and every
//! change reaches the `subscriptions/listen` streams that follow it
//! (`catalog/changes`). That feed is a bounded broadcast channel: a stream that
//! falls behind is told, once, that everything it follows changed, so a
//! slow client re-reads more than it needs, never less, and memory stays
//! bounded.
//!
//! A method no core method has goes to the [`extension`] that serves it,
//! and is `-32601` when none does. The Tasks extension is one: the
//! `tasks/*` methods exist only on a server with tasks enabled, and
//! check the client's Tasks declaration (`-32021`) before anything else.
//! See [`tasks`] for the task engine. MCP Apps ([`apps`]) is another:
//! it serves HTML views as resources, and keeps the tools only a view
//! calls out of the lists of hosts that render no views.
//!
#![cfg_attr(
    feature = "skills",
    doc = "The Skills extension ([`skills`]) is one too: it serves its methods
and adds its files to the resources through the same seam."
)]
//!
//! # Inside the module
//!
//! One concept per folder, one layer per folder; each file's first line
//! says what it holds. A room (a folder, or a file at this root) knows
//! only the rooms before it here, so the server has no import cycles:
//!
//! Layers, bottom up: request, caller, task_engine, input, middleware, handlers, catalog, extension, methods, router, tasks, skills, apps, live, legacy, era, serving, http, builder.
//!
//! # Legacy sessions
//!
//! A client of 2025-11-25 or earlier opens with `initialize`. The
//! transport that keeps sessions (a stdio or in-process connection, an
//! HTTP session) then serves the rest of its requests through
//! [`legacy`](self) (`Server::handle_legacy`): the same handlers, with a
//! `_meta` made from what `initialize` declared, input asked with requests
//! of the server's own (`input/legacy/peer`, the `InputRoute::Legacy` of
//! each request) instead of MRTR, and every answer in the legacy shapes.
//! [`Server::handle`] itself keeps no session, so an
//! `initialize` that reaches it is answered with a message naming the
//! supported versions.

pub mod apps;
mod builder;
mod caller;
mod catalog;
mod era;
pub mod extension;
mod handlers;
#[cfg(feature = "http-server")]
pub mod http;
pub(crate) mod input;
mod live;
mod methods;
pub mod middleware;
mod request;
mod router;
mod serving;
#[cfg(feature = "skills")]
pub mod skills;
mod task_engine;
pub mod tasks;

pub use builder::ServerBuilder;
pub use caller::authorize::{CatalogItem, CatalogKind, Listing};
pub use caller::{Caller, ScopeList, Scopes};
pub use catalog::registered::RegistrationError;
pub use handlers::args::{ArgsParser, ArgumentError, TextArgs, TextParam};
pub use handlers::completer::{
    CompleteFn, Completer, CompletionContext, CompletionOutcome, IntoCompletion,
};
#[cfg(feature = "http-server")]
pub use handlers::extract::Headers;
pub use handlers::extract::{Claims, FromContext};
pub use handlers::layered::Layered;
pub use handlers::prompt::{IntoPromptResult, PromptHandler, PromptResult};
pub use handlers::resource::{
    IntoReadResult, ReadCache, ReadRequest, ReadResult, ResourceDefinition, ResourceHandler,
};
pub use handlers::tool::{
    IntoToolResult, Json, PolicyFn, TaskPolicy, TaskStart, ToolHandler, ToolPolicy, ToolResult,
};
pub use input::context::{Context, InputFuture, RequestInfo};
pub use input::elicit::{Elicit, ElicitEnum, ElicitField, Elicitation};
pub use input::form::{FormSchema, FormSchemaError};
pub use input::request_state::StateError;
pub use methods::subscriptions_listen::{MAX_LISTEN_TASK_IDS, MAX_RESOURCE_SUBSCRIPTIONS};
pub use request::error::{ErrorDetails, InputRequired, MASKED_ERROR_MESSAGE, ToolError};
pub use request::state::{State, StateType};
pub use request::stream::ResponseStream;
pub use router::Server;
pub use serving::connection::{CLOSE_DRAIN, MAX_SUBSCRIPTIONS, serve, serve_until};
pub use serving::in_process::in_process;
pub use serving::shutdown::FINAL_WRITE;
pub use task_engine::store::TaskStore;
pub use task_engine::{InMemoryTaskStore, TaskSettings};

pub use crate::schema::ToolParam;
pub use crate::util::BoxFuture;
pub use crate::wire::TASKS_EXTENSION;

// Legacy sessions, and what they make public: deleting 2025-11-25 support
// deletes these lines with the folder.
mod legacy;
pub use input::legacy::peer::MAX_OUTBOUND;
