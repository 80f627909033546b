//! One connection to a server: request ids, sending a request and waiting
//! for its response, cancelling it when the waiter goes away, and the
//! requests the server sends the other way.
//!
//! The connection knows nothing of eras: the layer above decides what a
//! request carries (the modern `_meta`, or nothing beside its params in a
//! legacy session) and hands it over as a [`Shape`].

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::error::ClientError;
use super::handlers::Handlers;
use super::legacy::answerer::Answerer;
use super::routing::{NotificationHandler, Reply, Routes, read_messages};
use super::transport::{ClientTransport, Shutdown};
use crate::util::lock;
use crate::wire::{
    JSONRPC_VERSION, Message, Notification, Outcome, RequestId, RequestMeta, notifications,
};

/// What a request carries beside its params.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape<'a> {
    /// A modern request: this `_meta`.
    Modern(&'a RequestMeta),
    /// A legacy request: the params alone, as the session fixed the rest.
    Legacy,
}

/// How long a request waits, and what giving up means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Waiting {
    /// Give up after this long; `None` waits as long as the connection lives.
    pub limit: Option<Duration>,
    /// Whether giving up (or dropping the request) sends
    /// `notifications/cancelled`. Off for `initialize`, which the legacy
    /// lifecycle forbids cancelling, and for the era probe, whose id a
    /// legacy server never took in.
    pub cancels: bool,
}

/// An open connection, shared by every clone of a client and every stream
/// it opened.
pub(super) struct Connection {
    outgoing: crate::transport::FrameSender,
    routes: Arc<Routes>,
    answerer: Arc<Answerer>,
    next_id: AtomicI64,
    /// How the connection ends: the spawned server, or the HTTP session.
    shutdown: Mutex<Option<Shutdown>>,
}

impl Connection {
    /// Starts reading from `transport`: responses go to their requests,
    /// notifications to their streams or `on_notification`, and the
    /// server's own requests to `handlers` (once
    /// [`answer_server_requests`](Self::answer_server_requests) allows it).
    /// Must be called inside a tokio runtime: the reader is a task of its
    /// own.
    pub(super) fn open(
        transport: ClientTransport,
        handlers: Arc<Handlers>,
        on_notification: Option<NotificationHandler>,
    ) -> Connection {
        let ClientTransport { channel, shutdown } = transport;
        let routes = Routes::open();
        let answerer = Arc::new(Answerer::new(handlers, channel.outgoing.clone()));
        tokio::spawn(read_messages(
            channel.incoming,
            Arc::clone(&routes),
            Arc::clone(&answerer),
            on_notification,
        ));
        Connection {
            outgoing: channel.outgoing,
            routes,
            answerer,
            next_id: AtomicI64::new(1),
            shutdown: Mutex::new(shutdown),
        }
    }

    /// From now on, the server's `elicitation/create`, `sampling/createMessage`
    /// and `roots/list` requests are answered through the handlers: the
    /// server speaks the legacy era, where that is how it asks.
    pub(super) fn answer_server_requests(&self) {
        self.answerer.open();
    }

    /// Sends a request shaped by `shape` and returns its `result`,
    /// uninterpreted, or its error.
    pub(super) async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        shape: Shape<'_>,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        let id = self.next_request_id();
        let response = self.routes.await_response(&id);
        let mut unanswered = CancelOnDrop {
            connection: self,
            id: Some(id.clone()),
            cancels: waiting.cancels,
        };
        self.send_request(&id, method, params, shape).await?;
        let response = match waiting.limit {
            Some(limit) => tokio::time::timeout(limit, response)
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => response.await,
        };
        let response = response.map_err(|_| ClientError::Closed)??;
        unanswered.id = None;
        match response.outcome {
            Outcome::Result(result) => Ok(result),
            Outcome::Error(error) => Err(ClientError::Rpc(error)),
        }
    }

    /// Sends `method` as a notification shaped by `shape`.
    pub(super) async fn notify<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        shape: Shape<'_>,
    ) -> Result<(), ClientError> {
        let frame = serde_json::to_string(&OutgoingNotification {
            jsonrpc: JSONRPC_VERSION,
            method,
            params: Shaped::new(params, shape),
        })
        .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))?;
        self.outgoing
            .send(frame)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// A fresh request id.
    pub(super) fn next_request_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Opens stream `id` before its `subscriptions/listen` request is sent,
    /// so that nothing the server sends on it is missed: the stream's
    /// notifications, and the response that ends it.
    pub(super) fn open_stream(
        &self,
        id: &RequestId,
    ) -> (mpsc::Receiver<Notification>, oneshot::Receiver<Reply>) {
        (self.routes.open_stream(id), self.routes.await_response(id))
    }

    /// Opens session stream `id`: what a legacy server sends on the
    /// session that `granted` wants.
    pub(super) fn open_session_stream(
        &self,
        id: &RequestId,
        granted: crate::wire::SubscriptionFilter,
    ) -> mpsc::Receiver<Notification> {
        self.routes.open_session_stream(id, granted)
    }

    /// Narrows what session stream `id` takes to `granted`.
    pub(super) fn regrant_session_stream(
        &self,
        id: &RequestId,
        granted: crate::wire::SubscriptionFilter,
    ) {
        self.routes.regrant_session_stream(id, granted);
    }

    /// Sends a legacy request without waiting for its answer, from code
    /// that cannot wait (a `Drop`); the answer, when it comes, is dropped.
    pub(super) fn send_and_forget<P: Serialize + ?Sized>(&self, method: &str, params: &P) {
        let id = self.next_request_id();
        match (OutgoingRequest {
            jsonrpc: JSONRPC_VERSION,
            id: &id,
            method,
            params: Shaped::new(params, Shape::Legacy),
        })
        .to_line()
        {
            Ok(frame) => self.outgoing.send_detached(frame),
            Err(error) => tracing::debug!(%error, method, "could not send a request"),
        }
    }

    /// Stops routing stream `id`'s notifications. Its request, if still
    /// unanswered, stays registered: [`abandon`](Self::abandon) or
    /// [`forget`](Self::forget) it.
    pub(super) fn close_stream(&self, id: &RequestId) {
        self.routes.close_stream(id);
    }

    /// Stops waiting for request `id` without telling the server: for a
    /// request the server itself ended.
    pub(super) fn forget(&self, id: &RequestId) {
        self.routes.forget(id);
    }

    /// Stops waiting for request `id` and, unless its response already
    /// arrived, tells the server to stop working on it.
    pub(super) fn abandon(&self, id: RequestId) {
        if !self.routes.forget(&id) {
            return;
        }
        let cancel = Notification::new(
            notifications::CANCELLED,
            notifications::CancelledParams {
                request_id: id,
                reason: Some("the client abandoned the request".into()),
            },
        );
        // On stdio the notification is the only way to cancel, so a full
        // channel must delay it, never lose it.
        self.outgoing
            .send_detached(Message::Notification(cancel).to_line());
    }

    /// Sends request `id`, shaped by `shape`.
    pub(super) async fn send_request<P: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        method: &str,
        params: &P,
        shape: Shape<'_>,
    ) -> Result<(), ClientError> {
        let frame = OutgoingRequest {
            jsonrpc: JSONRPC_VERSION,
            id,
            method,
            params: Shaped::new(params, shape),
        }
        .to_line()?;
        self.outgoing
            .send(frame)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Ends what the transport holds open: a spawned server gets its stdin
    /// closed, then SIGTERM, then SIGKILL (on Windows, TerminateProcess),
    /// as each grace period lapses; an HTTP session is deleted. Once only;
    /// later calls do nothing.
    pub(super) async fn shut_down(&self) -> std::io::Result<()> {
        let shutdown = lock(&self.shutdown).take();
        match shutdown {
            Some(shutdown) => shutdown.run().await,
            None => Ok(()),
        }
    }
}

impl Drop for Connection {
    /// The last clone of the client is gone: the answers to the server's
    /// requests stop, and give up their hold on the outgoing channel, so
    /// that dropping the connection closes it.
    fn drop(&mut self) {
        self.answerer.detach();
    }
}

/// Cancels a request whose waiter goes away before its response arrives:
/// dropping the request future (a `tokio::time::timeout`, a `select!` that
/// took another branch) or timing out sends `notifications/cancelled`, or,
/// for a request that must not be cancelled, only stops waiting for it.
/// Disarmed by taking `id` once the response is in.
struct CancelOnDrop<'a> {
    connection: &'a Connection,
    id: Option<RequestId>,
    cancels: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        match self.id.take() {
            Some(id) if self.cancels => self.connection.abandon(id),
            Some(id) => self.connection.forget(&id),
            None => {}
        }
    }
}

/// A request as sent, borrowing its params instead of copying them.
#[derive(Serialize)]
struct OutgoingRequest<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: Shaped<'a, P>,
}

/// A notification as sent.
#[derive(Serialize)]
struct OutgoingNotification<'a, P: ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: Shaped<'a, P>,
}

impl<P: Serialize + ?Sized> OutgoingRequest<'_, P> {
    fn to_line(&self) -> Result<String, ClientError> {
        serde_json::to_string(self)
            .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))
    }
}

/// A method's params, with the modern `_meta` beside them when the shape
/// says so.
#[derive(Serialize)]
struct Shaped<'a, P: ?Sized> {
    #[serde(flatten)]
    params: &'a P,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a RequestMeta>,
}

impl<'a, P: ?Sized> Shaped<'a, P> {
    fn new(params: &'a P, shape: Shape<'a>) -> Self {
        let meta = match shape {
            Shape::Modern(meta) => Some(meta),
            Shape::Legacy => None,
        };
        Shaped { params, meta }
    }
}
