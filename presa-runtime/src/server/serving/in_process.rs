//! [`in_process`]: a [`Server`] serving a client in the same process, in
//! two halves on behalf of one caller.
//!
//! - The frames: a connection (`connection`) on an in-memory channel,
//!   which takes everything, in either era, down to raw frames of a test.
//! - In place ([`InPlace`]): an in-process client's 2026-07-28 requests,
//!   each of which stands on its own, served on the client's own task,
//!   with no channel and no hand-over between tasks.
//!
//! A request served in place meets the connection's rules, in the
//! connection's order, as far as they apply to a request with no channel
//! under it:
//!
//! 1. the frame is read as the connection reads it: over the message size
//!    limit it is answered `-32600` unread, and a frame that is no message
//!    gets the error the connection would give it. Only a request is
//!    served: a notification or a response has nothing here to act on (a
//!    request served in place is cancelled by dropping its answers), so it
//!    is logged and dropped;
//! 2. the request waits for room in this in-process connection's memory
//!    budget (inside the server's), charged by its parsed size as on any
//!    connection; the caller is the one who waits;
//! 3. it then waits for one of the server's `max_in_flight` slots, or, a
//!    `subscriptions/listen` stream, takes one of [`MAX_SUBSCRIPTIONS`]
//!    places or is refused `-31001`;
//! 4. it is served in the 2026-07-28 era, its answers made as the caller
//!    polls them; dropping them drops the handler, its slot and its charge.
//!
//! There is no drain period and no end of input: the client owns every
//! request it is polling, and ends it by dropping it.

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::connection::{MAX_SUBSCRIPTIONS, request_footprint, serve};
use crate::server::caller::Caller;
use crate::server::request::reply::{invalid_request, server_busy};
use crate::server::request::stream::ResponseStream;
use crate::server::router::Server;
use crate::transport::{Answers, FrameChannel, InPlace, ServeInPlace};
use crate::util::Budget;
use crate::wire::{Message, Method, Response};

/// Starts serving `server` on a new in-process connection on behalf of
/// `caller`, and returns the client's end. Messages still cross as
/// serialized frames, through the same connection loop as every other
/// transport, so behaviour is identical, down to the parse errors.
///
/// The end also offers the same server [in place](crate::transport::InPlace),
/// which presa's client takes for every 2026-07-28 request: it is served
/// on the client's own task, as serialized frames all the same, under the
/// rules of `in_process` (the connection's, for a request with no channel
/// under it). Whoever reads the frames alone is served by the loop.
///
/// Must be called inside a tokio runtime.
pub fn in_process(server: &Server, caller: Caller) -> FrameChannel {
    let (mut client_end, server_end) = FrameChannel::pair();
    let in_place = InPlaceConnection::new(server.clone(), caller.clone());
    client_end.in_place = Some(InPlace::new(in_place));
    tokio::spawn(serve(server.clone(), server_end, caller));
    client_end
}

/// One in-process client's requests, served in place.
struct InPlaceConnection {
    server: Server,
    caller: Caller,
    /// This connection's memory budget, inside the server's (rule 2).
    budget: Budget,
    /// The slots of requests in flight (rule 3).
    permits: Arc<Semaphore>,
    /// The places of open subscriptions (rule 3).
    subscription_permits: Arc<Semaphore>,
}

impl InPlaceConnection {
    /// Serves `server` in place on behalf of `caller`.
    fn new(server: Server, caller: Caller) -> Self {
        InPlaceConnection {
            budget: server.connection_budget(),
            permits: Arc::new(Semaphore::new(server.max_in_flight())),
            subscription_permits: Arc::new(Semaphore::new(MAX_SUBSCRIPTIONS)),
            server,
            caller,
        }
    }
}

impl ServeInPlace for InPlaceConnection {
    fn serve(&self, frame: String) -> Answers {
        let server = self.server.clone();
        let caller = self.caller.clone();
        let budget = self.budget.clone();
        let permits = Arc::clone(&self.permits);
        let subscriptions = Arc::clone(&self.subscription_permits);
        let admitted = async move {
            let limit = server.max_message_size();
            if frame.len() > limit {
                let error = invalid_request(format!(
                    "message exceeds the {limit}-byte limit and was discarded"
                ));
                return Held::ready(Response::error(None, error));
            }
            let request = match frame.parse::<Message>() {
                Ok(Message::Request(request)) => request,
                Ok(other) => {
                    tracing::debug!(
                        ?other,
                        "ignoring a message that is no request: in place, nothing acts on it"
                    );
                    return Held::empty();
                }
                Err(e) => return e.to_response().map_or_else(Held::empty, Held::ready),
            };
            let charge = budget.charge(request_footprint(&request)).await;
            let permit = if Method::parse(&request.method) == Some(Method::SubscriptionsListen) {
                match subscriptions.try_acquire_owned() {
                    Ok(permit) => permit,
                    Err(_) => {
                        let error = server_busy(MAX_SUBSCRIPTIONS);
                        return Held::ready(Response::error(Some(request.id), error));
                    }
                }
            } else {
                permits
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed")
            };
            Held {
                stream: Some(server.handle_charged(request, &caller, charge)),
                permit: Some(permit),
            }
        };
        Box::pin(futures::stream::once(admitted).flatten())
    }
}

/// A request's answers, holding its slot until they end or are dropped.
struct Held {
    stream: Option<ResponseStream>,
    permit: Option<OwnedSemaphorePermit>,
}

impl Held {
    /// Only `response`, holding nothing.
    fn ready(response: Response) -> Self {
        Held {
            stream: Some(ResponseStream::ready(response)),
            permit: None,
        }
    }

    /// No answer at all.
    fn empty() -> Self {
        Held {
            stream: None,
            permit: None,
        }
    }
}

impl Stream for Held {
    type Item = String;

    fn poll_next(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
        let Some(stream) = self.stream.as_mut() else {
            return Poll::Ready(None);
        };
        let next = std::task::ready!(stream.poll_next_unpin(cx));
        if next.is_none() {
            // Ended: the slot is free before the caller reads the end.
            self.stream = None;
            self.permit = None;
        }
        Poll::Ready(next.map(|message| message.to_line()))
    }
}
