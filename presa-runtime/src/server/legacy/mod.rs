//! Legacy sessions: the same server, spoken to by a client of 2025-11-25
//! or earlier.
//!
//! ```text
//!  initialize ──▶ Server::open_session ──▶ LegacySession ──▶ InitializeResult
//!  request ──▶ Server::handle_legacy ──▶ session _meta ──▶ Server::route ──▶ legacy render
//!  response from the client ──▶ LegacySession::peer ──▶ the parked ctx.elicit
//! ```
//!
//! A modern request says who asks and what the client can do in its own
//! `_meta`; a legacy client said it once, in `initialize`. A session
//! therefore keeps what `initialize` declared, and each of its requests is
//! served by the modern core with a `_meta` made from the session, by
//! these rules, in order:
//!
//! 1. `initialize` opens the session (once: a second one is `-32600`) and
//!    negotiates the version ([`negotiate_version`]); the transport keeps
//!    the session, for the connection (stdio) or under `Mcp-Session-Id`
//!    (HTTP);
//! 2. what only a session has is answered here: `ping`,
//!    `logging/setLevel` (the session's level; until it is set the server
//!    sends no log messages), `resources/subscribe` and `unsubscribe` (at
//!    most [`MAX_RESOURCE_SUBSCRIPTIONS`], as for one listen stream); the
//!    modern-only methods (`server/discover`, `subscriptions/listen`,
//!    `tasks/update`) are `-32601`;
//! 3. every other method goes through [`Server::route`] with the session's
//!    version, capabilities, client info and log level, and the request's
//!    own progress token and other `_meta` keys; input a handler asks for
//!    goes to the client as requests of the server's own (the route
//!    `InputRoute::Legacy`, over [`PeerLink`](peer::PeerLink)), so the
//!    handler parks and never runs again;
//! 4. every response is rendered legacy ([`render`]): no modern-only
//!    field, legacy error codes; `tools/list` tells each tool's
//!    `execution.taskSupport`;
//! 5. list changes and updates of subscribed resources go on the session's
//!    queue for as long as the session lives ([`feed`]);
//! 6. tasks are 2025-11-25's, on the server's engine and store
//!    ([`tasks`]), and the session hears their status change ([`status`]).
//!
//! Everything of 2025-11-25 lives in this folder, in `input/legacy/` and
//! in `http/legacy/`: the modern code knows it only as one variant of
//! `InputRoute` (the route of a run's questions), of `RequestEra` (the era
//! a connection's request is read in), as the task owner a session names
//! for its anonymous caller (`Caller::with_task_owner`), and as the legacy
//! branch of the HTTP endpoint.
//!
//! 7. over HTTP, replicas may share sessions through a store
//!    ([`shared`]).
//!
//! Layers, bottom up: shared, feed, status, session, tasks, dispatch.
//!
//! [`negotiate_version`]: crate::wire::legacy::negotiate_version
//! [`MAX_RESOURCE_SUBSCRIPTIONS`]: super::MAX_RESOURCE_SUBSCRIPTIONS
//! [`render`]: crate::wire::legacy::render

mod dispatch;
mod feed;
mod session;
pub(crate) mod shared;
mod status;
mod tasks;

#[cfg(feature = "http-server")]
pub(crate) use feed::FeedGuard;
pub(crate) use session::{LegacySession, SESSION_QUEUE};
