//! A [`Server`](crate::server::Server) on a transport: one connection
//! ([`serve`](crate::server::serve), [`in_process`](crate::server::in_process)),
//! the signals that end a process, and how serving ends with every request
//! answered. Streamable HTTP, behind its feature, is [`http`](crate::server::http).
//!
//! Layers, bottom up: shutdown, signals, outbox, connection, in_process.

pub(crate) mod connection;
pub(crate) mod in_process;
pub(crate) mod outbox;
pub(crate) mod shutdown;
pub(crate) mod signals;
