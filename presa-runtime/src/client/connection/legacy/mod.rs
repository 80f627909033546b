//! The connection's legacy side: what a server of 2025-11-25 or earlier
//! sends of its own, its requests answered through the handlers and its
//! session's notifications routed to their streams.
//!
//! Layers, bottom up: answerer, streams, peer.

mod answerer;
pub(crate) mod peer;
mod streams;

pub(crate) use streams::SessionStreams;
