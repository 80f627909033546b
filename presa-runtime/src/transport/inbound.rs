//! What a transport hands inward: a frame, or why a message could not be
//! read, and the default limit on one message.

/// The default limit on one message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

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
