//! A [`Server`](crate::server::Server) on a transport: one connection
//! ([`serve`](crate::server::serve), [`in_process`](crate::server::in_process)),
//! the signals that end a process, and how serving ends with every request
//! answered. Streamable HTTP, behind its feature, is [`http`](crate::server::http).
//!
//! | file | what it holds |
//! |---|---|
//! | `shutdown` | how serving ends with every request it took answered exactly once |
//! | `signals` | the signals that end a server process |
//! | `era` | what a connection asks of the era its requests are read in; the modern era |
//! | `outbox` | where a connection's messages go, charged until written |
//! | `connection` | one transport connection: a tokio task per request, cancellation by id |
//! | `in_process` | a client in the same process: a connection, and its 2026-07-28 requests served on its own task |

pub(crate) mod connection;
pub(crate) mod era;
pub(crate) mod in_process;
pub(crate) mod outbox;
pub(crate) mod shutdown;
pub(crate) mod signals;
