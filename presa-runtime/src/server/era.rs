//! [`RequestEra`]: the era a request is read in, and what a connection
//! asks of it.
//!
//! A connection reads, charges, runs and answers its requests the same
//! way in every era (see `serving::connection`). What differs is asked of
//! the era at a few points, one method each: how a request read in it is
//! served, where a response from the client goes, whether a full
//! connection reads on, and how the server's own requests are written. In
//! the modern era the client never answers and the server never asks. A
//! legacy session (`legacy::session`, whose rules say what each of its
//! arms does) is the other era. The enum is closed: an era is told apart
//! by its variant, and deleting 2025-11-25 support deletes the `Legacy`
//! variant and its arms.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::caller::Caller;
use super::legacy::{LegacySession, SESSION_QUEUE};
use super::request::stream::ResponseStream;
use super::router::Server;
use crate::util::{BoxFuture, Charge};
use crate::wire::legacy::opens_session;
use crate::wire::{Message, Request, RequestId, Response};

/// The era one request is read in; a connection keeps it per request, and
/// the era of the requests it reads now. Cheap to clone.
#[derive(Clone)]
pub(crate) enum RequestEra {
    /// 2026-07-28: every request stands on its own.
    Modern,
    /// 2025-11-25 and earlier: the session `initialize` opened.
    Legacy(Arc<LegacySession>),
}

/// A session `initialize` opened on a connection: the era of the requests
/// read after it, and the queue of the era's own messages (list changes,
/// the requests of its tasks, cancellations), which the connection writes
/// for as long as it lives.
pub(crate) struct Opened {
    pub(crate) era: RequestEra,
    pub(crate) queue: mpsc::Receiver<Message>,
}

impl RequestEra {
    /// Whether `request`, read in this era, opens a session: only while
    /// the connection is modern, since it opens at most one.
    pub(crate) fn opens(&self, request: &Request) -> bool {
        matches!(self, RequestEra::Modern) && opens_session(request)
    }

    /// Opens the session `initialize` request `request` of `caller` asks
    /// for, and its response; or the error response, for params that are
    /// not an `initialize`'s. Its requests count as sent once the
    /// connection's transport has taken them.
    pub(crate) fn open(
        server: &Server,
        request: Request,
        caller: &Caller,
    ) -> Result<(Opened, Response), Response> {
        let (queue, queued) = mpsc::channel(SESSION_QUEUE);
        let (session, response) = server.open_session(request, caller, queue, None)?;
        session.peer().track_delivery();
        let opened = Opened {
            era: RequestEra::Legacy(session),
            queue: queued,
        };
        Ok((opened, response))
    }

    /// Serves `request`, read in this era, on behalf of `caller`, holding
    /// `charge` until its handler ends. A legacy request speaks for the
    /// session's caller.
    pub(crate) fn serve(
        &self,
        server: &Server,
        request: Request,
        caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        match self {
            RequestEra::Modern => server.handle_charged(request, caller, charge),
            RequestEra::Legacy(session) => server.handle_legacy(request, session, None, charge),
        }
    }

    /// Whether the connection must read on even when it has no room: an
    /// answer the era waits for may be behind what it would not read.
    pub(crate) fn awaits_answers(&self) -> bool {
        match self {
            RequestEra::Modern => false,
            RequestEra::Legacy(session) => session.peer().outstanding() > 0,
        }
    }

    /// Resolves once the era starts to wait for an answer; never when it
    /// cannot ask.
    pub(crate) fn asked(&self) -> BoxFuture<()> {
        match self {
            RequestEra::Modern => Box::pin(std::future::pending()),
            RequestEra::Legacy(session) => {
                let peer = session.peer().clone();
                Box::pin(async move { peer.asked().await })
            }
        }
    }

    /// Takes a response from the client: to the request of the server's
    /// own that waits for it; else, and always in the modern era, where
    /// the server asks nothing, it is logged and dropped.
    pub(crate) fn on_response(&self, response: Response) {
        match self {
            RequestEra::Modern => {
                tracing::warn!("ignoring a response from the client; clients must not send them");
            }
            RequestEra::Legacy(session) => {
                let id = response.id.clone();
                if !session.peer().resolve(response) {
                    tracing::warn!(?id, "ignoring a response to no request of the server's");
                }
            }
        }
    }

    /// Whether a request of the server's own, `id`, is still to be
    /// written; it is about to be.
    pub(crate) fn sending(&self, id: &RequestId) -> bool {
        match self {
            RequestEra::Modern => true,
            RequestEra::Legacy(session) => session.peer().sending(id),
        }
    }

    /// The transport has taken request `id` of the server's own to write.
    pub(crate) fn sent(&self, id: &RequestId) {
        if let RequestEra::Legacy(session) = self {
            session.peer().sent(id);
        }
    }

    /// The client's input has ended: no answer of its can come any more.
    pub(crate) fn end_of_input(&self) {
        if let RequestEra::Legacy(session) = self {
            session.peer().close();
        }
    }
}
