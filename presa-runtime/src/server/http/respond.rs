//! Turning the messages that answer one request into an HTTP response.
//!
//! The server core answers a request with a stream: notifications, then
//! one response. HTTP wants to know the content type before the first
//! byte, so the first message decides it:
//!
//! - the response itself comes first: a plain `application/json` body,
//!   with the status its error calls for (see [`status_of`]); a `503`
//!   (the server is at a limit, its task store is unavailable, or it is
//!   shutting down) says when to retry with `Retry-After`;
//! - a notification comes first (progress, log messages, a subscription's
//!   acknowledgement): `text/event-stream`, one event per message, ending
//!   with the response. What the core sends after the response (the
//!   `notifications/cancelled` a stdio subscription ends with) is not
//!   sent: on HTTP, the end of the stream says it.
//!
//! Dropping the HTTP body (the client hung up) drops the stream, and with
//! it the handler: that is cancellation on this transport.
//!
//! What the request holds until it is answered (its caller's slot) is
//! dropped as soon as the response is out of the stream, or with the
//! stream: before the client can read the response, so a client that has
//! read one may send the next at once.

use std::convert::Infallible;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, stream};

use crate::server::request::reply::RETRY_AFTER_SECONDS;
use crate::server::request::stream::ResponseStream;
use crate::wire::{ErrorObject, Message, Outcome, Response as JsonRpcResponse, codes};

/// How often a quiet event stream sends a comment, so that proxies and
/// clients do not time it out.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The HTTP response for the messages of `stream`, which holds `held`
/// until its response is out.
pub(super) async fn respond(mut stream: ResponseStream, held: impl Send + 'static) -> Response {
    match stream.next().await {
        Some(Message::Response(response)) => json_response(&response),
        Some(first) => event_stream(first, stream, held),
        // The core always answers; an empty stream is a bug, not a hang.
        None => {
            let error = ErrorObject::new(codes::INTERNAL_ERROR, "Internal error");
            json_response(&JsonRpcResponse::error(None, error))
        }
    }
}

/// A single JSON-RPC message as an `application/json` body.
pub(super) fn json_response(response: &JsonRpcResponse) -> Response {
    let status = match &response.outcome {
        Outcome::Result(_) => StatusCode::OK,
        Outcome::Error(error) => status_of(error),
    };
    let body = response.to_line();
    let mut reply = (status, body).into_response();
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    reply
}

/// A JSON-RPC error without an id, with an explicit HTTP status.
pub(super) fn with_status(status: StatusCode, error: ErrorObject) -> Response {
    let mut reply = json_response(&JsonRpcResponse::error(None, error));
    *reply.status_mut() = status;
    reply
}

/// The HTTP status of a JSON-RPC error: what the transport spec gives for
/// each, `400` for a request the server cannot accept, `500` for a failure
/// of its own.
fn status_of(error: &ErrorObject) -> StatusCode {
    match error.code {
        codes::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        codes::PARSE_ERROR
        | codes::INVALID_REQUEST
        | codes::INVALID_PARAMS
        | codes::HEADER_MISMATCH
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        codes::TOO_MANY_TASKS
        | codes::SERVER_BUSY
        | codes::TASK_STORE_UNAVAILABLE
        | codes::SHUTTING_DOWN => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// `first` and the rest of `stream` as server-sent events, up to and
/// including the response, before which `held` is dropped.
fn event_stream(first: Message, rest: ResponseStream, held: impl Send + 'static) -> Response {
    let messages = stream::once(async move { first })
        .chain(rest)
        .scan(Some(held), |held, message| {
            let answered = held.is_none();
            if let Message::Response(_) = &message {
                held.take();
            }
            std::future::ready((!answered).then_some(message))
        })
        .map(|message| Ok::<_, Infallible>(Event::default().data(message.to_line())));
    let mut reply = Sse::new(messages)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    // Tell buffering proxies (nginx) to pass events through as they come.
    reply
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    reply
}

/// `405` for what the endpoint does not serve.
pub(super) fn method_not_allowed() -> Response {
    let mut reply = StatusCode::METHOD_NOT_ALLOWED.into_response();
    reply
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST, GET, DELETE"));
    reply
}
