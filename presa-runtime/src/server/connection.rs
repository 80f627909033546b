//! Serving a [`Server`] over one transport connection.
//!
//! The connection is the only place that knows several requests share a
//! channel: it runs each request on its own tokio task, tracks them by id so
//! that `notifications/cancelled` can drop the right one, and answers frames
//! that are not requests at all (`-32700`, `-32600`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::Semaphore;
use tokio::task::{AbortHandle, JoinSet};

use super::Server;
use crate::transport::{FrameChannel, FrameSender, Inbound};
use crate::wire::{
    ErrorObject, FrameError, Message, Notification, Request, RequestId, Response, codes,
    notifications,
};

/// The authenticated identity behind a connection, supplied by the
/// transport. Tasks and `requestState` are bound to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The subject; `None` for an anonymous caller.
    pub subject: Option<String>,
}

impl Caller {
    /// An anonymous caller.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller authenticated as `subject`.
    pub fn subject(subject: impl Into<String>) -> Self {
        Caller {
            subject: Some(subject.into()),
        }
    }
}

type InFlight = Arc<Mutex<HashMap<RequestId, AbortHandle>>>;

/// How long requests still running when the peer closes the connection may
/// take to finish before they are dropped.
pub const CLOSE_DRAIN: Duration = Duration::from_secs(30);

/// Serves `server` over `channel` until the peer closes it.
///
/// Requests still running then get up to [`CLOSE_DRAIN`] to finish, so a
/// client that writes its requests and closes its side (`printf … | server`)
/// still reads every answer; whatever is left after that is dropped. The
/// function returns once everything sent has been written out.
///
/// At most [`ServerBuilder::max_in_flight`](super::ServerBuilder::max_in_flight)
/// requests run at once; past that the connection stops reading until one
/// finishes, so a peer that never reads its answers cannot grow memory.
pub async fn serve(server: Server, channel: FrameChannel, caller: Caller) {
    let FrameChannel {
        mut incoming,
        outgoing,
        writer,
    } = channel;
    let mut connection = Connection {
        permits: Arc::new(Semaphore::new(server.inner.max_in_flight)),
        server,
        caller,
        outgoing,
        in_flight: Arc::default(),
        tasks: JoinSet::new(),
    };
    while let Some(inbound) = incoming.recv().await {
        connection.receive(inbound).await;
    }
    connection.drain().await;
    drop(connection);
    if let Some(writer) = writer {
        // Every sender is gone, so the writer flushes what is queued and ends.
        let _ = writer.await;
    }
}

/// One connection's requests in flight.
struct Connection {
    server: Server,
    caller: Caller,
    outgoing: FrameSender,
    in_flight: InFlight,
    tasks: JoinSet<()>,
    permits: Arc<Semaphore>,
}

impl Connection {
    async fn receive(&mut self, inbound: Inbound) {
        let limit = self.server.inner.max_message_size;
        match inbound {
            Inbound::Frame(frame) if frame.len() <= limit => match frame.parse::<Message>() {
                Err(e) => self.send(e.to_response().into()).await,
                Ok(Message::Request(request)) => self.start(request).await,
                Ok(Message::Notification(n)) => on_notification(n, &self.in_flight),
                Ok(Message::Response(_)) => {
                    tracing::warn!(
                        "ignoring a response from the client; clients must not send them"
                    )
                }
            },
            Inbound::Frame(_) => self.refuse_oversized(limit).await,
            Inbound::Oversized { limit } => self.refuse_oversized(limit).await,
            Inbound::NotUtf8 => {
                let error = FrameError::Parse("the message is not valid UTF-8".into());
                self.send(error.to_response().into()).await;
            }
        }
        while self.tasks.try_join_next().is_some() {}
    }

    async fn refuse_oversized(&self, limit: usize) {
        let error = ErrorObject::new(
            codes::INVALID_REQUEST,
            format!("Invalid request: message exceeds the {limit}-byte limit and was discarded"),
        );
        self.send(Response::error(None, error).into()).await;
    }

    async fn start(&mut self, request: Request) {
        let id = request.id.clone();
        if lock(&self.in_flight).contains_key(&id) {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                format!("Invalid request: id {id} is already in use by a request in flight"),
            );
            self.send(Response::error(Some(id), error).into()).await;
            return;
        }
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let mut stream = self.server.handle(request, &self.caller);
        let outgoing = self.outgoing.clone();
        let registry = Arc::clone(&self.in_flight);
        let key = id.clone();
        // Holding the lock across `spawn` keeps the task from unregistering
        // itself before it is registered.
        let mut running = lock(&self.in_flight);
        let handle = self.tasks.spawn(async move {
            let _permit = permit;
            let _unregister = Unregister {
                registry,
                key,
                task: tokio::task::id(),
            };
            while let Some(message) = stream.next().await {
                if outgoing.send(message.to_line()).await.is_err() {
                    break;
                }
            }
        });
        running.insert(id, handle);
    }

    async fn send(&self, message: Message) {
        // A closed channel means the peer is gone; there is no one to tell.
        let _ = self.outgoing.send(message.to_line()).await;
    }

    /// Waits up to [`CLOSE_DRAIN`] for the requests still running, then
    /// drops the rest and waits until they are gone.
    async fn drain(&mut self) {
        let tasks = &mut self.tasks;
        let drained = tokio::time::timeout(CLOSE_DRAIN, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                left = self.tasks.len(),
                "the peer closed the connection; dropping requests still running after the drain period"
            );
            self.tasks.abort_all();
            while self.tasks.join_next().await.is_some() {}
        }
    }
}

/// Removes a finished request from the in-flight map, unless the id has
/// since been taken by a newer request.
struct Unregister {
    registry: InFlight,
    key: RequestId,
    task: tokio::task::Id,
}

impl Drop for Unregister {
    fn drop(&mut self) {
        let mut running = lock(&self.registry);
        if running.get(&self.key).is_some_and(|h| h.id() == self.task) {
            running.remove(&self.key);
        }
    }
}

/// Locks `mutex`, recovering the data if a panic poisoned it: every value
/// guarded here stays consistent between statements.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn on_notification(notification: Notification, in_flight: &InFlight) {
    if notification.method != notifications::CANCELLED {
        tracing::debug!(method = notification.method, "ignoring notification");
        return;
    }
    let params = notification
        .params
        .and_then(|p| serde_json::from_value::<notifications::CancelledParams>(p).ok());
    let Some(params) = params else {
        tracing::debug!("ignoring a malformed notifications/cancelled");
        return;
    };
    if let Some(handle) = lock(in_flight).remove(&params.request_id) {
        tracing::debug!(id = %params.request_id, reason = ?params.reason, "cancelling request");
        handle.abort();
    }
}
