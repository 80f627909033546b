//! One request's POST and what answers it: a JSON body, or an event
//! stream of the server's notifications and requests, then the response.
//!
//! The rules, in order:
//!
//! 1. a legacy `404` to a request that named the session ends the session
//!    (see `session`), and the request fails as expired;
//! 2. a JSON body that is a JSON-RPC response is the answer, whatever the
//!    status: a modern server's `400` carries a modern error this way;
//!    any other body is an error naming the status, which is how the
//!    client's era probe sees a legacy server's refusal;
//! 3. on an event stream, everything before the response is handed to the
//!    client as it comes (a resumed stream may carry another request's
//!    response, which goes to that request); an event that is not a
//!    JSON-RPC message is skipped; a malformed response ends the stream as
//!    its answer;
//! 4. a stream that ends before its response is resumed in a legacy
//!    session (see `session`); a modern one has no resumption, and the
//!    request fails;
//! 5. an answer to `initialize` that is a result begins the legacy
//!    session, with the `Mcp-Session-Id` its reply carried.

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::Value;

use super::link::{Link, is_event_stream};
use super::session::{Position, SESSION_ID, expired};
use super::sse::EventReader;
use crate::client::link_error::LinkFailure;
use crate::wire::legacy::INITIALIZE;
use crate::wire::{FrameError, Message, Method, Outcome, Request, RequestId, Response};

impl Link {
    /// Sends `request` and relays what comes before its response; returns
    /// the response, or an error response saying why there is none.
    pub(super) async fn post(
        &self,
        request: &Request,
        frame: &str,
        method: Option<Method>,
    ) -> Response {
        let id = request.id.clone();
        let initialize = request.method == INITIALIZE;
        if !initialize && self.session.is_between_sessions() {
            return expired(id);
        }
        let session = self.session.headers().filter(|_| !initialize);
        let headers = match (&session, initialize) {
            (_, true) => self.base_headers(),
            (Some((session, _)), false) => {
                let mut headers = self.base_headers();
                headers.extend(session.clone());
                headers
            }
            (None, false) => self.modern_headers(request, method),
        };
        let sent = self
            .send(|| {
                self.http
                    .post(&self.endpoint)
                    .headers(headers.clone())
                    .body(frame.to_owned())
            })
            .await;
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
        let mut response = if is_event_stream(reply.headers()) {
            self.read_events(id.clone(), reply).await
        } else {
            self.read_json(id.clone(), reply).await
        };
        if let Outcome::Result(result) = &mut response.outcome {
            if initialize {
                self.begin_session(session_id, result);
            } else if method == Some(Method::ToolsList) && !self.session.is_legacy() {
                self.learn_tools(result);
            }
        }
        response
    }

    /// Begins the legacy session an `initialize` result opens (rule 5).
    fn begin_session(&self, id: Option<reqwest::header::HeaderValue>, result: &Value) {
        let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
            return;
        };
        self.session.begin(id, version.to_owned());
    }

    /// Relays an event stream's messages, resuming it in a legacy session
    /// when it ends early; returns its response (rules 3 and 4).
    async fn read_events(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let mut position = Position::default();
        let mut reply = reply;
        loop {
            let ended = match self.relay_until_response(&id, reply, &mut position).await {
                Ok(response) => return answering(response, id),
                Err(ended) => ended,
            };
            if !self.session.is_open() {
                return failure(id, None, ended);
            }
            reply = match self.resume(&id, &position).await {
                Ok(resumed) => resumed,
                Err(reason) => return failure(id, None, reason),
            };
        }
    }

    /// Relays one stream until the response; why it ended without one.
    async fn relay_until_response(
        &self,
        id: &RequestId,
        reply: reqwest::Response,
        position: &mut Position,
    ) -> Result<Response, String> {
        let limit = self.options.max_message_size;
        let mut events = EventReader::new(reply.bytes_stream(), limit);
        while let Some(event) = events.next().await {
            position.update(&events);
            let event = match event {
                Ok(event) => event,
                Err(reason) if self.session.is_open() => {
                    tracing::debug!(%id, reason, "the event stream broke; resuming");
                    return Err(reason);
                }
                Err(reason) => return Ok(failure(id.clone(), None, reason)),
            };
            if event.data.is_empty() {
                continue;
            }
            match event.data.parse::<Message>() {
                Ok(Message::Response(response)) if response.id.as_ref().is_none_or(|r| r == id) => {
                    return Ok(response);
                }
                Ok(Message::Response(other)) => self.answer_elsewhere(other).await,
                Ok(message) => self.deliver(message).await,
                Err(FrameError::Response { reason, .. }) => {
                    let reason = format!("malformed response: {reason}");
                    return Ok(failure(id.clone(), None, reason));
                }
                Err(error) => tracing::debug!(?error, "an event that is not a JSON-RPC message"),
            }
        }
        position.update(&events);
        Err("the server ended the event stream without answering".into())
    }

    /// Reads a JSON body: the response, or the error its status implies
    /// (rule 2).
    async fn read_json(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let status = reply.status();
        // A refused credential says why in its challenge (no secret).
        let challenge = reply
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = match read_limited(reply, self.options.max_message_size).await {
            Ok(body) => body,
            Err(reason) => return failure(id, Some(status), reason),
        };
        match std::str::from_utf8(&body).ok().map(str::parse::<Message>) {
            Some(Ok(Message::Response(response))) => answering(response, id),
            _ => {
                let text = String::from_utf8_lossy(&body);
                let excerpt: String = text.chars().take(200).collect();
                let mut reason = format!("HTTP {status} without a JSON-RPC answer: {excerpt}");
                if let Some(challenge) = challenge {
                    reason.push_str(&format!(" (WWW-Authenticate: {challenge})"));
                }
                failure(id, Some(status), reason)
            }
        }
    }
}

/// The body of `reply`, refusing one over `limit` bytes as it streams in.
async fn read_limited(reply: reqwest::Response, limit: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut chunks = reply.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| format!("the response broke off: {e}"))?;
        if body.len() + chunk.len() > limit {
            return Err(format!("the response exceeds the {limit}-byte limit"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `response` as the answer to request `id` (an error sent without an id,
/// as servers do for transport-level refusals, is given it).
fn answering(mut response: Response, id: RequestId) -> Response {
    response.id.get_or_insert(id);
    response
}

/// An error response for a request the transport could not complete,
/// with the status the server answered, if it did.
pub(super) fn failure(id: RequestId, status: Option<StatusCode>, reason: String) -> Response {
    tracing::debug!(%id, reason, "HTTP request failed");
    let failure = LinkFailure {
        status: status.map(|s| s.as_u16()),
        session_expired: false,
    };
    Response::error(Some(id), failure.to_error("http", &reason))
}
