//! [`InPlace`]: a peer in the same process that serves a request where its
//! answers are read.
//!
//! A frame channel between two ends in one process still costs a hand-over
//! each way: the request waits in a channel until the peer's task takes it,
//! the answer until the reader's task does, and on a multi-thread runtime
//! each hand-over may wake another thread. A request that stands on its own
//! needs no channel: the caller can hand it to the peer and poll the
//! answers itself. The rules, in order:
//!
//! 1. only a request that stands on its own is served in place: one whose
//!    answers all come on its own stream, as every 2026-07-28 request's
//!    do; whatever else the two ends say to each other (notifications, the
//!    peer's own requests, a legacy session) takes the frame channel the
//!    peer is also served on;
//! 2. the request and its answers are frames, the very text a channel
//!    would carry, so that both ends read and write exactly what they do on
//!    every other transport;
//! 3. the answers are made as the stream of them is polled: the peer's
//!    work runs on the poller's own task, with no hand-over at all while
//!    it does not wait;
//! 4. dropping the stream drops the peer's work: that is how a request
//!    served in place is cancelled, with no notification to send.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;

/// The frames that answer one request served in place, made as they are
/// polled: zero or more notifications, then its response.
pub type Answers = Pin<Box<dyn Stream<Item = String> + Send>>;

/// A peer that serves requests in place (see the module docs).
pub trait ServeInPlace: Send + Sync {
    /// Takes `request`, one frame; its answers, made as they are polled.
    /// Dropping them cancels the request.
    fn serve(&self, request: String) -> Answers;
}

/// A handle on a peer that serves requests in place: what a
/// [`FrameChannel`](super::channel::FrameChannel) in process offers besides its
/// frames. Clones serve through the same peer.
#[derive(Clone)]
pub struct InPlace(Arc<dyn ServeInPlace>);

impl InPlace {
    /// A handle on `peer`.
    pub fn new(peer: impl ServeInPlace + 'static) -> Self {
        InPlace(Arc::new(peer))
    }

    /// Takes `request`, one frame; its answers, made as they are polled.
    pub fn serve(&self, request: String) -> Answers {
        self.0.serve(request)
    }
}

impl fmt::Debug for InPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InPlace")
    }
}
