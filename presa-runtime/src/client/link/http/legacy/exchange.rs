//! What the link does with the client's messages in a legacy session: the
//! requests' POSTs with the session's headers, the messages the modern
//! transport never sends, and the answers read on, resumed when a stream
//! breaks (rules 1 to 4 of `session`).
//!
//! The link hands each message of the client here first ([`forward`]).
//! The rules, in order:
//!
//! 1. `initialize`, and every request once a session began, is posted
//!    with the session's headers (none on `initialize`): a `404` to a
//!    request that named the session ends it, and the request fails as
//!    expired; an answer to `initialize` that is a result begins the
//!    session, with the `Mcp-Session-Id` its reply carried;
//! 2. `notifications/initialized` is posted before anything else of the
//!    session, and then the GET stream opened;
//! 3. the client's responses to the server's requests, its
//!    `notifications/cancelled` (a closed stream is no cancellation to a
//!    legacy server) and its other notifications are posted within the
//!    session; a message sent between two sessions is dropped;
//! 4. an event stream that ends before its response is resumed while the
//!    session is open;
//! 5. closing the client ends the session ([`on_close`]).
//!
//! Everything else goes on to the modern link, as a modern server takes
//! it.

use std::sync::Arc;

use reqwest::StatusCode;

use super::session::{LegacyLink, Position, SESSION_ID, expired};
use crate::client::link::http::link::is_event_stream;
use crate::client::link::http::options::OnClose;
use crate::client::link::http::reply::{answering, failure};
use crate::client::link::http::sse::EventReader;
use crate::wire::legacy::{INITIALIZE, INITIALIZED};
use crate::wire::{Message, Outcome, Request, RequestId, Response, notifications};

/// Takes what the client sends that belongs to a legacy session, or hands
/// it back for the modern link.
pub(crate) async fn forward(
    legacy: &Arc<LegacyLink>,
    message: Message,
    frame: &str,
) -> Option<Message> {
    match message {
        Message::Request(request) if request.method == INITIALIZE || legacy.session.is_legacy() => {
            let id = request.id.clone();
            let task = tokio::spawn(exchange(Arc::clone(legacy), request, frame.to_owned()));
            legacy.link.track(id, task.abort_handle());
            None
        }
        Message::Notification(note) if note.method == INITIALIZED => {
            // In order: no request of the session may overtake it, and
            // the GET stream is open before the first one goes (rule 2).
            if post_within_session(Arc::clone(legacy), frame.to_owned()).await {
                legacy.open_listener().await;
            }
            None
        }
        Message::Notification(note) if note.method == notifications::CANCELLED => {
            if legacy.session.is_open() {
                tokio::spawn(post_within_session(Arc::clone(legacy), frame.to_owned()));
            }
            Some(Message::Notification(note))
        }
        Message::Notification(_) if legacy.session.is_legacy() => {
            tokio::spawn(post_within_session(Arc::clone(legacy), frame.to_owned()));
            None
        }
        Message::Response(_) if legacy.session.is_open() => {
            tokio::spawn(post_within_session(Arc::clone(legacy), frame.to_owned()));
            None
        }
        other => Some(other),
    }
}

/// What closing the client ends on `legacy`: the session, if one is open,
/// with `DELETE` (rule 5 of `session`).
pub(crate) fn on_close(legacy: &Arc<LegacyLink>) -> OnClose {
    let legacy = Arc::clone(legacy);
    OnClose::new(move || {
        let legacy = Arc::clone(&legacy);
        Box::pin(async move { legacy.delete_session().await })
    })
}

/// One request of the session: its POST and the messages that answer it.
async fn exchange(legacy: Arc<LegacyLink>, request: Request, frame: String) {
    let response = legacy.post_in_session(&request, &frame).await;
    legacy.link.deliver(Message::Response(response)).await;
}

/// Posts a notification, or a response to the server's request, within
/// the session (rule 3); the server's `202` needs no relaying. Whether the
/// server accepted it.
async fn post_within_session(legacy: Arc<LegacyLink>, frame: String) -> bool {
    if legacy.session.is_between_sessions() {
        tracing::debug!("dropping a message sent between two sessions");
        return false;
    }
    let mut headers = legacy.link.base_headers();
    if let Some((session, _)) = legacy.session.headers() {
        headers.extend(session);
    }
    legacy.link.post_message(&headers, &frame).await
}

impl LegacyLink {
    /// Sends `request` in the session (rule 1) and relays what comes
    /// before its response; returns the response, or an error response
    /// saying why there is none.
    async fn post_in_session(&self, request: &Request, frame: &str) -> Response {
        let id = request.id.clone();
        let initialize = request.method == INITIALIZE;
        if !initialize && self.session.is_between_sessions() {
            return expired(id);
        }
        let session = self.session.headers().filter(|_| !initialize);
        let mut headers = self.link.base_headers();
        if let Some((session, _)) = &session {
            headers.extend(session.clone());
        }
        let sent = self.link.post_frame(&headers, frame).await;
        let reply = match sent {
            Ok(reply) => reply,
            Err(error) => return failure(id, None, error.to_string()),
        };
        let named_session = session.is_some_and(|(_, named)| named);
        if named_session && reply.status() == StatusCode::NOT_FOUND {
            self.session.end();
            return expired(id);
        }
        let session_id = reply.headers().get(SESSION_ID).cloned();
        let response = if is_event_stream(reply.headers()) {
            self.read_events_resuming(id.clone(), reply).await
        } else {
            self.link.read_json(id.clone(), reply).await
        };
        if let Outcome::Result(result) = &response.outcome
            && initialize
            && let Some(version) = result.get("protocolVersion").and_then(|v| v.as_str())
        {
            self.session.begin(session_id, version.to_owned());
        }
        response
    }

    /// Relays an event stream's messages, resuming it while the session is
    /// open when it ends early; returns its response (rule 4).
    async fn read_events_resuming(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let mut position = Position::default();
        let mut reply = reply;
        loop {
            let limit = self.link.options.max_message_size;
            let mut events = EventReader::new(reply.bytes_stream(), limit);
            let relayed = self.link.relay_until_response(&id, &mut events).await;
            position.update(&events);
            let ended = match relayed {
                Ok(response) => return answering(response, id),
                Err(ended) => ended,
            };
            if !self.session.is_open() {
                return failure(id, None, ended);
            }
            tracing::debug!(%id, reason = ended, "the event stream ended; resuming");
            reply = match self.resume(&id, &position).await {
                Ok(resumed) => resumed,
                Err(reason) => return failure(id, None, reason),
            };
        }
    }
}
