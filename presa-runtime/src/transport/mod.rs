//! Transports move framed messages and know nothing of tools.
//!
//! Every transport ends in a [`FrameChannel`]: a receiver of inbound frames
//! and a sender of outbound ones, each frame one serialized JSON-RPC
//! message. The server's connection loop and the client both speak only
//! `FrameChannel`, so in-process, stdio and any byte stream behave alike.

mod in_process;
mod lines;
mod stdio;

pub use in_process::in_process;
pub use lines::byte_stream;
pub use stdio::{StdioChild, stdio};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The default limit on one message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// How many frames may wait in a channel before the sender waits.
pub(crate) const CHANNEL_CAPACITY: usize = 256;

/// One inbound unit from a transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// A complete frame: the text of one message.
    Frame(String),
    /// A message longer than the transport's limit, discarded unread.
    Oversized {
        /// The limit it exceeded, in bytes.
        limit: usize,
    },
    /// A message that is not UTF-8 text, and so cannot be JSON.
    NotUtf8,
}

/// Both directions of a connection, as channels of frames. The peer closed
/// the connection when `incoming` ends; drop `outgoing` to close it.
#[derive(Debug)]
pub struct FrameChannel {
    /// Frames from the peer.
    pub incoming: mpsc::Receiver<Inbound>,
    /// Frames to the peer.
    pub outgoing: FrameSender,
    /// The task writing `outgoing` to a byte stream, if there is one; it
    /// ends once every sender is dropped and what they queued is written.
    pub writer: Option<JoinHandle<()>>,
}

impl FrameChannel {
    /// Two connected channels: what one sends, the other receives.
    pub fn pair() -> (FrameChannel, FrameChannel) {
        let (a_tx, a_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (b_tx, b_rx) = mpsc::channel(CHANNEL_CAPACITY);
        (
            FrameChannel {
                incoming: b_rx,
                outgoing: FrameSender(a_tx),
                writer: None,
            },
            FrameChannel {
                incoming: a_rx,
                outgoing: FrameSender(b_tx),
                writer: None,
            },
        )
    }
}

/// The sending half of a [`FrameChannel`]. Clones send on the same channel.
#[derive(Debug, Clone)]
pub struct FrameSender(pub(crate) mpsc::Sender<Inbound>);

/// The peer has closed the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the connection is closed")]
pub struct Closed;

impl FrameSender {
    /// Sends one frame, waiting while the channel is full.
    pub async fn send(&self, frame: String) -> Result<(), Closed> {
        self.0.send(Inbound::Frame(frame)).await.map_err(|_| Closed)
    }
}
