//! Streamable HTTP for the client (feature `http-client`): each request a
//! POST to the server's MCP endpoint, answered by JSON or an event stream.
//!
//! The client core does not change: [`ClientTransport::http`](super::ClientTransport::http)
//! gives it a frame channel whose other end is the HTTP link, which writes
//! the headers, relays the answers, and turns cancellation into closing
//! the request's stream. See `link` for what it does with each request.
//!
//! | file | what it holds |
//! |---|---|
//! | `tools` | the tools' header parameters, and the tools that cannot be called |
//! | `link` | the task per request: headers, answers, retry, errors |

mod link;
mod tools;

pub(super) use link::connect;

/// How the client speaks HTTP: [`ClientTransport::http_with`](super::ClientTransport::http_with).
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(crate) bearer_token: Option<String>,
    pub(crate) max_message_size: usize,
}

impl Default for HttpOptions {
    /// No credentials; messages of up to 4 MiB.
    fn default() -> Self {
        HttpOptions {
            bearer_token: None,
            max_message_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
        }
    }
}

impl HttpOptions {
    /// Sends `Authorization: Bearer {token}` with every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// The largest message accepted from the server, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}
