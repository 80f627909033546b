//! How the client's frames reach the server: the transports a client
//! connects over, the HTTP link among them, and the error a link makes for
//! a request it could not complete.
//!
//! The client core speaks frames over a channel, whatever the transport.
//! A link turns what goes wrong on its way into an error response to the
//! request, so that no call waits forever.
//!
//! Layers, bottom up: link_error, http, transport.

#[cfg(feature = "http-client")]
mod http;
mod link_error;
mod transport;

#[cfg(feature = "http-client")]
pub use http::{HeaderRefused, HttpOptions};
pub(crate) use link_error::LinkFailure;
pub use transport::ClientTransport;
pub(crate) use transport::Shutdown;
