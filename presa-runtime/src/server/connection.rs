//! Serving a [`Server`] over one transport connection.
//!
//! The connection is the only place that knows several requests share a
//! channel: it runs each request on its own tokio task, tracks them by id so
//! that `notifications/cancelled` can drop the right one, and answers frames
//! that are not messages at all (`-32700`, `-32600`). A response from the
//! client, well formed or not, is logged and dropped: JSON-RPC never
//! answers a response.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::{AbortHandle, JoinSet};

use super::caller::Caller;
use super::reply::{invalid_request, server_busy};
use super::router::Server;
use crate::transport::{FrameChannel, FrameSender, Inbound};
use crate::util::lock;
use crate::wire::{
    FrameError, Message, Method, Notification, Request, RequestId, Response, notifications, strict,
};

type InFlight = Arc<Mutex<HashMap<RequestId, Running>>>;

/// A request in flight: how to stop it, and the slot it holds. Removing it
/// from the map (cancellation, or the request ending) frees the slot at
/// once, so a client may replace a cancelled subscription straight away.
struct Running {
    handle: AbortHandle,
    _permit: OwnedSemaphorePermit,
}

/// How long requests still running when the peer closes the connection may
/// take to finish before they are dropped.
pub const CLOSE_DRAIN: Duration = Duration::from_secs(30);

/// How many `subscriptions/listen` streams one connection may hold open.
pub const MAX_SUBSCRIPTIONS: usize = 64;

impl Server {
    /// Serves this server on the process's stdin and stdout, anonymously,
    /// until stdin closes; then answers what is still running (for up to
    /// [`CLOSE_DRAIN`]), flushes stdout and returns. Only MCP messages go
    /// to stdout: send logs to stderr (a `tracing` subscriber writing to
    /// stdout would corrupt the stream).
    ///
    /// The one-line `main` of a stdio server:
    /// `server.serve_stdio().await`. For a subject other than anonymous, or
    /// another byte stream, use [`serve`].
    pub async fn serve_stdio(self) {
        let channel = crate::transport::stdio(self.max_message_size());
        serve(self, channel, Caller::anonymous()).await;
    }
}

/// Starts serving `server` on a new in-process connection on behalf of
/// `caller`, and returns the client's end. Messages still cross as
/// serialized frames, through the same connection loop as every other
/// transport, so behaviour is identical, down to the parse errors.
///
/// Must be called inside a tokio runtime.
pub fn in_process(server: &Server, caller: Caller) -> FrameChannel {
    let (client_end, server_end) = FrameChannel::pair();
    tokio::spawn(serve(server.clone(), server_end, caller));
    client_end
}

/// Serves `server` over `channel` until the peer closes it.
///
/// Requests still running then get up to [`CLOSE_DRAIN`] to finish, so a
/// client that writes its requests and closes its side (`printf … | server`)
/// still reads every answer; whatever is left after that is dropped.
/// Subscription streams end at once, since they never finish on their own.
/// The function returns once everything sent has been written out.
///
/// At most [`ServerBuilder::max_in_flight`](super::ServerBuilder::max_in_flight)
/// requests run at once. Past that, up to as many again wait in a backlog
/// while the connection keeps reading notifications (so a client can still
/// cancel), and beyond the backlog the connection stops reading, so a peer
/// that never reads its answers cannot grow memory. Subscription streams
/// do not count against the limit but against [`MAX_SUBSCRIPTIONS`].
pub async fn serve(server: Server, channel: FrameChannel, caller: Caller) {
    let FrameChannel {
        mut incoming,
        outgoing,
        writer,
    } = channel;
    let limit = server.max_in_flight();
    let mut connection = Connection {
        permits: Arc::new(Semaphore::new(limit)),
        subscription_permits: Arc::new(Semaphore::new(MAX_SUBSCRIPTIONS)),
        server,
        caller,
        outgoing,
        in_flight: Arc::default(),
        tasks: JoinSet::new(),
        subscriptions: JoinSet::new(),
        backlog: VecDeque::new(),
        backlog_limit: limit,
        open: true,
        closed_at: None,
    };
    while connection.open || !connection.backlog.is_empty() {
        if !connection.backlog.is_empty() {
            let Some(permit) = connection.permit(&mut incoming).await else {
                continue;
            };
            // The head stays queued while it waits, so a cancellation finds it.
            if let Some(request) = connection.backlog.pop_front() {
                connection.spawn(request, permit, false);
            }
            continue;
        }
        match incoming.recv().await {
            Some(inbound) => connection.receive(inbound).await,
            None => connection.close(),
        }
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
    subscriptions: JoinSet<()>,
    permits: Arc<Semaphore>,
    subscription_permits: Arc<Semaphore>,
    /// Requests read while every permit was taken.
    backlog: VecDeque<Request>,
    backlog_limit: usize,
    /// Whether the peer may still send.
    open: bool,
    closed_at: Option<tokio::time::Instant>,
}

impl Connection {
    async fn receive(&mut self, inbound: Inbound) {
        let limit = self.server.max_message_size();
        match inbound {
            Inbound::Frame(frame) if frame.len() <= limit => match frame.parse::<Message>() {
                Err(e) => self.refuse(e).await,
                Ok(Message::Request(request)) => self.accept(request).await,
                Ok(Message::Notification(n)) => self.on_notification(n),
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
                self.refuse(error).await;
            }
        }
        while self.tasks.try_join_next().is_some() {}
        while self.subscriptions.try_join_next().is_some() {}
    }

    /// Acts on `notifications/cancelled`: a queued request is dropped from
    /// the backlog, a running one aborted. Other notifications are ignored.
    fn on_notification(&mut self, notification: Notification) {
        if notification.method != notifications::CANCELLED {
            tracing::debug!(method = notification.method, "ignoring notification");
            return;
        }
        let params = notification
            .params
            .and_then(|p| strict::from_value::<notifications::CancelledParams>(p).ok());
        let Some(params) = params else {
            tracing::debug!("ignoring a malformed notifications/cancelled");
            return;
        };
        let id = params.request_id;
        self.backlog.retain(|queued| queued.id != id);
        if let Some(running) = lock(&self.in_flight).remove(&id) {
            tracing::debug!(%id, reason = ?params.reason, "cancelling request");
            running.handle.abort();
        }
    }

    /// Answers a frame that is no message with the error it deserves; a
    /// malformed response deserves none.
    async fn refuse(&self, error: FrameError) {
        match error.to_response() {
            Some(reply) => self.send(reply.into()).await,
            None => tracing::warn!(
                ?error,
                "ignoring a malformed response from the client; clients must not send them"
            ),
        }
    }

    async fn refuse_oversized(&self, limit: usize) {
        let error = invalid_request(format!(
            "message exceeds the {limit}-byte limit and was discarded"
        ));
        self.send(Response::error(None, error).into()).await;
    }

    /// Starts a subscription at once; queues any other request for a permit.
    async fn accept(&mut self, request: Request) {
        if Method::parse(&request.method) != Some(Method::SubscriptionsListen) {
            self.backlog.push_back(request);
            return;
        }
        match Arc::clone(&self.subscription_permits).try_acquire_owned() {
            Ok(permit) => self.spawn(request, permit, true),
            Err(_) => {
                let error = server_busy(MAX_SUBSCRIPTIONS);
                self.send(Response::error(Some(request.id), error).into())
                    .await;
            }
        }
    }

    /// Waits for a request permit, reading (and acting on) what the peer
    /// sends meanwhile, until the backlog is full.
    async fn permit(
        &mut self,
        incoming: &mut mpsc::Receiver<Inbound>,
    ) -> Option<OwnedSemaphorePermit> {
        loop {
            if self.backlog.is_empty() {
                return None;
            }
            let permits = Arc::clone(&self.permits);
            let reading = self.open && self.backlog.len() <= self.backlog_limit;
            let deadline = self.closed_at.map(|closed| closed + CLOSE_DRAIN);
            tokio::select! {
                biased;
                permit = permits.acquire_owned() => {
                    return Some(permit.expect("the semaphore is never closed"));
                }
                inbound = incoming.recv(), if reading => match inbound {
                    Some(inbound) => self.receive(inbound).await,
                    None => self.close(),
                },
                () = until(deadline) => {
                    tracing::warn!(
                        left = self.backlog.len(),
                        "dropping backlogged requests after the drain period"
                    );
                    self.backlog.clear();
                    return None;
                }
            }
        }
    }

    /// The peer closed its side: subscriptions end now, requests get until
    /// [`CLOSE_DRAIN`] from here.
    fn close(&mut self) {
        self.open = false;
        self.closed_at.get_or_insert_with(tokio::time::Instant::now);
        self.subscriptions.abort_all();
    }

    fn spawn(&mut self, request: Request, permit: OwnedSemaphorePermit, subscription: bool) {
        let id = request.id.clone();
        if lock(&self.in_flight).contains_key(&id) {
            let error =
                invalid_request(format!("id {id} is already in use by a request in flight"));
            let outgoing = self.outgoing.clone();
            let line = Message::from(Response::error(Some(id), error)).to_line();
            self.tasks.spawn(async move {
                let _permit = permit;
                let _ = outgoing.send(line).await;
            });
            return;
        }
        let mut stream = self.server.handle(request, &self.caller);
        let outgoing = self.outgoing.clone();
        let registry = Arc::clone(&self.in_flight);
        let key = id.clone();
        let set = if subscription {
            &mut self.subscriptions
        } else {
            &mut self.tasks
        };
        // Holding the lock across `spawn` keeps the task from unregistering
        // itself before it is registered.
        let mut running = lock(&self.in_flight);
        let handle = set.spawn(async move {
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
        running.insert(
            id,
            Running {
                handle,
                _permit: permit,
            },
        );
    }

    async fn send(&self, message: Message) {
        // A closed channel means the peer is gone; there is no one to tell.
        let _ = self.outgoing.send(message.to_line()).await;
    }

    /// Ends the subscriptions, waits up to [`CLOSE_DRAIN`] for the requests
    /// still running, then drops the rest and waits until they are gone.
    async fn drain(&mut self) {
        self.subscriptions.abort_all();
        while self.subscriptions.join_next().await.is_some() {}
        let tasks = &mut self.tasks;
        let deadline = self.closed_at.unwrap_or_else(tokio::time::Instant::now) + CLOSE_DRAIN;
        let drained = tokio::time::timeout_at(deadline, async {
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
        if running
            .get(&self.key)
            .is_some_and(|r| r.handle.id() == self.task)
        {
            running.remove(&self.key);
        }
    }
}

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
