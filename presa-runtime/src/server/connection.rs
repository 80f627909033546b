//! Serving a [`Server`] over one transport connection.
//!
//! The connection is the only place that knows several requests share a
//! channel: it runs each request on its own tokio task, tracks them by id so
//! that `notifications/cancelled` can drop the right one, and answers frames
//! that are not messages at all (`-32700`, `-32600`). JSON-RPC never answers
//! a response: one from the client is routed to the request of the server's
//! that waits for it, in a legacy session, and otherwise logged and dropped.
//!
//! # The era of a connection
//!
//! A connection is modern until the client sends `initialize` (without
//! the modern `_meta`, which would make it a modern request for a method
//! that does not exist): that request is answered at once, before the next frame is read, and opens a
//! legacy session ([`Server::open_session`]) that serves every later
//! request of the connection ([`Server::handle_legacy`]). Its own messages
//! (list changes, the requests of its tasks, cancellations of requests it
//! no longer needs) go through a queue of their own, written like any
//! other message, for as long as the connection lives.
//!
//! # What a connection holds, and when it stops reading
//!
//! A peer decides what the server reads, not what it writes, so every
//! limit is enforced at reading, in this order:
//!
//! 1. a frame over the message size limit is discarded by the transport
//!    while it is read, and answered `-32600`;
//! 2. a request is parsed, and its parsed form measured
//!    ([`footprint`](crate::wire::footprint)); it is read no further until
//!    the connection's memory budget (inside the server's) has room for it
//!    — that is where a connection stops reading;
//! 3. the request, charged, waits in the backlog for one of the
//!    `max_in_flight` slots (cancellations are still read and acted on
//!    meanwhile); past a backlog as long again, the connection stops
//!    reading too;
//! 4. it runs, holding its charge until its handler ends (a call that
//!    becomes a task keeps the server's part while the task runs); a
//!    `subscriptions/listen` stream holds it only until it is
//!    acknowledged, since it ends only when the client ends it, and
//!    holding it longer would let open streams stop the connection from
//!    reading the request that lets them end; a legacy `tasks/result`,
//!    which waits for its task to end, holds none at all, for the same
//!    reason;
//! 5. every message it sends is charged by its length until the transport
//!    has written it, without waiting (rule 3 of the budget), so a peer
//!    that does not read stops the reading of its own requests.
//!
//! Notifications and malformed frames are acted on at once and dropped,
//! so they hold nothing.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};

use super::caller::Caller;
use super::legacy::{LegacySession, SESSION_QUEUE};
use super::reply::{invalid_request, server_busy};
use super::router::Server;
use crate::transport::{FrameChannel, FrameSender, Inbound};
use crate::util::{Budget, Charge, lock};
use crate::wire::legacy::opens_session;
use crate::wire::{
    FrameError, Message, Method, Notification, Request, RequestId, Response, footprint,
    notifications, strict,
};

type InFlight = Arc<Mutex<HashMap<RequestId, Running>>>;

/// A request in flight: how to stop it, and the slot it holds. Removing it
/// from the map (cancellation, or the request ending) frees the slot at
/// once, so a client may replace a cancelled subscription straight away.
struct Running {
    handle: AbortHandle,
    _permit: OwnedSemaphorePermit,
}

/// How long, by default, requests still running when the peer closes the
/// connection may take to finish and be written out before they are
/// dropped ([`ServerBuilder::drain_period`](super::ServerBuilder::drain_period)).
pub const CLOSE_DRAIN: Duration = Duration::from_secs(30);

/// How many `subscriptions/listen` streams one connection may hold open.
pub const MAX_SUBSCRIPTIONS: usize = 64;

impl Server {
    /// Serves this server on the process's stdin and stdout, anonymously,
    /// until stdin closes, or until SIGTERM or Ctrl-C; then answers what is
    /// still running and writes it out, for up to the
    /// [drain period](super::ServerBuilder::drain_period), and returns. A
    /// second signal returns at once. Only MCP messages go to stdout: send
    /// logs to stderr (a `tracing` subscriber writing to stdout would
    /// corrupt the stream).
    ///
    /// The one-line `main` of a stdio server:
    /// `server.serve_stdio().await`. For a subject other than anonymous, or
    /// another byte stream, use [`serve`] or [`serve_until`].
    pub async fn serve_stdio(self) {
        let channel = crate::transport::stdio(self.max_message_size());
        let signals = termination_signals();
        tokio::select! {
            () = serve_until(self, channel, Caller::anonymous(), signalled(signals.clone(), 1)) => {}
            () = signalled(signals, 2) => {
                tracing::warn!("a second signal: stopping without waiting for requests to finish");
            }
        }
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
/// Requests still running then get the
/// [drain period](super::ServerBuilder::drain_period) (default
/// [`CLOSE_DRAIN`]) to finish and be written out, so a client that writes
/// its requests and closes its side (`printf … | server`) still reads
/// every answer; whatever is left after that is dropped, including what a
/// peer that does not read never took. Subscription streams end at once,
/// since they never finish on their own. The function returns once
/// everything has been written out, or the drain period is over.
///
/// At most [`ServerBuilder::max_in_flight`](super::ServerBuilder::max_in_flight)
/// requests run at once. Past that, up to as many again wait in a backlog
/// while the connection keeps reading notifications (so a client can still
/// cancel), and beyond the backlog the connection stops reading, so a peer
/// that never reads its answers cannot grow memory. Subscription streams
/// do not count against the limit but against [`MAX_SUBSCRIPTIONS`].
pub async fn serve(server: Server, channel: FrameChannel, caller: Caller) {
    serve_until(server, channel, caller, std::future::pending()).await;
}

/// [`serve`], and `stop` resolving starts the same graceful end as the peer
/// closing the connection: the connection reads no more, and what is
/// running gets the drain period to finish and be written out. For a
/// server that stops on a signal, or when its application shuts down.
pub async fn serve_until(
    server: Server,
    channel: FrameChannel,
    caller: Caller,
    stop: impl Future<Output = ()>,
) {
    let FrameChannel {
        mut incoming,
        outgoing,
        writer,
    } = channel;
    let limit = server.max_in_flight();
    let mut connection = Connection {
        permits: Arc::new(Semaphore::new(limit)),
        subscription_permits: Arc::new(Semaphore::new(MAX_SUBSCRIPTIONS)),
        budget: server.connection_budget(),
        drain_period: server.drain_period(),
        server,
        caller,
        outgoing,
        in_flight: Arc::default(),
        tasks: JoinSet::new(),
        subscriptions: JoinSet::new(),
        unpaid: None,
        backlog: VecDeque::new(),
        backlog_limit: limit,
        open: true,
        closed_at: None,
        session: None,
        session_writer: None,
    };
    tokio::pin!(stop);
    while connection.step(&mut incoming, stop.as_mut()).await {}
    connection.drain().await;
    let deadline = connection.deadline();
    drop(connection);
    if let Some(mut writer) = writer {
        // Every sender is gone, so the writer flushes what is queued and
        // ends; unless the peer does not read, and the drain period ends
        // first.
        if tokio::time::timeout_at(deadline, &mut writer)
            .await
            .is_err()
        {
            tracing::warn!("the peer does not read; dropping what is left to write");
            writer.abort();
        }
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
    /// This connection's memory budget, inside the server's.
    budget: Budget,
    /// A request read and parsed, waiting for room in the budget (rule 2).
    unpaid: Option<Unpaid>,
    /// Requests charged and waiting for a slot (rule 3).
    backlog: VecDeque<Charged>,
    backlog_limit: usize,
    /// Whether the peer may still send.
    open: bool,
    closed_at: Option<tokio::time::Instant>,
    /// How long requests may take to finish and be written once closed.
    drain_period: Duration,
    /// The legacy session `initialize` opened, if it did.
    session: Option<Arc<LegacySession>>,
    /// Writes the session's own queue; ends with the connection.
    session_writer: Option<AbortHandle>,
}

/// A parsed request and what it will cost.
struct Unpaid {
    request: Request,
    bytes: usize,
}

/// A request with its share of the budget.
struct Charged {
    request: Request,
    charge: Charge,
}

impl Connection {
    /// Does the next thing there is to do; `false` once the peer has
    /// closed and nothing is left to start.
    async fn step(
        &mut self,
        incoming: &mut mpsc::Receiver<Inbound>,
        stop: Pin<&mut impl Future<Output = ()>>,
    ) -> bool {
        if !self.open && self.backlog.is_empty() && self.unpaid.is_none() {
            return false;
        }
        let reading =
            self.open && self.unpaid.is_none() && self.backlog.len() <= self.backlog_limit;
        let waiting = !self.backlog.is_empty();
        let cost = self.unpaid.as_ref().map_or(0, |unpaid| unpaid.bytes);
        let permits = Arc::clone(&self.permits);
        let budget = self.budget.clone();
        let deadline = self.closed_at.map(|closed| closed + self.drain_period);
        let open = self.open;
        tokio::select! {
            biased;
            () = stop, if open => {
                tracing::info!("stopping: no more requests are read");
                self.close();
            }
            permit = permits.acquire_owned(), if waiting => {
                let permit = permit.expect("the semaphore is never closed");
                // The head stays queued while it waits, so a cancellation finds it.
                if let Some(Charged { request, charge }) = self.backlog.pop_front() {
                    self.spawn(request, charge, permit, false);
                }
            }
            charge = budget.charge(cost), if self.unpaid.is_some() => {
                let Unpaid { request, .. } = self.unpaid.take().expect("checked above");
                self.accept(request, charge).await;
            }
            inbound = incoming.recv(), if reading => match inbound {
                Some(inbound) => self.receive(inbound).await,
                None => self.close(),
            },
            () = until(deadline), if waiting || self.unpaid.is_some() => {
                tracing::warn!(
                    left = self.backlog.len(),
                    "dropping requests not started after the drain period"
                );
                self.backlog.clear();
                self.unpaid = None;
            }
        }
        true
    }

    async fn receive(&mut self, inbound: Inbound) {
        let limit = self.server.max_message_size();
        match inbound {
            Inbound::Frame(frame) if frame.len() <= limit => match frame.parse::<Message>() {
                Err(e) => self.refuse(e).await,
                Ok(Message::Request(request))
                    if self.session.is_none() && opens_session(&request) =>
                {
                    self.initialize(request).await;
                }
                Ok(Message::Request(request)) => self.admit(request).await,
                Ok(Message::Notification(n)) => self.on_notification(n),
                Ok(Message::Response(response)) => self.on_response(response),
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

    /// Takes a request just read through rules 2 and 3: charged and
    /// started in this step when nothing waits ahead of it and it fits,
    /// else left for the loop to charge and queue in turn.
    async fn admit(&mut self, request: Request) {
        let bytes = request_footprint(&request);
        let charge = match self.budget.try_charge(bytes) {
            Ok(charge) if self.backlog.is_empty() => charge,
            _ => {
                self.unpaid = Some(Unpaid { request, bytes });
                return;
            }
        };
        self.accept(request, charge).await;
        if self.backlog.len() == 1
            && let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned()
            && let Some(Charged { request, charge }) = self.backlog.pop_front()
        {
            self.spawn(request, charge, permit, false);
        }
    }

    /// Opens the legacy session `request` asks for, and answers it before
    /// anything the session sends.
    async fn initialize(&mut self, request: Request) {
        let (queue, mut queued) = mpsc::channel(SESSION_QUEUE);
        match self.server.open_session(request, &self.caller, queue) {
            Ok((session, response)) => {
                self.send(response.into()).await;
                self.session = Some(session);
                let outbox = self.outbox();
                let writer = tokio::spawn(async move {
                    while let Some(message) = queued.recv().await {
                        if outbox.send(message).await.is_err() {
                            return;
                        }
                    }
                });
                self.session_writer = Some(writer.abort_handle());
            }
            Err(response) => self.send(response.into()).await,
        }
    }

    /// A response from the client: the answer to a request of the legacy
    /// session's, or a message to log and drop.
    fn on_response(&self, response: Response) {
        let id = response.id.clone();
        match &self.session {
            Some(session) if session.peer().resolve(response) => {}
            Some(_) => tracing::warn!(?id, "ignoring a response to no request of the server's"),
            None => {
                tracing::warn!("ignoring a response from the client; clients must not send them")
            }
        }
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
        self.backlog.retain(|queued| queued.request.id != id);
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

    /// Starts a subscription at once; queues any other request for a slot.
    async fn accept(&mut self, request: Request, charge: Charge) {
        if Method::parse(&request.method) != Some(Method::SubscriptionsListen) {
            self.backlog.push_back(Charged { request, charge });
            return;
        }
        match Arc::clone(&self.subscription_permits).try_acquire_owned() {
            Ok(permit) => self.spawn(request, charge, permit, true),
            Err(_) => {
                let error = server_busy(MAX_SUBSCRIPTIONS);
                self.send(Response::error(Some(request.id), error).into())
                    .await;
            }
        }
    }

    /// The peer closed its side (or the server stops): subscriptions end
    /// now, requests get the drain period from here.
    fn close(&mut self) {
        self.open = false;
        self.closed_at.get_or_insert_with(tokio::time::Instant::now);
        self.subscriptions.abort_all();
        // No answer to a question of the session's can come any more.
        if let Some(session) = &self.session {
            session.peer().close();
        }
    }

    fn spawn(
        &mut self,
        request: Request,
        charge: Charge,
        permit: OwnedSemaphorePermit,
        subscription: bool,
    ) {
        let id = request.id.clone();
        let outbox = self.outbox();
        if lock(&self.in_flight).contains_key(&id) {
            let error =
                invalid_request(format!("id {id} is already in use by a request in flight"));
            let response = Message::from(Response::error(Some(id), error));
            self.tasks.spawn(async move {
                let _permit = permit;
                let _ = outbox.send(response).await;
            });
            return;
        }
        let mut stream = match &self.session {
            Some(session) => self.server.handle_legacy(request, session, charge),
            None => self.server.handle_charged(request, &self.caller, charge),
        };
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
                if outbox.send(message).await.is_err() {
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

    /// Where this connection's messages go, charged to its budget.
    fn outbox(&self) -> Outbox {
        Outbox {
            outgoing: self.outgoing.clone(),
            budget: self.budget.clone(),
        }
    }

    async fn send(&self, message: Message) {
        let outbox = self.outbox();
        // A closed channel means the peer is gone; there is no one to tell.
        let _ = outbox.send(message).await;
    }

    /// When the drain period ends.
    fn deadline(&self) -> tokio::time::Instant {
        self.closed_at.unwrap_or_else(tokio::time::Instant::now) + self.drain_period
    }

    /// Ends the subscriptions, waits up to the drain period for the
    /// requests still running, then drops the rest and waits until they
    /// are gone.
    async fn drain(&mut self) {
        self.subscriptions.abort_all();
        while self.subscriptions.join_next().await.is_some() {}
        let deadline = self.deadline();
        let tasks = &mut self.tasks;
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
        // What the session still queues has no one left to wait for it.
        if let Some(writer) = self.session_writer.take() {
            writer.abort();
        }
    }
}

/// Where a request's messages go: the transport, each charged to the
/// connection's budget until written (rule 5).
struct Outbox {
    outgoing: FrameSender,
    budget: Budget,
}

impl Outbox {
    async fn send(&self, message: Message) -> Result<(), crate::transport::Closed> {
        let line = message.to_line();
        let charge = self.budget.force(line.len());
        self.outgoing.send_charged(line, charge).await
    }
}

/// What a parsed request holds: its parsed params, its method and id.
pub(crate) fn request_footprint(request: &Request) -> usize {
    std::mem::size_of::<Request>()
        + request.method.len()
        + request.params.as_ref().map_or(0, footprint)
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

/// How many times SIGTERM or SIGINT (Ctrl-C) arrived, counted from now on
/// by a task of its own. A signal whose handler cannot be installed is
/// never counted.
fn termination_signals() -> watch::Receiver<u32> {
    let (count, counted) = watch::channel(0);
    tokio::spawn(async move {
        #[cfg(unix)]
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        loop {
            #[cfg(unix)]
            let terminated = async {
                let received = match terminate.as_mut() {
                    Some(signal) => signal.recv().await,
                    None => None,
                };
                if received.is_none() {
                    std::future::pending::<()>().await;
                }
            };
            #[cfg(not(unix))]
            let terminated = std::future::pending::<()>();
            let interrupted = async {
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                () = terminated => {}
                () = interrupted => {}
            }
            count.send_modify(|n| *n += 1);
            if count.is_closed() {
                return;
            }
        }
    });
    counted
}

/// Resolves once `times` signals have arrived.
async fn signalled(mut count: watch::Receiver<u32>, times: u32) {
    if count.wait_for(|n| *n >= times).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
