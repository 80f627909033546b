//! The frame channel every transport ends in: frames from the peer, and a
//! sender of frames to it.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::closed::Closed;
use super::in_place::InPlace;
use super::inbound::Inbound;
use super::incoming::Incoming;
use super::stop::StopReading;
use super::writing::{Gathering, Outgoing, SendNow, StreamSender};
use crate::util::Charge;

/// How many frames may wait in a channel before the sender waits.
pub(super) const CHANNEL_CAPACITY: usize = 256;

/// Both directions of a connection, as channels of frames. The peer closed
/// the connection when `incoming` ends; drop `outgoing` to close it.
#[derive(Debug)]
pub struct FrameChannel {
    /// Frames from the peer.
    pub incoming: Incoming,
    /// Frames to the peer.
    pub outgoing: FrameSender,
    /// The task that writes `outgoing` to a byte stream while the stream
    /// is busy (a sender writes an idle one itself), if there is one; it
    /// ends, with the stream shut, once every sender is dropped and what
    /// they sent is written.
    pub writer: Option<JoinHandle<()>>,
    /// Stops the reading of a byte stream, if there is one. Without it
    /// (an in-memory pair), closing `incoming` does the same: what was sent
    /// before is still received, then it ends.
    pub stop_reading: Option<StopReading>,
    /// The same peer, serving requests that stand on their own in place,
    /// if it is in this process and can ([`InPlace`]).
    pub in_place: Option<InPlace>,
}

impl FrameChannel {
    /// Two connected channels: what one sends, the other receives.
    pub fn pair() -> (FrameChannel, FrameChannel) {
        let (a_tx, a_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (b_tx, b_rx) = mpsc::channel(CHANNEL_CAPACITY);
        (
            FrameChannel {
                incoming: Incoming::channel(b_rx),
                outgoing: FrameSender::peer(a_tx),
                writer: None,
                stop_reading: None,
                in_place: None,
            },
            FrameChannel {
                incoming: Incoming::channel(a_rx),
                outgoing: FrameSender::peer(b_tx),
                writer: None,
                stop_reading: None,
                in_place: None,
            },
        )
    }
}

/// The sending half of a [`FrameChannel`]. Clones send on the same channel.
#[derive(Debug, Clone)]
pub struct FrameSender {
    route: Route,
}

/// Where a sent frame goes.
#[derive(Debug, Clone)]
enum Route {
    /// Straight into the peer's inbox: the two ends of an in-memory pair,
    /// with no task in between.
    Peer(mpsc::Sender<Inbound>),
    /// To a byte stream: in place while it is idle, through its writer
    /// task while it is busy (`writing`).
    Stream(StreamSender),
}

impl FrameSender {
    fn peer(inbox: mpsc::Sender<Inbound>) -> Self {
        FrameSender {
            route: Route::Peer(inbox),
        }
    }

    pub(super) fn stream(sender: StreamSender) -> Self {
        FrameSender {
            route: Route::Stream(sender),
        }
    }

    /// Sends one frame, waiting while the channel is full.
    pub async fn send(&self, frame: String) -> Result<(), Closed> {
        self.send_charged(frame, Charge::none()).await
    }

    /// Sends one frame that holds `charge` until it is written to the
    /// byte stream (or, on an in-memory pair, until the peer has it).
    pub(crate) async fn send_charged(&self, frame: String, charge: Charge) -> Result<(), Closed> {
        match &self.route {
            Route::Peer(inbox) => inbox.send(Inbound::Frame(frame)).await.map_err(|_| Closed),
            Route::Stream(stream) => stream.send(frame, charge).await,
        }
    }

    /// A gathering of the frames sent here, for whoever reads the same
    /// connection to start while it takes a burst of frames in (rule 6 of
    /// `writing`). Frames that go to no byte stream never gather.
    pub(crate) fn gathering(&self) -> Gathering {
        match &self.route {
            Route::Peer(_) => Gathering::none(),
            Route::Stream(stream) => stream.gathering(),
        }
    }

    /// Sends one frame without waiting: at once when the channel has room,
    /// otherwise from a background task on the current tokio runtime, so a
    /// full channel delays the frame but never loses it. For code that
    /// cannot wait, such as a `Drop` impl. Outside a runtime, a frame that
    /// does not fit at once is dropped.
    pub fn send_detached(&self, frame: String) {
        let Some(frame) = self.try_send(frame) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("no runtime to send a frame from later; dropping it");
            return;
        };
        let sender = self.clone();
        runtime.spawn(async move { sender.send(frame).await });
    }

    /// Sends `frame` if that needs no wait; hands it back when the channel
    /// is full. A closed channel takes it, to drop it.
    fn try_send(&self, frame: String) -> Option<String> {
        match &self.route {
            Route::Peer(inbox) => match inbox.try_send(Inbound::Frame(frame)) {
                Err(mpsc::error::TrySendError::Full(Inbound::Frame(frame))) => Some(frame),
                _ => None,
            },
            Route::Stream(stream) => {
                let outgoing = Outgoing {
                    frame,
                    charge: Charge::none(),
                };
                match stream.try_send(outgoing) {
                    Err(SendNow::Full(outgoing)) => Some(outgoing.frame),
                    _ => None,
                }
            }
        }
    }
}
