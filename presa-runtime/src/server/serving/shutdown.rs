//! How serving ends with every request it took answered exactly once.
//!
//! Whatever serves a server (a connection, the standalone HTTP server)
//! holds a [`ShutdownSwitch`]; each request it runs is bounded by the
//! [`Shutdown`] the switch controls ([`ResponseStream::bounded_by`]). When
//! serving ends (a signal, the application's own future, or the peer
//! closing its side), in this order:
//!
//! 1. the transport reads no more, but what it has already read is still
//!    taken: those requests run like any other (a connection's backlog and
//!    its limits still apply);
//! 2. `subscriptions/listen` streams end at once, gracefully: their
//!    request is answered `complete`, then `notifications/cancelled`
//!    names it (the subscriptions page's graceful closure), since they
//!    never end on their own;
//! 3. every other request gets the drain period
//!    ([`ServerBuilder::drain_period`](crate::server::ServerBuilder::drain_period))
//!    to finish;
//! 4. when it is over, every request not yet answered is answered
//!    [`SHUTTING_DOWN`](crate::wire::codes::SHUTTING_DOWN) (`-31003`):
//!    `data.started` is `false` for one that never ran, which the client
//!    may send again as it is, and `true` for one cut short while it ran,
//!    which may have done part of its work. The response comes from the
//!    handler or from the cut, never both, so a request that finishes as
//!    the period ends is still answered once;
//! 5. those answers get [`FINAL_WRITE`] more to be written; past it, what a
//!    peer that does not read never took is dropped, and serving returns.

use std::time::Duration;

use futures::FutureExt;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::server::request::reply::shutting_down;
use crate::server::request::stream::{Ending, ResponseStream};
use crate::wire::{RequestId, Response};

/// How long, after the drain period, the answers that say a request was
/// cut short (or never run) have to be written (rule 5).
pub const FINAL_WRITE: Duration = Duration::from_secs(1);

/// When serving ends, as the requests see it: not yet, or at a deadline.
#[derive(Debug, Clone)]
pub(crate) struct Shutdown {
    /// The end of the drain period, once it has started.
    deadline: watch::Receiver<Option<Instant>>,
}

/// Starts the end of serving: held by what serves.
#[derive(Debug)]
pub(crate) struct ShutdownSwitch {
    deadline: watch::Sender<Option<Instant>>,
    drain_period: Duration,
}

impl ShutdownSwitch {
    /// A switch whose drain period, once started, lasts `drain_period`.
    pub(crate) fn new(drain_period: Duration) -> Self {
        ShutdownSwitch {
            deadline: watch::Sender::new(None),
            drain_period,
        }
    }

    /// What the requests watch.
    pub(crate) fn watch(&self) -> Shutdown {
        Shutdown {
            deadline: self.deadline.subscribe(),
        }
    }

    /// Starts the drain period now, unless it has started already; returns
    /// when it ends.
    pub(crate) fn start(&self) -> Instant {
        let mut deadline = Instant::now() + self.drain_period;
        self.deadline.send_if_modified(|current| match current {
            Some(started) => {
                deadline = *started;
                false
            }
            None => {
                *current = Some(deadline);
                true
            }
        });
        deadline
    }

    /// When the drain period ends, once it has started.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        *self.deadline.borrow()
    }
}

impl Shutdown {
    /// A shutdown that never comes: for an endpoint mounted in an
    /// application that does not tell it when it stops.
    #[cfg(feature = "http-server")]
    pub(crate) fn never() -> Self {
        ShutdownSwitch::new(Duration::ZERO).watch()
    }

    /// Resolves when the drain period starts, with its end; never if it
    /// never starts.
    pub(crate) async fn started(&self) -> Instant {
        let mut deadline = self.deadline.clone();
        let started = deadline
            .wait_for(Option::is_some)
            .await
            .map(|deadline| deadline.expect("waited for"));
        match started {
            Ok(deadline) => deadline,
            Err(_) => std::future::pending().await,
        }
    }

    /// Resolves when the drain period is over.
    pub(crate) async fn over(&self) {
        tokio::time::sleep_until(self.started().await).await;
    }

    /// Whether the drain period is over: a request taken now is not run.
    #[cfg(feature = "http-server")]
    pub(crate) fn is_over(&self) -> bool {
        self.deadline
            .borrow()
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

impl ResponseStream {
    /// The same messages, bounded by `shutdown` (rules 2 and 4): a stream
    /// the server may close is closed when the drain period starts, any
    /// other is answered `-31003` (`started: true`) when it ends, unless
    /// its handler answered first. `id` is the request's.
    pub(crate) fn bounded_by(mut self, shutdown: &Shutdown, id: RequestId) -> Self {
        let shutdown = shutdown.clone();
        let cut = match self.take_closing() {
            Some(closing) => async move {
                shutdown.started().await;
                closing
            }
            .boxed(),
            None => async move {
                shutdown.over().await;
                Ending::from(Response::error(Some(id), shutting_down(true)))
            }
            .boxed(),
        };
        self.cut_short(cut)
    }
}

/// The answer to request `id` that the server took but never ran (rule 4).
pub(crate) fn not_run(id: RequestId) -> Response {
    Response::error(Some(id), shutting_down(false))
}
