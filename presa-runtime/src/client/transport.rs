//! What a client connects over.

use std::io;

use tokio::process::Command;

use crate::transport::{DEFAULT_MAX_MESSAGE_SIZE, FrameChannel, StdioChild};

/// A frame channel, plus the server process when the client spawned one.
#[derive(Debug)]
pub struct ClientTransport {
    pub(crate) channel: FrameChannel,
    pub(crate) child: Option<StdioChild>,
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
            child: Some(child),
        })
    }
}

impl From<FrameChannel> for ClientTransport {
    fn from(channel: FrameChannel) -> Self {
        ClientTransport {
            channel,
            child: None,
        }
    }
}
