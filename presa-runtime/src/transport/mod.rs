//! Transports move framed messages and know nothing of servers, clients or
//! tools.
//!
//! Every transport ends in a [`FrameChannel`]: a receiver of inbound frames
//! and a sender of outbound ones, each frame one serialized JSON-RPC
//! message. The server's connection loop and the client both speak only
//! `FrameChannel`, so in-process, stdio and any byte stream behave alike.
//! (Serving a server on an in-process channel is the server's business:
//! `server::in_process`.)
//!
//! The two directions have their own types: inbound is an [`Inbound`],
//! which also reports frames that could not be read, and outbound is plain
//! text, sent through a [`FrameSender`].
//!
//! A transport that reads a byte stream can be told to read no more
//! ([`StopReading`]) without losing what it has already read: the frames
//! it holds are still delivered, then `incoming` ends, as at end of input.
//! That is how a server stops without dropping the requests it has taken
//! from the pipe but not yet parsed.
//!
//! In process, a channel may also offer its peer [`InPlace`]: a request
//! that stands on its own is then served on the caller's task, with no
//! hand-over at all (see `in_place`).
//!
//! Layers, bottom up: closed, stop, inbound, writing, incoming, in_place, channel, lines, stdio.

mod channel;
mod closed;
mod in_place;
mod inbound;
mod incoming;
mod lines;
mod stdio;
mod stop;
mod writing;

pub use channel::{FrameChannel, FrameSender};
pub use closed::Closed;
pub use in_place::{Answers, InPlace, ServeInPlace};
pub use inbound::{DEFAULT_MAX_MESSAGE_SIZE, Inbound};
pub use incoming::Incoming;
pub use lines::byte_stream;
pub use stdio::{StdioChild, stdio};
pub use stop::StopReading;

pub(crate) use writing::Gathering;
