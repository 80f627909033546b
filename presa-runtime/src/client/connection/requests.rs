//! One connection to a server: request ids, sending a request and waiting
//! for its response, cancelling it when the waiter goes away, and the
//! requests the server sends the other way.
//!
//! The connection holds the server's era once the layer above settled it
//! ([`settle`](Connection::settle)), so that what the server sends of its
//! own reaches that era (see `delivery`). The layer above decides what a
//! request carries (the modern `_meta`, or nothing beside its params in a
//! legacy session).
//!
//! A request with `_meta` stands on its own, so where the transport offers
//! its server [in place](crate::transport::InPlace) (in process), such a
//! request is served there, on the caller's task: its answers are read as
//! they are made, its notifications delivered as the reader would, and
//! dropping it drops the server's handler, with no notification to send.
//! Everything else takes the frame channel.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use super::delivery::Delivery;
use super::era::ServerEra;
use super::ping::PingOnly;
use super::reading::Reading;
use super::routing::{NotificationHandler, Reply, Routes};
use crate::client::error::ClientError;
use crate::client::link::{ClientTransport, Shutdown};
use crate::telemetry::context;
use crate::transport::{Answers, InPlace};
use crate::util::lock;
use crate::wire::{
    FrameError, JsonRpcVersion, Message, Notification, Outcome, RequestId, RequestMeta, Response,
    notifications,
};

/// How long a request waits, and what giving up means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Waiting {
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
pub(crate) struct Connection {
    pub(crate) outgoing: crate::transport::FrameSender,
    pub(crate) routes: Arc<Routes>,
    /// Where what the server sends goes, the notifications of a request
    /// served in place too; it holds the server's era, once settled.
    delivery: Delivery,
    /// Who reads the frames: a request waiting for its response, or the
    /// reader task.
    reading: Arc<Reading>,
    /// The server, in place, where the transport offers it.
    in_place: Option<InPlace>,
    next_id: AtomicI64,
    /// How the connection ends: the spawned server, or the HTTP link's `OnClose`.
    shutdown: Mutex<Option<Shutdown>>,
}

impl Connection {
    /// Starts reading from `transport`: responses go to their requests,
    /// notifications to their streams or `on_notification`, and the
    /// server's own requests to its era, once settled. Must be called
    /// inside a tokio runtime: the reader is a task of its own, which
    /// requests that wait stand in for (`reading`).
    pub(crate) fn open(
        transport: ClientTransport,
        on_notification: Option<NotificationHandler>,
    ) -> Connection {
        let ClientTransport { channel, shutdown } = transport;
        let routes = Routes::open();
        let delivery = Delivery {
            routes: Arc::clone(&routes),
            era: Arc::default(),
            ping: Arc::new(PingOnly::new(channel.outgoing.clone())),
            on_notification,
        };
        let reading = Reading::new(channel.incoming, delivery.clone());
        tokio::spawn(Arc::clone(&reading).run());
        Connection {
            reading,
            outgoing: channel.outgoing,
            routes,
            delivery,
            in_place: channel.in_place,
            next_id: AtomicI64::new(1),
            shutdown: Mutex::new(shutdown),
        }
    }

    /// Sends a request with `meta` beside its params (none in a legacy
    /// session) and returns its `result`, uninterpreted, or its error.
    pub(crate) async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        meta: Option<&RequestMeta>,
        waiting: Waiting,
    ) -> Result<Value, ClientError> {
        let response = match (&self.in_place, meta) {
            (Some(server), Some(meta)) => {
                self.request_in_place(server, method, params, meta, waiting)
                    .await?
            }
            _ => {
                self.request_by_frames(method, params, meta, waiting)
                    .await?
            }
        };
        match response.outcome {
            Outcome::Result(result) => Ok(result),
            Outcome::Error(error) => Err(ClientError::Rpc(error)),
        }
    }

    /// [`request`](Self::request) over the frame channel: the request
    /// reads its response itself while no one else reads (`reading`).
    async fn request_by_frames<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        meta: Option<&RequestMeta>,
        waiting: Waiting,
    ) -> Result<Response, ClientError> {
        let id = self.next_request_id();
        let response = self.routes.await_response(&id);
        let mut unanswered = CancelOnDrop {
            connection: self,
            id: Some(id.clone()),
            cancels: waiting.cancels,
        };
        self.send_request(&id, method, params, meta).await?;
        let response = self.reading.response(response);
        let response = match waiting.limit {
            Some(limit) => tokio::time::timeout(limit, response)
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => response.await,
        }?;
        unanswered.id = None;
        Ok(response)
    }

    /// [`request`](Self::request) served in place (see the module docs):
    /// giving up, on the time limit or by dropping this, drops the
    /// server's handler.
    async fn request_in_place<P: Serialize + ?Sized>(
        &self,
        server: &InPlace,
        method: &str,
        params: &P,
        meta: &RequestMeta,
        waiting: Waiting,
    ) -> Result<Response, ClientError> {
        let id = self.next_request_id();
        let answers = self.serve_in_place(server, &id, method, params, meta)?;
        let answered = self.read_in_place(answers, id);
        match waiting.limit {
            Some(limit) => tokio::time::timeout(limit, answered)
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => answered.await,
        }
    }

    /// The server in place, where the transport offers it.
    pub(crate) fn in_place(&self) -> Option<&InPlace> {
        self.in_place.as_ref()
    }

    /// Hands request `id` to `server`, in place; its answers, made as
    /// they are polled.
    pub(crate) fn serve_in_place<P: Serialize + ?Sized>(
        &self,
        server: &InPlace,
        id: &RequestId,
        method: &str,
        params: &P,
        meta: &RequestMeta,
    ) -> Result<Answers, ClientError> {
        Ok(server.serve(request_line(id, method, params, Some(meta))?))
    }

    /// Reads the answers of request `id`, served in place, up to its
    /// response; what comes before it is delivered as the reader would.
    async fn read_in_place(
        &self,
        mut answers: Answers,
        id: RequestId,
    ) -> Result<Response, ClientError> {
        use futures::StreamExt;
        while let Some(frame) = answers.next().await {
            match answer_in_place(&frame, &id) {
                Some(AnswerInPlace::Response(response)) => return Ok(response),
                Some(AnswerInPlace::Notification(notification)) => self.deliver(notification),
                Some(AnswerInPlace::Malformed(error)) => return Err(error),
                None => {}
            }
        }
        Err(unanswered_in_place(&id))
    }

    /// Delivers `notification` as the reader would: to the answers of the
    /// server's requests, to its stream, or to the user's handler.
    pub(crate) fn deliver(&self, notification: Notification) {
        self.delivery.notification(notification);
    }

    /// The era the server speaks, once settled.
    pub(crate) fn era(&self) -> Option<&ServerEra> {
        self.delivery.era()
    }

    /// Settles the server's era as `era`, unless it is settled already;
    /// from now on what the server sends of its own goes to it. The era
    /// settled.
    pub(crate) fn settle(&self, era: ServerEra) -> &ServerEra {
        self.delivery.settle(era)
    }

    /// A fresh request id.
    pub(crate) fn next_request_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Opens stream `id` before its `subscriptions/listen` request is sent,
    /// so that nothing the server sends on it is missed: the stream's
    /// notifications, and the response that ends it.
    pub(crate) fn open_stream(
        &self,
        id: &RequestId,
    ) -> (mpsc::Receiver<Notification>, oneshot::Receiver<Reply>) {
        (self.routes.open_stream(id), self.routes.await_response(id))
    }

    /// Stops routing stream `id`'s notifications. Its request, if still
    /// unanswered, stays registered: [`abandon`](Self::abandon) or
    /// [`forget`](Self::forget) it.
    pub(crate) fn close_stream(&self, id: &RequestId) {
        self.routes.close_stream(id);
    }

    /// Stops waiting for request `id` without telling the server: for a
    /// request the server itself ended.
    pub(crate) fn forget(&self, id: &RequestId) {
        self.routes.forget(id);
    }

    /// Stops waiting for request `id` and, unless its response already
    /// arrived, tells the server to stop working on it.
    pub(crate) fn abandon(&self, id: RequestId) {
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

    /// Sends request `id`, with `meta` beside its params.
    pub(crate) async fn send_request<P: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        method: &str,
        params: &P,
        meta: Option<&RequestMeta>,
    ) -> Result<(), ClientError> {
        let frame = request_line(id, method, params, meta)?;
        self.outgoing
            .send(frame)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Ends what the transport holds open: a spawned server gets its stdin
    /// closed, then SIGTERM, then SIGKILL (on Windows, TerminateProcess),
    /// as each grace period lapses; an HTTP link ends what it holds open
    /// (its `OnClose`). Once only; later calls do nothing.
    pub(crate) async fn shut_down(&self) -> std::io::Result<()> {
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
        self.delivery.detach();
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

/// One frame of the answers of a request served in place, as its reader
/// takes it.
pub(crate) enum AnswerInPlace {
    /// The response that ends the request.
    Response(Response),
    /// A notification sent on the request's stream.
    Notification(Notification),
    /// A response that cannot be read: the request's end, as an error.
    Malformed(ClientError),
}

/// What `frame`, one of the answers of request `id` served in place, is to
/// its reader; `None` for a frame it can only log.
pub(crate) fn answer_in_place(frame: &str, id: &RequestId) -> Option<AnswerInPlace> {
    match frame.parse::<Message>() {
        Ok(Message::Response(response)) if response.id.as_ref() == Some(id) => {
            Some(AnswerInPlace::Response(response))
        }
        Ok(Message::Notification(notification)) => Some(AnswerInPlace::Notification(notification)),
        Ok(other) => {
            tracing::warn!(?other, %id, "the server answered a request in place with a message of no place there");
            None
        }
        Err(FrameError::Response { reason, .. }) => Some(AnswerInPlace::Malformed(
            ClientError::InvalidResponse(format!("malformed response: {reason}")),
        )),
        Err(e) => {
            tracing::warn!(error = ?e, "unparseable message from the server");
            None
        }
    }
}

/// Why request `id`, served in place, has no response: its answers ended
/// without one.
pub(crate) fn unanswered_in_place(id: &RequestId) -> ClientError {
    ClientError::InvalidResponse(format!(
        "the server ended request {id}, served in place, without answering it"
    ))
}

/// A request as sent, borrowing its params instead of copying them.
#[derive(Serialize)]
struct OutgoingRequest<'a, P: ?Sized> {
    jsonrpc: JsonRpcVersion,
    id: &'a RequestId,
    method: &'a str,
    params: Shaped<'a, P>,
}

/// Request `id` as a line to send, with `meta` beside its params.
pub(crate) fn request_line<P: Serialize + ?Sized>(
    id: &RequestId,
    method: &str,
    params: &P,
    meta: Option<&RequestMeta>,
) -> Result<String, ClientError> {
    if let Some(trace) = context::current_fields() {
        return traced_request_line(id, method, params, meta, trace);
    }
    let request = OutgoingRequest {
        jsonrpc: JsonRpcVersion,
        id,
        method,
        params: Shaped { params, meta },
    };
    serde_json::to_string(&request)
        .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))
}

/// [`request_line`], with the current span's trace context added to the
/// request's `_meta` (rule 3 of `telemetry`): beside the modern keys, or
/// in the `_meta` a legacy request's params carry.
fn traced_request_line<P: Serialize + ?Sized>(
    id: &RequestId,
    method: &str,
    params: &P,
    meta: Option<&RequestMeta>,
    trace: Map<String, Value>,
) -> Result<String, ClientError> {
    let unserializable = |e: serde_json::Error| {
        ClientError::InvalidArguments(format!("params do not serialize: {e}"))
    };
    let mut shaped = serde_json::to_value(Shaped { params, meta }).map_err(unserializable)?;
    if let Value::Object(fields) = &mut shaped {
        let meta = fields
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.extend(trace);
        }
    }
    let request = OutgoingRequest {
        jsonrpc: JsonRpcVersion,
        id,
        method,
        params: Shaped {
            params: &shaped,
            meta: None,
        },
    };
    serde_json::to_string(&request).map_err(unserializable)
}

/// A method's params, with the modern `_meta` beside them, if any.
#[derive(Serialize)]
struct Shaped<'a, P: ?Sized> {
    #[serde(flatten)]
    params: &'a P,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a RequestMeta>,
}
