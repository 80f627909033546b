//! One connection to a server: request ids, the `_meta` every request
//! carries, sending a request and waiting for its response, cancelling it
//! when the waiter goes away, and agreeing on a protocol version.
//!
//! The protocol is stateless, so there is no handshake: every request
//! carries the client's version, capabilities and identity in `_meta`.
//! When the server refuses the version (`-32022`), the connection adopts
//! one both sides support and the request is sent once more.

use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::error::ClientError;
use super::routing::{NotificationHandler, Reply, Routes, read_messages};
use super::transport::ClientTransport;
use crate::transport::{FrameSender, StdioChild};
use crate::util::lock;
use crate::wire::{
    ErrorObject, JSONRPC_VERSION, Message, Notification, Outcome, RequestId, RequestMeta, codes,
    notifications,
};

/// How a [`Connection`] is set up; the builder's choices.
pub(super) struct ConnectionSettings {
    /// The `_meta` of every request, with the preferred version.
    pub meta: RequestMeta,
    /// The protocol versions the client speaks, preferred first.
    pub versions: Vec<String>,
    /// How long a request may wait for its response.
    pub request_timeout: Option<Duration>,
    /// Receives the notifications no stream takes.
    pub on_notification: Option<NotificationHandler>,
}

/// An open connection, shared by every clone of a client and every stream
/// it opened.
pub(super) struct Connection {
    outgoing: FrameSender,
    routes: Arc<Routes>,
    next_id: AtomicI64,
    /// The `_meta` every request carries; replaced when the version changes.
    meta: Mutex<Arc<RequestMeta>>,
    versions: Vec<String>,
    request_timeout: Option<Duration>,
    /// The server process, when the client spawned one.
    child: Mutex<Option<StdioChild>>,
}

impl Connection {
    /// Starts reading from `transport`. Must be called inside a tokio
    /// runtime: the reader is a task of its own.
    pub(super) fn open(transport: ClientTransport, settings: ConnectionSettings) -> Connection {
        let ClientTransport { channel, child } = transport;
        let routes = Routes::open();
        tokio::spawn(read_messages(
            channel.incoming,
            Arc::clone(&routes),
            settings.on_notification,
        ));
        Connection {
            outgoing: channel.outgoing,
            routes,
            next_id: AtomicI64::new(1),
            meta: Mutex::new(Arc::new(settings.meta)),
            versions: settings.versions,
            request_timeout: settings.request_timeout,
            child: Mutex::new(child),
        }
    }

    /// How long a request may wait for its response, if limited.
    pub(super) fn request_timeout(&self) -> Option<Duration> {
        self.request_timeout
    }

    /// Whether the client declares `extension` on its requests.
    pub(super) fn declares(&self, extension: &str) -> bool {
        lock(&self.meta)
            .client_capabilities
            .has_extension(extension)
    }

    /// Sends a request with the required `_meta` and returns its `result`,
    /// uninterpreted. On `-32022` it retries once with a version both sides
    /// support.
    pub(super) async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        self.agreeing_on_version(|| self.request_once(method, params))
            .await
    }

    /// Runs `attempt`; when the server refuses the protocol version, adopts
    /// one both sides support and runs it once more.
    pub(super) async fn agreeing_on_version<T, Fut>(
        &self,
        attempt: impl Fn() -> Fut,
    ) -> Result<T, ClientError>
    where
        Fut: Future<Output = Result<T, ClientError>>,
    {
        match attempt().await {
            Err(ClientError::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                self.adopt_version(&e)?;
                attempt().await
            }
            other => other,
        }
    }

    /// Switches to the preferred version among those the server's `-32022`
    /// error lists. That may be the version just refused: a server (or a
    /// gateway in front of it) may refuse a first request and list the
    /// very version it carried, and one retry with it is what the spec asks.
    /// `agreeing_on_version` retries only once, so this cannot loop.
    fn adopt_version(&self, error: &ErrorObject) -> Result<(), ClientError> {
        let supported: Vec<String> = error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or_default();
        let mut meta = lock(&self.meta);
        let choice = self.versions.iter().find(|v| supported.contains(v));
        match choice {
            Some(v) => {
                Arc::make_mut(&mut meta).protocol_version = v.clone();
                Ok(())
            }
            None => Err(ClientError::UnsupportedVersion {
                supported,
                ours: self.versions.clone(),
            }),
        }
    }

    async fn request_once<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        let id = self.next_request_id();
        let response = self.routes.await_response(&id);
        let mut unanswered = CancelOnDrop {
            connection: self,
            id: Some(id.clone()),
        };
        self.send_request(&id, method, params).await?;
        let response = match self.request_timeout {
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

    /// Sends request `id` with the current `_meta` beside `params`.
    pub(super) async fn send_request<P: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let meta = Arc::clone(&lock(&self.meta));
        let frame = OutgoingRequest {
            jsonrpc: JSONRPC_VERSION,
            id,
            method,
            params: WithMeta {
                params,
                meta: &meta,
            },
        }
        .to_line()?;
        self.outgoing
            .send(frame)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Shuts the spawned server down, if the client spawned one: its stdin
    /// closed, then SIGTERM, then SIGKILL, as each grace period lapses.
    pub(super) async fn shut_down_child(&self) -> std::io::Result<()> {
        let child = lock(&self.child).take();
        if let Some(child) = child {
            child.shutdown().await?;
        }
        Ok(())
    }
}

/// Cancels a request whose waiter goes away before its response arrives:
/// dropping the request future (a `tokio::time::timeout`, a `select!` that
/// took another branch) or timing out sends `notifications/cancelled`.
/// Disarmed by taking `id` once the response is in.
struct CancelOnDrop<'a> {
    connection: &'a Connection,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.connection.abandon(id);
        }
    }
}

/// A request as sent, borrowing its params instead of copying them.
#[derive(Serialize)]
struct OutgoingRequest<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: WithMeta<'a, P>,
}

impl<P: Serialize + ?Sized> OutgoingRequest<'_, P> {
    fn to_line(&self) -> Result<String, ClientError> {
        serde_json::to_string(self)
            .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))
    }
}

/// A method's params with the request `_meta` beside them.
#[derive(Serialize)]
struct WithMeta<'a, P: ?Sized> {
    #[serde(flatten)]
    params: &'a P,
    #[serde(rename = "_meta")]
    meta: &'a RequestMeta,
}
