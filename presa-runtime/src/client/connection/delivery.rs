//! [`Delivery`]: where what the server sends goes, once read. A response
//! goes to its request and a notification to its stream (`routing`); what
//! the server sends of its own goes to the era the connection holds.
//!
//! The connection holds the server's era once it settles (see `era`), and
//! what the server sends of its own is that era's to take. The rules, in
//! order:
//!
//! 1. a request of the server's goes to the legacy server once the era
//!    settled legacy, which answers it through the handlers; until then,
//!    and with a modern server, [`PingOnly`] answers it;
//! 2. a notification goes to the legacy server first, once the era settled
//!    legacy (its `notifications/cancelled` and its session's
//!    notifications are its own), then to its stream, and what neither
//!    takes to the user's handler;
//! 3. the era settles once; a legacy era settled after the server closed
//!    its output ends at once, as it would have ended then;
//! 4. once the client is gone, nothing is answered, and the outgoing
//!    channel is let go.

use std::sync::{Arc, OnceLock};

use super::era::ServerEra;
use super::ping::PingOnly;
use super::routing::{NotificationHandler, Routes};
use crate::client::error::ClientError;
use crate::transport::Inbound;
use crate::wire::{FrameError, Message, Notification};

/// Where what the server sends goes, once read: the routing tables, the
/// server's era, the modern answers to its own requests, and the user's
/// handler. The reader delivers through it, and so does a request served
/// in place (`requests`), for the notifications that come before its
/// response.
#[derive(Clone)]
pub(crate) struct Delivery {
    pub(crate) routes: Arc<Routes>,
    /// The server's era, once settled (rule 3).
    pub(crate) era: Arc<OnceLock<ServerEra>>,
    /// Answers the server's requests as a modern server's (rule 1).
    pub(crate) ping: Arc<PingOnly>,
    pub(crate) on_notification: Option<NotificationHandler>,
}

impl Delivery {
    /// Delivers one frame as it was read: a message to whom it is for; a
    /// message too large fails every waiter, since which one it answered
    /// is unknowable; one that cannot be read is logged.
    pub(crate) fn inbound(&self, inbound: Inbound) {
        let frame = match inbound {
            Inbound::Frame(frame) => frame,
            Inbound::Oversized { limit } => {
                tracing::warn!(limit, "discarded a server message over the size limit");
                self.routes
                    .fail_all(&ClientError::ResponseTooLarge { limit });
                return;
            }
            Inbound::NotUtf8 => {
                tracing::warn!("discarded a server message that is not UTF-8");
                return;
            }
        };
        match frame.parse::<Message>() {
            Ok(message) => self.message(message),
            Err(FrameError::Response {
                id: Some(id),
                reason,
            }) => {
                tracing::warn!(%id, reason, "malformed response from the server");
                self.routes.deliver_malformed(&id, &reason);
            }
            Err(e) => tracing::warn!(error = ?e, "unparseable message from the server"),
        }
    }

    /// The era the server speaks, once settled.
    pub(crate) fn era(&self) -> Option<&ServerEra> {
        self.era.get()
    }

    /// Settles the era as `era`, unless it is settled already; the era
    /// settled (rule 3).
    pub(crate) fn settle(&self, era: ServerEra) -> &ServerEra {
        let settled = self.era.get_or_init(|| era);
        // The tables close before `ended` reads the era, and the era is
        // set before this reads the tables: one of the two sees the other.
        if self.routes.is_closed()
            && let ServerEra::Legacy(server) = settled
        {
            server.closed();
        }
        settled
    }

    /// The server closed its output: what answers its requests stops, and
    /// the tables close.
    pub(crate) fn ended(&self) {
        self.routes.close();
        if let Some(ServerEra::Legacy(server)) = self.era() {
            server.closed();
        }
    }

    /// The client is gone: nothing more is answered (rule 4).
    pub(crate) fn detach(&self) {
        self.ping.detach();
        if let Some(ServerEra::Legacy(server)) = self.era() {
            server.detach();
        }
    }

    /// Delivers one message: a response to its waiter, a request to the
    /// era (rule 1), a notification through
    /// [`notification`](Self::notification).
    fn message(&self, message: Message) {
        match message {
            Message::Response(response) => self.routes.deliver_response(response),
            Message::Notification(n) => self.notification(n),
            Message::Request(request) => match self.era() {
                Some(ServerEra::Legacy(server)) => server.request(request, &self.ping),
                Some(ServerEra::Modern { .. }) | None => self.ping.request(request),
            },
        }
    }

    /// Gives a notification to the era first, then to its stream, and
    /// what neither takes to the user's handler (rule 2).
    pub(crate) fn notification(&self, notification: Notification) {
        let taken = match self.era() {
            Some(ServerEra::Legacy(server)) => server.notification(notification),
            Some(ServerEra::Modern { .. }) | None => Some(notification),
        };
        if let Some(n) = taken.and_then(|n| self.routes.deliver_to_stream(n)) {
            match &self.on_notification {
                Some(handler) => handler(n),
                None => tracing::debug!(method = n.method, "notification from the server"),
            }
        }
    }
}
