//! The legacy session's streams over HTTP: the GET stream where the
//! server sends messages of its own, resuming a stream with
//! `Last-Event-ID`, and the `DELETE` that ends the session (rules 2, 3
//! and 5 of `session`).

use std::sync::Arc;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use tokio::sync::oneshot;

use super::session::LegacyLink;
use super::session::{
    LAST_EVENT_ID, LISTENER_WAIT, MAX_FAILED_RESUMES, Position, SESSION_ID, Session,
};
use crate::client::link::http::link::is_event_stream;
use crate::client::link::http::sse::EventReader;
use crate::wire::{Message, RequestId};

impl LegacyLink {
    /// Opens a GET stream in the session, from `position`; `None` when
    /// the server refuses it (or the session is gone), with the status.
    pub(super) async fn open_stream(
        &self,
        position: &Position,
    ) -> Result<reqwest::Response, Option<StatusCode>> {
        let (mut headers, _) = self.session.headers().ok_or(None)?;
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(id) = &position.last_event_id
            && let Ok(id) = HeaderValue::from_str(id)
        {
            headers.insert(LAST_EVENT_ID, id);
        }
        let sent = self
            .link
            .send(|| {
                self.link
                    .http
                    .get(&self.link.endpoint)
                    .headers(headers.clone())
            })
            .await;
        match sent {
            Ok(reply) if reply.status().is_success() && is_event_stream(reply.headers()) => {
                Ok(reply)
            }
            Ok(reply) => Err(Some(reply.status())),
            Err(error) => {
                tracing::debug!(%error, "could not open the GET stream");
                Err(None)
            }
        }
    }

    /// Opens the GET stream of the session, once, and waits until the
    /// server answered it, or refused it, for at most [`LISTENER_WAIT`]
    /// (rule 2).
    pub(super) async fn open_listener(self: &Arc<Self>) {
        let (opened, answered) = oneshot::channel();
        let link = Arc::clone(self);
        let started = self
            .session
            .listen(|| tokio::spawn(async move { link.listen(opened).await }).abort_handle());
        if started && tokio::time::timeout(LISTENER_WAIT, answered).await.is_err() {
            tracing::debug!("the server has not answered the GET stream yet; going on");
        }
    }

    /// Relays the GET stream for as long as the session lasts; `opened`
    /// learns when the server first answered.
    async fn listen(&self, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut position = Position::default();
        let mut failures = 0;
        loop {
            let reply = self.open_stream(&position).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match reply {
                Ok(reply) => {
                    failures = 0;
                    self.relay_stream(reply, &mut position).await;
                }
                Err(Some(status)) if status.is_client_error() => {
                    tracing::debug!(%status, "the server offers no GET stream");
                    return;
                }
                Err(_) => failures += 1,
            }
            if failures >= MAX_FAILED_RESUMES || !self.session.is_open() {
                return;
            }
            tokio::time::sleep(position.delay()).await;
        }
    }

    /// Hands the client everything a GET stream carries, until it ends.
    async fn relay_stream(&self, reply: reqwest::Response, position: &mut Position) {
        let mut events = EventReader::new(reply.bytes_stream(), self.link.options.max_message_size);
        while let Some(event) = events.next().await {
            position.update(&events);
            match event {
                Ok(event) if event.data.is_empty() => {}
                Ok(event) => match event.data.parse::<Message>() {
                    Ok(Message::Response(response)) => self.link.answer_elsewhere(response).await,
                    Ok(message) => self.link.deliver(message).await,
                    Err(error) => {
                        tracing::debug!(?error, "an event that is not a JSON-RPC message")
                    }
                },
                Err(reason) => {
                    tracing::debug!(reason, "the GET stream broke");
                    break;
                }
            }
        }
        position.update(&events);
    }

    /// Resumes the stream that was to answer request `id` (rule 3); the
    /// new stream, or why there is none.
    pub(super) async fn resume(
        &self,
        id: &RequestId,
        position: &Position,
    ) -> Result<reqwest::Response, String> {
        if position.last_event_id.is_none() {
            return Err("the server ended the event stream without answering".into());
        }
        let mut failures = 0;
        loop {
            tokio::time::sleep(position.delay()).await;
            match self.open_stream(position).await {
                Ok(reply) => return Ok(reply),
                Err(status) if failures + 1 >= MAX_FAILED_RESUMES => {
                    let status = status.map_or("no answer".into(), |s| s.to_string());
                    return Err(format!(
                        "the event stream for request {id} ended and could not be resumed ({status})"
                    ));
                }
                Err(_) => failures += 1,
            }
        }
    }

    /// Ends the session on the server (rule 5), if one is open.
    pub(super) async fn delete_session(&self) {
        let Some(Session { id: Some(id), .. }) = self.session.end() else {
            return;
        };
        let mut headers = HeaderMap::new();
        headers.insert(SESSION_ID, id);
        let sent = self
            .link
            .send(|| {
                self.link
                    .http
                    .delete(&self.link.endpoint)
                    .headers(headers.clone())
            })
            .await;
        if let Err(error) = sent {
            tracing::debug!(%error, "could not end the session");
        }
    }
}
