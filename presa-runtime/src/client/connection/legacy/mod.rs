//! The connection's legacy side: a server of 2025-11-25 or earlier as the
//! connection keeps it, its session, its requests answered through the
//! handlers, and its session's notifications routed to their streams.
//!
//! Layers, bottom up: answerer, streams, tool_tasks, server.

mod answerer;
mod server;
mod streams;
mod tool_tasks;

pub(crate) use server::LegacyServer;
pub(crate) use streams::SessionStreams;
pub(crate) use tool_tasks::asks_for_task;
