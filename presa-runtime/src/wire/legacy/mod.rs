//! Wire types of the legacy, session-based revisions (2025-11-25,
//! 2025-06-18 and 2025-03-26), for a dual-era peer.
//!
//! A legacy connection opens with `initialize`, which fixes the protocol
//! version, the client's capabilities and identity for the whole session;
//! a modern request carries them in its own `_meta`. Most message shapes
//! are the same in both eras, so this module holds only what differs, by
//! these rules:
//!
//! 1. the handshake and what only a session has (`initialize`, `ping`,
//!    `logging/setLevel`, `resources/subscribe`) live in [`lifecycle`];
//! 2. tasks, which 2025-11-25 defines in the core protocol with other
//!    field names (`ttl`, `pollInterval`, a nested `task` in
//!    `CreateTaskResult`), live in [`tasks`];
//! 3. what a server sends the client as a request of its own
//!    (`elicitation/create`, `sampling/createMessage`, `roots/list`) is
//!    built and read in [`requests`];
//! 4. a modern result becomes a legacy one in [`render`]: no modern-only
//!    field (`resultType`, `ttlMs`, `cacheScope`, modern `_meta` keys)
//!    reaches a legacy peer, and legacy error codes replace modern ones.
//!
//! Like the rest of [`wire`](super), nothing here knows of transports,
//! servers or clients: both sides use these types.
//!
//! Layers, bottom up: schema_check, versions, method, session, tasks, lifecycle, requests, render.

pub mod lifecycle;
mod method;
pub mod render;
pub mod requests;
#[cfg(test)]
mod schema_check;
mod session;
pub mod tasks;
mod versions;

pub use method::*;
pub use session::*;
pub use versions::*;
