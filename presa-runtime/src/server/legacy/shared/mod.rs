//! Legacy sessions shared by replicas: with a [`LegacySessionStore`],
//! any replica of a server serves any request of a 2025-11-25 session,
//! as the hosts of today send them through a load balancer with no
//! affinity.
//!
//! Without a shared store, a session lives in the memory of the replica
//! that opened it, and a request that reaches another replica gets `404`.
//! With one, the session's [`SessionRecord`] lives in the store, and the
//! replicas talk over its channels. The record holds what a replica needs
//! to serve the session: what the client declared in `initialize`, its
//! principal, its log level and its subscriptions. What cannot move stays
//! where it is: a request runs on the replica it reached, and the
//! standalone `GET` stream stays on the replica that holds it.
//!
//! This folder holds the record and the store. The HTTP transport
//! (`http/legacy/`) uses them; the rules it follows are in its docs.
//!
//! Layers, bottom up: record, store, memory, note, link.

// Only the HTTP transport shares sessions; without it, a session has no
// store, and what talks to one is unused.
#![cfg_attr(not(feature = "http-server"), allow(dead_code, unused_imports))]

mod link;
mod memory;
pub(crate) mod note;
mod record;
mod store;

pub(crate) use link::{ChangeFailed, SharedSessions};
pub use memory::{LISTENER_BACKLOG, MemorySessionStore};
pub use record::{SessionChange, SessionChangeRefused, SessionRecord};
pub use store::{ChannelMessages, LegacySessionStore, SessionStoreError};
