//! The legacy side of the connection: the [`ServerMessages`] of a client
//! that speaks the legacy era too, which the builder chooses.
//!
//! The reader hands it what the server sends that is neither a response
//! nor a listen stream's notification. The rules, in order:
//!
//! 1. a request of the server's goes to the [`Answerer`], which answers it
//!    as a modern server's until the era settles legacy;
//! 2. a `notifications/cancelled` for a request being answered stops that
//!    answer, and goes no further;
//! 3. a notification that names no stream goes to the session streams
//!    that want it, and, if none does, on to the user's handler;
//! 4. the end of the connection ends both, and the end of the client
//!    stops the answers and lets go of the outgoing channel.

use std::any::Any;
use std::sync::Arc;

use super::answerer::Answerer;
use super::streams::SessionStreams;
use crate::client::connection::ping::{PingOnly, ServerMessages};
use crate::client::connection::requests::Connection;
use crate::client::connection::routing::{cancelled_request, stream_of};
use crate::client::input::Handlers;
use crate::wire::{Notification, Request};

/// What a legacy server sends of its own, answered and routed.
pub(crate) struct LegacyPeer {
    /// The server's own requests (rules 1 and 2).
    pub answerer: Answerer,
    /// The session's notifications, to their listeners (rule 3).
    pub streams: Arc<SessionStreams>,
}

impl ServerMessages for LegacyPeer {
    fn request(&self, request: Request) {
        self.answerer.answer(request);
    }

    fn notification(&self, notification: Notification) -> Option<Notification> {
        if cancelled_request(&notification).is_some_and(|id| self.answerer.cancel(&id)) {
            return None;
        }
        if stream_of(&notification).is_some() {
            return Some(notification);
        }
        self.streams.deliver(notification)
    }

    fn closed(&self) {
        self.answerer.stop_all();
        self.streams.clear();
    }

    fn detach(&self) {
        self.answerer.detach();
    }
}

/// How a client that speaks the legacy era answers its server: through
/// `handlers`, once the server turns out legacy.
pub(crate) fn answers(handlers: Arc<Handlers>) -> impl FnOnce(PingOnly) -> Arc<dyn ServerMessages> {
    move |modern| {
        Arc::new(LegacyPeer {
            answerer: Answerer::new(handlers, modern),
            streams: Arc::default(),
        })
    }
}

/// The legacy side of `connection`, if the builder chose it.
pub(crate) fn of(connection: &Connection) -> Option<Arc<LegacyPeer>> {
    let any: Arc<dyn Any + Send + Sync> = Arc::clone(&connection.answers) as _;
    any.downcast().ok()
}
