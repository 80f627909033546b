//! A [`Server`](crate::server::Server) on a transport: one connection
//! ([`serve`](crate::server::serve), [`in_process`](crate::server::in_process)),
//! the signals that end a process, and how serving ends with every request
//! answered. Streamable HTTP, behind its feature, is [`http`](crate::server::http).
//!
//! | file | what it holds |
//! |---|---|
//! | `shutdown` | how serving ends with every request it took answered exactly once |
//! | `signals` | the signals that end a server process |
//! | `connection` | one transport connection: a tokio task per request, cancellation by id |

pub(crate) mod connection;
pub(crate) mod shutdown;
pub(crate) mod signals;
