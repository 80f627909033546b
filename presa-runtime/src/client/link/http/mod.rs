//! Streamable HTTP for the client (feature `http-client`): each request a
//! POST to the server's MCP endpoint, answered by JSON or an event stream.
//!
//! The client core does not change: [`ClientTransport::http`](crate::client::ClientTransport::http)
//! gives it a frame channel whose other end is the HTTP link, which writes
//! the headers, relays the answers, and turns cancellation into closing
//! the request's stream. The link speaks both eras: the modern transport,
//! and the legacy one (2025-11-25 and earlier) once `initialize` opened a
//! session, with its session id, GET stream and resumable streams, which
//! all live in `legacy/`. See `dispatch` for what it does with each
//! message.
//!
//! Layers, bottom up: options, sse, tools, link, authorized, reply, legacy, dispatch.

mod authorized;
mod dispatch;
mod legacy;
mod link;
mod options;
mod reply;
mod sse;
mod tools;

pub(crate) use dispatch::connect;
pub(crate) use options::OnClose;
pub use options::{HeaderRefused, HttpOptions};
