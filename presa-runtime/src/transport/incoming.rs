//! [`Incoming`]: the frames a peer sends, in order, to whoever takes them.
//!
//! Frames come from one of two places:
//!
//! 1. a channel, when something else puts them there: the other end of an
//!    in-memory pair, or a link that reads its peer on a task of its own
//!    (HTTP);
//! 2. a byte stream, read by whoever polls for the next frame, with no
//!    task and no channel in between: reading a request and acting on it
//!    is then one step of one task, and a consumer that stops taking
//!    frames stops the reading at once, holding no more than the line it
//!    is in the middle of.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc;

use super::inbound::Inbound;
use super::stop::StopReading;

/// The frames a peer sends, in order (see the module docs). The peer
/// closed the connection when [`recv`](Self::recv) returns `None`.
pub struct Incoming {
    source: Source,
}

/// Where the frames come from.
enum Source {
    /// Put in a channel by someone else (rule 1).
    Channel(mpsc::Receiver<Inbound>),
    /// Read from a byte stream as they are polled for (rule 2); `stop`
    /// ends the reading.
    Read {
        frames: Pin<Box<dyn Stream<Item = Inbound> + Send>>,
        stop: StopReading,
    },
}

impl Incoming {
    /// The frames put into `channel`.
    pub fn channel(channel: mpsc::Receiver<Inbound>) -> Self {
        Incoming {
            source: Source::Channel(channel),
        }
    }

    /// The frames `frames` reads as it is polled, until `stop`.
    pub(crate) fn read(
        frames: impl Stream<Item = Inbound> + Send + 'static,
        stop: StopReading,
    ) -> Self {
        Incoming {
            source: Source::Read {
                frames: Box::pin(frames),
                stop,
            },
        }
    }

    /// The next frame; `None` once the peer has closed the connection, or
    /// once [`close`](Self::close)d and what was already sent is taken.
    pub async fn recv(&mut self) -> Option<Inbound> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next frame, as [`recv`](Self::recv) waits for it.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Inbound>> {
        match &mut self.source {
            Source::Channel(channel) => channel.poll_recv(cx),
            Source::Read { frames, .. } => frames.as_mut().poll_next(cx),
        }
    }

    /// A frame that is there already, without waiting: one in the
    /// channel, or one a byte stream yields without waiting to read.
    pub fn try_recv(&mut self) -> Option<Inbound> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match self.poll_recv(&mut cx) {
            Poll::Ready(inbound) => inbound,
            Poll::Pending => None,
        }
    }

    /// Takes no more: what was already sent (a channel's frames, the
    /// lines a byte stream's buffer holds) is still received, then
    /// [`recv`](Self::recv) returns `None`.
    pub fn close(&mut self) {
        match &mut self.source {
            Source::Channel(channel) => channel.close(),
            Source::Read { stop, .. } => stop.stop(),
        }
    }
}

impl Stream for Incoming {
    type Item = Inbound;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Inbound>> {
        self.get_mut().poll_recv(cx)
    }
}

impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            Source::Channel(_) => "channel",
            Source::Read { .. } => "read in place",
        };
        f.debug_struct("Incoming").field("source", &source).finish()
    }
}
