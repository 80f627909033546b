//! The legacy session over Streamable HTTP (2025-11-25 and earlier): what
//! the link keeps of it, and where a stream stands for resuming it.
//!
//! The modern transport has no session and no resumption; a legacy server
//! has both. The rules, in order (`stream` and `exchange` follow them):
//!
//! 1. a session begins when `initialize` is answered with a result: the
//!    `Mcp-Session-Id` the server assigned (if it did) and the version it
//!    chose go on every later request, as `Mcp-Session-Id` and
//!    `MCP-Protocol-Version`, and no modern header does;
//! 2. `notifications/initialized` goes before any request of the session;
//!    once the server accepted it, the client opens the GET stream, where
//!    the server sends messages of its own, and waits for the server's
//!    answer to it (at most [`LISTENER_WAIT`]) before sending anything
//!    more, so that the server has a stream for them from the first
//!    request on. A `405` (or any other refusal) means it offers none;
//! 3. a stream that ends or breaks is resumed with a GET carrying
//!    `Last-Event-ID`, after the `retry` the server asked for
//!    ([`DEFAULT_RETRY`] if it did not; never sooner than [`MIN_RETRY`]),
//!    provided the server gave an event id: a POST's stream until its
//!    response arrives, the GET stream for the session's life. A resume
//!    that fails [`MAX_FAILED_RESUMES`] times in a row gives up;
//! 4. a `404` to a request that carried the session id means the server
//!    ended the session: the link forgets it (and its GET stream), and the
//!    request fails as expired, so that the client opens a new session
//!    and sends it again. A request sent before the new session opened
//!    fails as expired too, without reaching the server; a notification
//!    or response is dropped;
//! 5. closing the client, or dropping it, sends `DELETE` with the
//!    session id.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use tokio::task::AbortHandle;

use crate::client::link::http::link::Link;
use crate::client::link::http::sse::EventReader;
use crate::client::link::link_error::LinkFailure;
use crate::util::lock;
use crate::wire::{RequestId, Response, headers};

/// The header that carries the session id.
pub(super) const SESSION_ID: &str = "Mcp-Session-Id";
/// The header that resumes a stream.
pub(super) const LAST_EVENT_ID: &str = "Last-Event-ID";
/// How long to wait before resuming when the server named no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The shortest wait before resuming, whatever the server asks: a server
/// that closes at once with `retry: 0` must not make the client spin.
pub(super) const MIN_RETRY: Duration = Duration::from_millis(50);
/// How long the client waits for the server to answer its GET stream
/// before sending the session's first requests (rule 2).
pub(super) const LISTENER_WAIT: Duration = Duration::from_secs(5);
/// How many resumes in a row may fail before the stream is given up.
pub(super) const MAX_FAILED_RESUMES: u32 = 3;

/// What the link keeps of a legacy session (rule 1).
#[derive(Debug)]
pub(crate) struct Session {
    /// The session id, when the server assigned one.
    pub id: Option<HeaderValue>,
    /// The version `initialize` settled on.
    pub version: String,
    /// The GET stream's task, once opened (rule 2).
    pub listening: Option<AbortHandle>,
}

/// The HTTP link within legacy sessions: the link every request shares,
/// and the session slot that only legacy code reads. `dispatch` builds it
/// beside the link, and hands it each message of the client first.
pub(crate) struct LegacyLink {
    /// The link the modern requests use too.
    pub link: Arc<Link>,
    /// The legacy session, once `initialize` opened one.
    pub session: SessionSlot,
}

impl LegacyLink {
    /// The legacy side of `link`, with no session open yet.
    pub fn new(link: Arc<Link>) -> Self {
        LegacyLink {
            link,
            session: SessionSlot::default(),
        }
    }
}

/// The session slot the legacy link holds.
#[derive(Debug, Default)]
pub(crate) struct SessionSlot {
    state: Mutex<SlotState>,
}

/// Where the link stands with legacy sessions.
#[derive(Debug, Default)]
enum SlotState {
    /// No session ever opened: the link speaks the modern transport.
    #[default]
    Modern,
    /// A session is open.
    Open(Session),
    /// The session ended, and no new one has opened yet: a request sent
    /// meanwhile fails as expired, to be sent again in the new session.
    Ended,
}

impl SessionSlot {
    /// Whether a legacy session is open.
    pub fn is_open(&self) -> bool {
        matches!(*lock(&self.state), SlotState::Open(_))
    }

    /// Whether the link speaks the legacy transport: a session is open,
    /// or one ended and the next is yet to open.
    pub fn is_legacy(&self) -> bool {
        !matches!(*lock(&self.state), SlotState::Modern)
    }

    /// Whether a session ended and the next is yet to open (rule 4).
    pub fn is_between_sessions(&self) -> bool {
        matches!(*lock(&self.state), SlotState::Ended)
    }

    /// The headers a request in the session carries, and whether they
    /// name a session id; `None` outside a session.
    pub fn headers(&self) -> Option<(HeaderMap, bool)> {
        let state = lock(&self.state);
        let SlotState::Open(session) = &*state else {
            return None;
        };
        let mut headers = HeaderMap::new();
        if let Ok(version) = HeaderValue::from_str(&session.version) {
            headers.insert(headers::PROTOCOL_VERSION, version);
        }
        if let Some(id) = &session.id {
            headers.insert(SESSION_ID, id.clone());
        }
        Some((headers, session.id.is_some()))
    }

    /// Begins a session (rule 1), ending any before it.
    pub fn begin(&self, id: Option<HeaderValue>, version: String) {
        let session = Session {
            id,
            version,
            listening: None,
        };
        let old = std::mem::replace(&mut *lock(&self.state), SlotState::Open(session));
        if let SlotState::Open(old) = old {
            stop(old);
        }
    }

    /// Records the GET stream's task, unless it already runs or the
    /// session ended; whether it was recorded.
    pub fn listen(&self, task: impl FnOnce() -> AbortHandle) -> bool {
        let mut state = lock(&self.state);
        match &mut *state {
            SlotState::Open(session) if session.listening.is_none() => {
                session.listening = Some(task());
                true
            }
            _ => false,
        }
    }

    /// Forgets the session (rule 4); what it was, for a `DELETE`.
    pub fn end(&self) -> Option<Session> {
        let mut state = lock(&self.state);
        match std::mem::replace(&mut *state, SlotState::Ended) {
            SlotState::Open(session) => Some(stop(session)),
            SlotState::Modern => {
                *state = SlotState::Modern;
                None
            }
            SlotState::Ended => None,
        }
    }
}

/// Stops the session's GET stream.
fn stop(mut session: Session) -> Session {
    if let Some(task) = session.listening.take() {
        task.abort();
    }
    session
}

/// Where a stream stands, for resuming it (rule 3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Position {
    /// The id of the last event the server numbered.
    pub last_event_id: Option<String>,
    /// How long the server asked the client to wait before reconnecting.
    pub retry: Option<Duration>,
}

impl Position {
    /// Takes in what `events` learnt of the stream.
    pub fn update<S>(&mut self, events: &EventReader<S>) {
        if let Some(id) = events.last_event_id() {
            self.last_event_id = Some(id.to_owned());
        }
        if let Some(retry) = events.retry() {
            self.retry = Some(retry);
        }
    }

    /// How long to wait before resuming.
    pub fn delay(&self) -> Duration {
        self.retry.unwrap_or(DEFAULT_RETRY).max(MIN_RETRY)
    }
}

/// The client's part of a `404` to a request that named the session.
pub(super) fn expired(id: RequestId) -> Response {
    let failure = LinkFailure {
        status: Some(404),
        session_expired: true,
    };
    let error = failure.to_error("http", "the server ended the session (HTTP 404)");
    Response::error(Some(id), error)
}
