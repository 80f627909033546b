//! Where what the server sends goes: a response to the request that waits
//! for it, a notification to the `subscriptions/listen` stream it belongs
//! to or else to the user's notification handler. (A request of the
//! server's own goes to its era, which sees every notification first too:
//! see `delivery`.)
//!
//! Whoever reads the server's frames delivers them, one at a time (see
//! `reading`: a request waiting for its response, or the connection's
//! reader task); the requests and streams register in [`Routes`] before
//! they send anything, so no answer can arrive for a waiter that does not
//! exist yet. When the frames end (the server closed its output), the
//! tables close: every waiter wakes with [`ClientError::Closed`], every
//! stream ends, and a request registered afterwards fails at once instead
//! of waiting forever.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::client::error::ClientError;
use crate::util::lock;
use crate::wire::{META_SUBSCRIPTION_ID, Notification, RequestId, Response, notifications};

/// What a waiting request receives: the server's response, or why none
/// will come.
pub(crate) type Reply = Result<Response, ClientError>;

/// How many notifications may wait for a slow subscriber; more are dropped.
pub(crate) const SUBSCRIPTION_CAPACITY: usize = 64;

/// Receives every notification that belongs to no stream.
pub(crate) type NotificationHandler = Arc<dyn Fn(Notification) + Send + Sync>;

/// The routing tables shared by the reader and the requests.
pub(crate) struct Routes {
    /// Requests waiting for their response, by id; `None` once the
    /// connection closed.
    pending: Mutex<Option<HashMap<RequestId, oneshot::Sender<Reply>>>>,
    /// Open `subscriptions/listen` streams, by the id of their request.
    streams: Mutex<HashMap<RequestId, mpsc::Sender<Notification>>>,
}

impl Routes {
    /// Fresh tables of an open connection.
    pub(crate) fn open() -> Arc<Routes> {
        Arc::new(Routes {
            pending: Mutex::new(Some(HashMap::new())),
            streams: Mutex::default(),
        })
    }

    /// Makes request `id` wait for its response; register before sending.
    /// On a closed connection the reply is [`ClientError::Closed`] at once.
    pub(crate) fn await_response(&self, id: &RequestId) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        match lock(&self.pending).as_mut() {
            Some(pending) => {
                pending.insert(id.clone(), tx);
            }
            None => {
                let _ = tx.send(Err(ClientError::Closed));
            }
        }
        rx
    }

    /// Stops waiting for request `id`; whether it was still waiting.
    pub(crate) fn forget(&self, id: &RequestId) -> bool {
        lock(&self.pending)
            .as_mut()
            .and_then(|pending| pending.remove(id))
            .is_some()
    }

    /// Routes the notifications of stream `id` to the returned receiver,
    /// until [`close_stream`](Self::close_stream) or the stream's response.
    pub(crate) fn open_stream(&self, id: &RequestId) -> mpsc::Receiver<Notification> {
        let (tx, rx) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        lock(&self.streams).insert(id.clone(), tx);
        rx
    }

    /// Stops routing notifications to stream `id`; what still arrives for
    /// it is dropped.
    pub(crate) fn close_stream(&self, id: &RequestId) {
        lock(&self.streams).remove(id);
    }

    /// Wakes the request `response` answers. A `subscriptions/listen`
    /// response also closes that stream: notifications that arrived before
    /// it stay readable, later ones are dropped.
    pub(crate) fn deliver_response(&self, response: Response) {
        let Some(id) = response.id.clone() else {
            tracing::debug!("response with a null id");
            return;
        };
        self.close_stream(&id);
        match lock(&self.pending).as_mut().and_then(|m| m.remove(&id)) {
            Some(waiter) => {
                let _ = waiter.send(Ok(response));
            }
            None => tracing::debug!(%id, "response to no pending request"),
        }
    }

    /// Fails the request a malformed response answers, which would
    /// otherwise wait for an answer that has come and gone.
    pub(crate) fn deliver_malformed(&self, id: &RequestId, reason: &str) {
        self.close_stream(id);
        if let Some(waiter) = lock(&self.pending).as_mut().and_then(|m| m.remove(id)) {
            let error = ClientError::InvalidResponse(format!("malformed response: {reason}"));
            let _ = waiter.send(Err(error));
        }
    }

    /// Gives `notification` to the open stream it belongs to; hands it back
    /// when it belongs to none.
    pub(crate) fn deliver_to_stream(&self, notification: Notification) -> Option<Notification> {
        let Some(id) = stream_of(&notification) else {
            return Some(notification);
        };
        let Some(stream) = lock(&self.streams).get(&id).cloned() else {
            // The stream is closed; what the server still sends on it
            // belongs to no one (notably its own teardown).
            tracing::debug!(%id, method = notification.method, "notification for a closed subscription");
            return None;
        };
        match stream.try_send(notification) {
            Ok(()) => None,
            Err(mpsc::error::TrySendError::Full(n)) => {
                // Task states are snapshots; a later one or a poll replaces it.
                tracing::debug!(%id, method = n.method, "subscription full; notification dropped");
                None
            }
            Err(mpsc::error::TrySendError::Closed(n)) => Some(n),
        }
    }

    /// Fails every waiter: which request a discarded message answered is
    /// unknowable, and failing beats one hanging forever.
    pub(crate) fn fail_all(&self, error: &ClientError) {
        for (_, waiter) in lock(&self.pending).iter_mut().flat_map(|m| m.drain()) {
            let _ = waiter.send(Err(error.clone()));
        }
    }

    /// Whether the connection is gone: [`close`](Self::close) ran.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.pending).is_none()
    }

    /// The connection is gone. Dropping the senders wakes every waiter with
    /// [`ClientError::Closed`] and ends every stream.
    pub(crate) fn close(&self) {
        lock(&self.pending).take();
        lock(&self.streams).clear();
    }
}

/// The stream a notification belongs to: the one its `_meta` names, or,
/// for the server's `notifications/cancelled` of a listen request that
/// names none, the request it cancels.
pub(crate) fn stream_of(notification: &Notification) -> Option<RequestId> {
    let params = notification.params.as_ref()?;
    let id = match params
        .get("_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
    {
        Some(id) => id,
        None if notification.method == notifications::CANCELLED => params.get("requestId")?,
        None => return None,
    };
    request_id(id)
}

/// The request a `notifications/cancelled` cancels; `None` for any other
/// notification, or one that names no request.
pub(crate) fn cancelled_request(notification: &Notification) -> Option<RequestId> {
    if notification.method != notifications::CANCELLED {
        return None;
    }
    notification
        .params
        .as_ref()?
        .get("requestId")
        .and_then(request_id)
}

/// A request id as the server wrote it, if it is one.
pub(crate) fn request_id(value: &Value) -> Option<RequestId> {
    serde_json::from_value(value.clone()).ok()
}
