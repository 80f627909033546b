//! [`LegacyServer`]: a server of 2025-11-25 or earlier, as the connection
//! keeps it once the era settled legacy: the session open with it, and
//! what the server sends of its own.
//!
//! The connection holds it in its era (`era::ServerEra::Legacy`), so the
//! reader and every method of the client reach the same one. Opening a
//! session and sending within it need the protocol's settings, so they are
//! the protocol's (`protocol::legacy::session`); this is what they keep.
//! The rules, in order:
//!
//! 1. a request of the server's goes to the [`Answerer`], through the
//!    handlers;
//! 2. a `notifications/cancelled` for a request being answered stops that
//!    answer, and goes no further;
//! 3. a notification that names no stream goes to the session streams
//!    that want it, and, if none does, on to the user's handler;
//! 4. the end of the connection ends both, and the end of the client
//!    stops the answers;
//! 5. the session is replaced when the server forgets it, and what the
//!    client learnt of the server's tools outlives any one session.

use std::sync::{Arc, Mutex};

use super::answerer::Answerer;
use super::streams::SessionStreams;
use super::tool_tasks::ToolTasks;
use crate::client::connection::ping::PingOnly;
use crate::client::connection::routing::{cancelled_request, stream_of};
use crate::client::input::Handlers;
use crate::util::lock;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::{Notification, Request};

/// A legacy server: its session, and what it sends of its own, answered
/// and routed.
pub(crate) struct LegacyServer {
    /// The session open now (rule 5).
    session: Mutex<Arc<Session>>,
    /// Held while a forgotten session is opened anew (rule 5).
    pub renewal: tokio::sync::Mutex<()>,
    /// Which tools the server runs as tasks (rule 5).
    pub tool_tasks: ToolTasks,
    /// The server's own requests (rules 1 and 2).
    answerer: Answerer,
    /// The session's notifications, to their listeners (rule 3).
    pub streams: Arc<SessionStreams>,
}

/// One legacy session: what the server said when it opened.
#[derive(Debug)]
pub(crate) struct Session {
    /// Counts the sessions of this client, to open each anew only once.
    pub generation: u64,
    /// The server's `InitializeResult`.
    pub server: InitializeResult,
}

impl LegacyServer {
    /// The server whose first session `initialize` answered with `server`;
    /// its requests are answered through `handlers`.
    pub fn new(server: InitializeResult, handlers: Arc<Handlers>) -> Self {
        LegacyServer {
            session: Mutex::new(Arc::new(Session {
                generation: 0,
                server,
            })),
            renewal: tokio::sync::Mutex::new(()),
            tool_tasks: ToolTasks::default(),
            answerer: Answerer::new(handlers),
            streams: Arc::default(),
        }
    }

    /// The session open now.
    pub fn current(&self) -> Arc<Session> {
        Arc::clone(&lock(&self.session))
    }

    /// Replaces the session the server forgot by the one `initialize`
    /// answered with `server` (rule 5).
    pub fn reopened(&self, server: InitializeResult) {
        let mut session = lock(&self.session);
        let generation = session.generation + 1;
        *session = Arc::new(Session { generation, server });
    }

    /// Answers a request of the server's own (rule 1), over `ping`'s
    /// channel.
    pub fn request(&self, request: Request, ping: &PingOnly) {
        self.answerer.answer(request, ping);
    }

    /// Takes a notification before the listen streams see it (rules 2 and
    /// 3), or hands it back: to its stream, or else to the user's handler.
    pub fn notification(&self, notification: Notification) -> Option<Notification> {
        if cancelled_request(&notification).is_some_and(|id| self.answerer.cancel(&id)) {
            return None;
        }
        if stream_of(&notification).is_some() {
            return Some(notification);
        }
        self.streams.deliver(notification)
    }

    /// The server closed its output: the answers stop and the session
    /// streams end (rule 4).
    pub fn closed(&self) {
        self.answerer.stop_all();
        self.streams.clear();
    }

    /// The client is gone: the answers stop (rule 4).
    pub fn detach(&self) {
        self.answerer.stop_all();
    }
}
