//! What a client connects over.

use std::io;

use tokio::process::Command;

use crate::transport::{DEFAULT_MAX_MESSAGE_SIZE, FrameChannel, StdioChild};

/// A frame channel, plus what must be ended when the client closes: the
/// server process it spawned, or what its HTTP link holds open.
#[derive(Debug)]
pub struct ClientTransport {
    pub(crate) channel: FrameChannel,
    pub(crate) shutdown: Option<Shutdown>,
}

/// What closing a client ends besides its frame channel.
#[derive(Debug)]
pub(crate) enum Shutdown {
    /// A spawned stdio server: stdin closed, then SIGTERM, then SIGKILL
    /// (on Windows, stdin closed, then TerminateProcess).
    Child(Box<StdioChild>),
    /// An HTTP link: what it holds open beyond its requests.
    #[cfg(feature = "http-client")]
    Http(super::http::OnClose),
}

impl Shutdown {
    /// Ends what this holds open, waiting for it to end.
    pub(crate) async fn run(self) -> io::Result<()> {
        match self {
            Shutdown::Child(child) => child.shutdown().await.map(drop),
            #[cfg(feature = "http-client")]
            Shutdown::Http(on_close) => {
                on_close.run().await;
                Ok(())
            }
        }
    }
}

impl ClientTransport {
    /// Spawns `command` as a stdio server, with the default 4 MiB message limit.
    pub fn spawn(command: Command) -> io::Result<Self> {
        Self::spawn_with_limit(command, DEFAULT_MAX_MESSAGE_SIZE)
    }

    /// Spawns `command` as a stdio server with a message limit of `max_message_size`.
    pub fn spawn_with_limit(command: Command, max_message_size: usize) -> io::Result<Self> {
        let (channel, child) = StdioChild::spawn(command, max_message_size)?;
        Ok(ClientTransport {
            channel,
            shutdown: Some(Shutdown::Child(Box::new(child))),
        })
    }
}

#[cfg(feature = "http-client")]
impl ClientTransport {
    /// Speaks Streamable HTTP to the MCP endpoint at `endpoint` (such as
    /// `http://127.0.0.1:3000/mcp`), anonymously. Must be called inside a
    /// tokio runtime.
    ///
    /// A redirect is never followed: the request fails with an error
    /// that names where the server pointed. Requests carry credentials,
    /// which a redirect would carry elsewhere; if you trust the new URL,
    /// use it as the endpoint.
    pub fn http(endpoint: impl Into<String>) -> io::Result<Self> {
        Self::http_with(endpoint, super::http::HttpOptions::default())
    }

    /// [`ClientTransport::http`] with `options` (a bearer token, say).
    pub fn http_with(
        endpoint: impl Into<String>,
        options: super::http::HttpOptions,
    ) -> io::Result<Self> {
        let (channel, on_close) = super::http::connect(endpoint.into(), options)?;
        Ok(ClientTransport {
            channel,
            shutdown: Some(Shutdown::Http(on_close)),
        })
    }
}

impl From<FrameChannel> for ClientTransport {
    fn from(channel: FrameChannel) -> Self {
        ClientTransport {
            channel,
            shutdown: None,
        }
    }
}
