//! [`ConnectionSession`]: a legacy session on a stdio or in-process
//! connection, the connection's other [`Era`].
//!
//! By these rules, in order:
//!
//! 1. a connection is modern until the client sends `initialize` (without
//!    the modern `_meta`, which would make it a modern request for a
//!    method that does not exist): that request is answered at once,
//!    before the next frame is read, and opens the session
//!    ([`Server::open_session`]), which serves every request read after
//!    it ([`Server::handle_legacy`]). A request's era is decided when it
//!    is read: one read before the `initialize` is served modern even when
//!    it waits for a slot until after it;
//! 2. the session's own messages (list changes, the requests of its
//!    tasks, cancellations of requests it no longer needs) go through a
//!    queue of their own, written like any other message, for as long as
//!    the connection lives;
//! 3. a response from the client goes to the request of the server's own
//!    that waits for it ([`PeerLink::resolve`]); one to no such request is
//!    logged and dropped;
//! 4. a request of the server's own counts as sent once the transport has
//!    taken it, and one withdrawn before that is not written at all
//!    ([`PeerLink::track_delivery`]);
//! 5. while a request of the server's waits for the client's answer, a
//!    full connection reads on (the exception to the connection's rule
//!    3): that answer comes on this stream, behind whatever the client
//!    sent first, and what it would free may be the very room the
//!    connection waits for. So the connection acts on responses and
//!    notifications as ever, and answers each request it has no room for
//!    with `-31001` at once (it holds nothing, and a peer that does not
//!    read those answers stops the reading by the connection's rule 5);
//! 6. at the end of the input no answer can come any more: every question
//!    fails at once ([`PeerLink::close`]), and the handlers end instead of
//!    waiting out the drain period.

use std::any::Any;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::session::{LegacySession, SESSION_QUEUE};
use crate::server::caller::Caller;
use crate::server::input::legacy::peer::PeerLink;
use crate::server::request::stream::ResponseStream;
use crate::server::router::Server;
use crate::server::serving::era::{Era, Modern};
use crate::server::serving::outbox::Outbox;
use crate::transport::FrameSender;
use crate::util::{BoxFuture, Budget, Charge, lock};
use crate::wire::legacy::opens_session;
use crate::wire::{Request, RequestId, Response};

/// The legacy session `initialize` opened on a connection, and the writer
/// of its own queue.
pub(crate) struct ConnectionSession {
    session: Arc<LegacySession>,
    /// Writes the session's own queue; ends with the connection.
    writer: Mutex<Option<AbortHandle>>,
}

impl ConnectionSession {
    /// Whether `request`, read in `era`, opens a session: only while the
    /// connection is modern, since it opens at most one (rule 1).
    pub(crate) fn opens(era: &dyn Era, request: &Request) -> bool {
        let in_session = (era as &dyn Any).is::<ConnectionSession>();
        !in_session && opens_session(request)
    }

    /// Answers `initialize` request `request` of `caller` on `outgoing`,
    /// charged to `budget`, and returns the session it opened; `None` if it
    /// opened none (its params are not an `initialize`'s, and the answer
    /// says so).
    pub(crate) async fn open(
        server: &Server,
        request: Request,
        caller: &Caller,
        outgoing: &FrameSender,
        budget: &Budget,
    ) -> Option<Arc<ConnectionSession>> {
        let outbox = Outbox::new(outgoing.clone(), budget.clone(), Arc::new(Modern));
        let (queue, mut queued) = mpsc::channel(SESSION_QUEUE);
        // A closed channel means the peer is gone; there is no one to tell.
        let (session, response) = match server.open_session(request, caller, queue) {
            Ok(opened) => opened,
            Err(response) => {
                let _ = outbox.send(response.into()).await;
                return None;
            }
        };
        let _ = outbox.send(response.into()).await;
        // Its outboxes say when a request of the session's is sent (rule 4).
        session.peer().track_delivery();
        let opened = Arc::new(ConnectionSession {
            session,
            writer: Mutex::new(None),
        });
        let own = Outbox::new(outgoing.clone(), budget.clone(), Arc::clone(&opened) as _);
        let writer = tokio::spawn(async move {
            while let Some(message) = queued.recv().await {
                if own.send(message).await.is_err() {
                    return;
                }
            }
        });
        *lock(&opened.writer) = Some(writer.abort_handle());
        Some(opened)
    }

    fn peer(&self) -> &PeerLink {
        self.session.peer()
    }
}

impl Era for ConnectionSession {
    fn serve(
        &self,
        server: &Server,
        request: Request,
        _caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        server.handle_legacy(request, &self.session, None, charge)
    }

    fn awaits_answers(&self) -> bool {
        self.peer().outstanding() > 0
    }

    fn asked(&self) -> BoxFuture<()> {
        let peer = self.peer().clone();
        Box::pin(async move { peer.asked().await })
    }

    fn on_response(&self, response: Response) {
        let id = response.id.clone();
        if !self.peer().resolve(response) {
            tracing::warn!(?id, "ignoring a response to no request of the server's");
        }
    }

    fn sending(&self, id: &RequestId) -> bool {
        self.peer().sending(id)
    }

    fn sent(&self, id: &RequestId) {
        self.peer().sent(id);
    }

    fn end_of_input(&self) {
        self.peer().close();
    }

    fn closed(&self) {
        // The writer holds this session: ending it ends the cycle too.
        if let Some(writer) = lock(&self.writer).take() {
            writer.abort();
        }
    }
}
