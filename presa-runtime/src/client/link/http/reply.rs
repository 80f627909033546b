//! One request's POST and what answers it: a JSON body, or an event
//! stream of the server's notifications and requests, then the response.
//!
//! This is the modern request's POST; a request within a legacy session
//! is `legacy::exchange`'s, which reads its answer with the same parts.
//! The rules, in order:
//!
//! 1. a modern request carries the headers its body mirrors, and a
//!    `tools/list` answer teaches the link the tools' header parameters;
//! 2. a JSON body that is a JSON-RPC response is the answer, whatever the
//!    status: a modern server's `400` carries a modern error this way;
//!    any other body is an error naming the status, which is how the
//!    client's era probe sees a legacy server's refusal;
//! 3. on an event stream, everything before the response is handed to the
//!    client as it comes (a resumed stream may carry another request's
//!    response, which goes to that request); an event that is not a
//!    JSON-RPC message is skipped; a malformed response ends the stream as
//!    its answer;
//! 4. a stream that ends before its response fails the request: the
//!    modern transport has no resumption (a legacy session resumes it).

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::StatusCode;

use super::link::{Link, is_event_stream};
use super::sse::EventReader;
use crate::client::link::link_error::LinkFailure;
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
        let headers = self.modern_headers(request, method);
        let sent = self.post_frame(&headers, frame).await;
        let reply = match sent {
            Ok(reply) => reply,
            Err(error) => return failure(id, None, error.to_string()),
        };
        let mut response = if is_event_stream(reply.headers()) {
            self.read_events(id.clone(), reply).await
        } else {
            self.read_json(id.clone(), reply).await
        };
        if let Outcome::Result(result) = &mut response.outcome
            && method == Some(Method::ToolsList)
        {
            self.learn_tools(result);
        }
        response
    }

    /// Relays an event stream's messages; returns its response (rules 3
    /// and 4).
    async fn read_events(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let limit = self.options.max_message_size;
        let mut events = EventReader::new(reply.bytes_stream(), limit);
        match self.relay_until_response(&id, &mut events).await {
            Ok(response) => answering(response, id),
            Err(ended) => failure(id, None, ended),
        }
    }

    /// Relays one stream until the response; why it ended, or broke,
    /// without one.
    pub(super) async fn relay_until_response<S, E>(
        &self,
        id: &RequestId,
        events: &mut EventReader<S>,
    ) -> Result<Response, String>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        while let Some(event) = events.next().await {
            let event = event?;
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
        Err("the server ended the event stream without answering".into())
    }

    /// Reads a JSON body: the response, or the error its status implies
    /// (rule 2).
    pub(super) async fn read_json(&self, id: RequestId, reply: reqwest::Response) -> Response {
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
pub(super) fn answering(mut response: Response, id: RequestId) -> Response {
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
