//! Serving a [`Server`] over one transport connection.
//!
//! The connection is the only place that knows several requests share a
//! channel: it runs each request on its own tokio task, tracks them by id so
//! that `notifications/cancelled` can drop the right one, and answers frames
//! that are not messages at all (`-32700`, `-32600`). A request is first
//! polled once in place, on the connection's task: one that answers
//! without waiting (a list, most tool calls) is then done before the next
//! frame is read, with no task and no wake-up of another thread, and
//! nothing in flight to cancel; only one that waits gets its task. One
//! poll, never more, so no request holds up those behind it beyond its
//! first step. While requests come in a burst, what the connection sends
//! gathers, and leaves with one write once the input already read is
//! taken, or once the connection stops reading (rule 6 of
//! `transport::writing`). JSON-RPC never answers
//! a response: one from the client goes to the connection's era, which
//! logs and drops it unless a request of the server's waits for it.
//!
//! # The era of a connection
//!
//! Every request keeps the [`RequestEra`] it was read in, which serves it;
//! what else differs between eras is asked of the connection's era at the
//! few points that need it (see `era`). A connection is modern until the
//! client sends `initialize` ([`RequestEra::opens`]): that request is
//! answered at once, before the next frame is read, and opens a session
//! ([`RequestEra::open`]) whose era serves every request read after it. A
//! request's era is decided when it is read: one read before the
//! `initialize` is served modern even when it waits for a slot until after
//! it. The era's own messages go through a queue of their own, written
//! like any other message, for as long as the connection lives. The
//! session's own rules are in `legacy::session`.
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
//!    reading too; except, in both cases, while its era awaits an answer
//!    that only reading on can bring ([`RequestEra::awaits_answers`]): then each
//!    request it has no room for is answered `-31001` at once;
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
//!
//! # How a connection ends
//!
//! At end of input, or when [`serve_until`] is told to stop, the
//! connection ends as `shutdown` says: a stop tells the transport to read
//! no more ([`StopReading`](crate::transport::StopReading)), and the frames
//! it has already read are still taken, through the same rules as above,
//! until it reports the end of its input. Subscriptions close gracefully at
//! once; the rest gets the drain period; what is then still queued is
//! answered `-31003` without being run, what still runs is cut short with
//! `-31003`, and a frame read after that gets `-31003` at once. A
//! notification or a malformed frame is handled as ever.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::{AbortHandle, JoinSet};
use tracing::Instrument;

use super::outbox::Outbox;
use super::shutdown::{FINAL_WRITE, Shutdown, ShutdownSwitch, not_run};
use super::signals::{signalled, termination_signals};
use crate::server::caller::Caller;
use crate::server::era::{Opened, RequestEra};
use crate::server::request::reply::{busy_awaiting_answers, invalid_request, server_busy};
use crate::server::request::stream::ResponseStream;
use crate::server::router::Server;
use crate::transport::{FrameChannel, FrameSender, Gathering, Inbound, Incoming, StopReading};
use crate::util::{BoxFuture, Budget, Charge, finished_in_place, lock};
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
/// connection, or serving stops, may take to finish before they are cut
/// short with `-31003`
/// ([`ServerBuilder::drain_period`](crate::server::ServerBuilder::drain_period)).
pub const CLOSE_DRAIN: Duration = Duration::from_secs(30);

/// How many `subscriptions/listen` streams one connection may hold open.
pub const MAX_SUBSCRIPTIONS: usize = 64;

impl Server {
    /// Serves this server on the process's stdin and stdout, anonymously,
    /// until stdin closes, or until SIGTERM or Ctrl-C; then answers every
    /// request it has read, as [`serve_until`] says: what finishes within
    /// the [drain period](crate::server::ServerBuilder::drain_period) with its
    /// result, the rest with `-31003`, and returns. A second signal returns
    /// at once. Only MCP messages go to stdout: send logs to stderr (a
    /// `tracing` subscriber writing to stdout would corrupt the stream).
    ///
    /// The one-line `main` of a stdio server:
    /// `server.serve_stdio().await`. For a subject other than anonymous, or
    /// another byte stream, use [`serve`] or [`serve_until`].
    pub async fn serve_stdio(self) {
        // Before the first read: a signal that comes once requests are read
        // must find its handler, or it kills the process.
        let signals = termination_signals();
        let channel = crate::transport::stdio(self.max_message_size());
        let first = signalled(signals.clone(), 1);
        // On a task, not on the caller's thread (for `#[tokio::main]`, one
        // apart from the runtime's workers): the connection then runs on
        // the worker that has just read its frame, and a request and its
        // answer cross no thread between the two stdio threads.
        let serving = serve_until(self, channel, Caller::anonymous(), first);
        let serving = Aborting(tokio::spawn(serving.in_current_span()));
        tokio::select! {
            () = serving.finished() => {}
            () = signalled(signals, 2) => {
                tracing::warn!("a second signal: stopping without waiting for requests to finish");
            }
        }
    }
}

/// A spawned task that is aborted when this is dropped, as a future run
/// in place would be.
struct Aborting(tokio::task::JoinHandle<()>);

impl Aborting {
    /// Resolves once the task ends; its panic, if any, goes on here.
    async fn finished(mut self) {
        if let Err(error) = (&mut self.0).await
            && error.is_panic()
        {
            std::panic::resume_unwind(error.into_panic());
        }
    }
}

impl Drop for Aborting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves `server` over `channel` until the peer closes it.
///
/// Requests still running then get the
/// [drain period](crate::server::ServerBuilder::drain_period) (default
/// [`CLOSE_DRAIN`]) to finish and be written out, so a client that writes
/// its requests and closes its side (`printf … | server`) still reads
/// every answer. When it is over, each request still waiting is answered
/// `-31003` with `data.started: false`, and each still running is cut
/// short and answered `-31003` with `data.started: true`: every request
/// read gets exactly one answer. Subscription streams end at once, with
/// their graceful closure, since they never finish on their own. The
/// function returns once everything has been written out, or at the
/// latest [`FINAL_WRITE`](crate::server::FINAL_WRITE) after the drain period,
/// dropping what a peer that does not read never took.
///
/// At most [`ServerBuilder::max_in_flight`](crate::server::ServerBuilder::max_in_flight)
/// requests run at once. Past that, up to as many again wait in a backlog
/// while the connection keeps reading notifications (so a client can still
/// cancel), and beyond the backlog the connection stops reading, so a peer
/// that never reads its answers cannot grow memory; in a legacy session,
/// while the server waits for an answer of the client's, it reads on
/// instead and answers the requests it has no room for with `-31001`,
/// since the answer is behind them. Subscription streams do not count
/// against the limit but against [`MAX_SUBSCRIPTIONS`].
pub async fn serve(server: Server, channel: FrameChannel, caller: Caller) {
    serve_until(server, channel, caller, std::future::pending()).await;
}

/// [`serve`], and `stop` resolving starts the same end as the peer closing
/// the connection: the transport reads no more, but every request it has
/// already read is still taken and answered (a frame still in an
/// in-memory channel, a line in a byte stream's buffer, what the stdio
/// thread read from the pipe); what is running gets the drain period to
/// finish. For a server that stops on a signal, or when its application
/// shuts down.
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
        stop_reading,
        ..
    } = channel;
    let limit = server.max_in_flight();
    let switch = ShutdownSwitch::new(server.drain_period());
    let mut connection = Connection {
        permits: Arc::new(Semaphore::new(limit)),
        subscription_permits: Arc::new(Semaphore::new(MAX_SUBSCRIPTIONS)),
        budget: server.connection_budget(),
        server,
        caller,
        gathering: outgoing.gathering(),
        outgoing,
        in_flight: Arc::default(),
        tasks: JoinSet::new(),
        subscriptions: JoinSet::new(),
        waiting_for_budget: None,
        backlog: VecDeque::new(),
        backlog_limit: limit,
        ended: false,
        stop_reading,
        shutdown: switch.watch(),
        switch,
        era: RequestEra::Modern,
        era_writer: None,
    };
    tokio::pin!(stop);
    let shutdown = connection.shutdown.clone();
    let last_write =
        async { tokio::time::sleep_until(shutdown.started().await + FINAL_WRITE).await };
    tokio::select! {
        () = connection.run(&mut incoming, stop.as_mut()) => {}
        () = last_write => {
            tracing::warn!("the peer does not read; dropping the answers it never took");
        }
    }
    let last_write = connection.switch.start() + FINAL_WRITE;
    // What still runs, if anything, is aborted with its task set.
    drop(connection);
    if let Some(mut writer) = writer {
        // Every sender is gone, so the writer flushes what is queued and
        // ends; unless the peer does not read, and time is up first.
        if tokio::time::timeout_at(last_write, &mut writer)
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
    /// Gathers what is sent while requests come in a burst (rule 6 of
    /// `transport::writing`).
    /// Dropped with the connection, it writes what it holds.
    gathering: Gathering,
    in_flight: InFlight,
    tasks: JoinSet<()>,
    subscriptions: JoinSet<()>,
    permits: Arc<Semaphore>,
    subscription_permits: Arc<Semaphore>,
    /// This connection's memory budget, inside the server's.
    budget: Budget,
    /// A request read and parsed, waiting for room in the budget (rule 2).
    waiting_for_budget: Option<WaitingForBudget>,
    /// Requests charged and waiting for a slot (rule 3).
    backlog: VecDeque<Charged>,
    backlog_limit: usize,
    /// Whether the transport has reported the end of its input.
    ended: bool,
    /// Stops the transport's reading; `None` for a channel that closing
    /// `incoming` stops.
    stop_reading: Option<StopReading>,
    /// Starts the end: at end of input, or when told to stop.
    switch: ShutdownSwitch,
    /// What every request is bounded by.
    shutdown: Shutdown,
    /// The era of the requests read now.
    era: RequestEra,
    /// Writes the era's own queue, once a session opened one. It holds
    /// the session, which holds the queue: the connection's drop aborts
    /// it, which ends that cycle.
    era_writer: Option<AbortHandle>,
}

/// A parsed request and what it will cost.
struct WaitingForBudget {
    request: Request,
    bytes: usize,
    era: RequestEra,
}

/// The request in `waiting` (rule 2), charged once `budget` has room for
/// it and then taken out of the wait; `None` at once when none waits,
/// which leaves its `select!` branch out of the step. Dropped before it is
/// ready, it takes nothing: the request stays in `waiting`.
async fn charge_waiting(
    budget: &Budget,
    waiting: &mut Option<WaitingForBudget>,
) -> Option<Charged> {
    let bytes = waiting.as_ref()?.bytes;
    let charge = budget.charge(bytes).await;
    let WaitingForBudget { request, era, .. } = waiting.take()?;
    Some(Charged {
        request,
        charge,
        era,
    })
}

/// A request with its share of the budget.
struct Charged {
    request: Request,
    charge: Charge,
    era: RequestEra,
}

impl Connection {
    /// Serves until the transport's input has ended and everything read is
    /// started or answered, then waits for what runs.
    async fn run(&mut self, incoming: &mut Incoming, mut stop: Pin<&mut impl Future<Output = ()>>) {
        while self.step(incoming, stop.as_mut()).await {}
        self.drain().await;
    }

    /// Does the next thing there is to do; `false` once the input has
    /// ended and nothing is left to start.
    async fn step(
        &mut self,
        incoming: &mut Incoming,
        stop: Pin<&mut impl Future<Output = ()>>,
    ) -> bool {
        if self.ended && self.backlog.is_empty() && self.waiting_for_budget.is_none() {
            return false;
        }
        // Full, the connection reads on only while its era awaits an
        // answer (rule 3), and otherwise wakes when it starts to.
        let full = self.is_full();
        let reading = !self.ended && (!full || self.era.awaits_answers());
        let stalled = !self.ended && !reading;
        let era = self.era.clone();
        let waiting = !self.backlog.is_empty();
        let permits = Arc::clone(&self.permits);
        let budget = self.budget.clone();
        let deadline = self.switch.deadline();
        tokio::select! {
            biased;
            () = stop, if deadline.is_none() => {
                tracing::info!("stopping: reading no more, answering every request read");
                match &self.stop_reading {
                    Some(stop_reading) => stop_reading.stop(),
                    None => incoming.close(),
                }
                self.switch.start();
            }
            () = until(deadline), if waiting || self.waiting_for_budget.is_some() => self.give_up().await,
            permit = permits.acquire_owned(), if waiting => {
                let permit = permit.expect("the semaphore is never closed");
                // The head stays queued while it waits, so a cancellation finds it.
                if let Some(queued) = self.backlog.pop_front() {
                    self.spawn(queued, permit, false);
                }
            }
            Some(charged) = charge_waiting(&budget, &mut self.waiting_for_budget) => {
                self.accept(charged).await;
            }
            inbound = incoming.recv(), if reading => match inbound {
                Some(inbound) => {
                    self.gathering.start();
                    self.receive(inbound).await;
                }
                None => self.end_of_input(),
            },
            () = era.asked(), if stalled => {}
        }
        // The transport ends a gathering before it reads again; one that
        // will not read on at once ends it here (rule 6 of `writing`).
        if self.ended || self.is_full() {
            self.gathering.end();
        }
        true
    }

    /// Whether the connection has no room for another request: one waits
    /// for room in the budget, or the backlog is past its limit.
    fn is_full(&self) -> bool {
        self.waiting_for_budget.is_some() || self.backlog.len() > self.backlog_limit
    }

    /// Whether the drain period is over: requests read now are not run.
    fn drain_is_over(&self) -> bool {
        self.switch
            .deadline()
            .is_some_and(|deadline| tokio::time::Instant::now() >= deadline)
    }

    /// The drain period is over: what waits is answered without being run.
    async fn give_up(&mut self) {
        let waiting = self
            .waiting_for_budget
            .take()
            .map(|waiting| waiting.request);
        let waiting: Vec<Request> = self
            .backlog
            .drain(..)
            .map(|queued| queued.request)
            .chain(waiting)
            .collect();
        tracing::warn!(
            left = waiting.len(),
            "answering -31003 to the requests not started within the drain period"
        );
        for request in waiting {
            self.send(not_run(request.id).into()).await;
        }
    }

    async fn receive(&mut self, inbound: Inbound) {
        let limit = self.server.max_message_size();
        match inbound {
            Inbound::Frame(frame) if frame.len() <= limit => match frame.parse::<Message>() {
                Err(e) => self.refuse(e).await,
                Ok(Message::Request(request)) if self.drain_is_over() => {
                    self.send(not_run(request.id).into()).await;
                }
                Ok(Message::Request(request)) if self.is_full() => {
                    // Read only to reach an answer behind it (rule 3).
                    let busy = Response::error(Some(request.id), busy_awaiting_answers());
                    self.send(busy.into()).await;
                }
                Ok(Message::Request(request)) if self.era.opens(&request) => {
                    self.open(request).await;
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

    /// Answers `initialize` request `request` at once and, if it opened a
    /// session, reads every request after it in the session's era and
    /// starts writing the era's own queue.
    async fn open(&mut self, request: Request) {
        let (opened, response) = match RequestEra::open(&self.server, request, &self.caller) {
            Ok(opened) => opened,
            Err(response) => return self.send(response.into()).await,
        };
        self.send(response.into()).await;
        let Opened { era, mut queue } = opened;
        self.era = era;
        // Its outbox tells the era when a request of its own is sent.
        let own = self.outbox();
        let writer = tokio::spawn(async move {
            while let Some(message) = queue.recv().await {
                if own.send(message).await.is_err() {
                    return;
                }
            }
        });
        self.era_writer = Some(writer.abort_handle());
    }

    /// Takes a request just read through rules 2 and 3: charged and
    /// started in this step when nothing waits ahead of it and it fits,
    /// else left for the loop to charge and queue in turn.
    async fn admit(&mut self, request: Request) {
        let bytes = request_footprint(&request);
        let era = self.era.clone();
        let charge = match self.budget.try_charge(bytes) {
            Ok(charge) if self.backlog.is_empty() => charge,
            _ => {
                self.waiting_for_budget = Some(WaitingForBudget {
                    request,
                    bytes,
                    era,
                });
                return;
            }
        };
        self.accept(Charged {
            request,
            charge,
            era,
        })
        .await;
        if self.backlog.len() == 1
            && let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned()
            && let Some(queued) = self.backlog.pop_front()
        {
            self.spawn(queued, permit, false);
        }
    }

    /// A response from the client, for the era to route or drop.
    fn on_response(&self, response: Response) {
        self.era.on_response(response);
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
    async fn accept(&mut self, charged: Charged) {
        if Method::parse(&charged.request.method) != Some(Method::SubscriptionsListen) {
            self.backlog.push_back(charged);
            return;
        }
        match Arc::clone(&self.subscription_permits).try_acquire_owned() {
            Ok(permit) => self.spawn(charged, permit, true),
            Err(_) => {
                let error = server_busy(MAX_SUBSCRIPTIONS);
                self.send(Response::error(Some(charged.request.id), error).into())
                    .await;
            }
        }
    }

    /// The input has ended (the peer closed its side, or the transport
    /// delivered all it read before it was stopped): the drain period runs
    /// from here, unless a stop started it already.
    fn end_of_input(&mut self) {
        self.ended = true;
        self.switch.start();
        self.era.end_of_input();
    }

    fn spawn(&mut self, charged: Charged, permit: OwnedSemaphorePermit, subscription: bool) {
        let Charged {
            request,
            charge,
            era,
        } = charged;
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
        let stream = era
            .serve(&self.server, request, &self.caller, charge)
            .bounded_by(&self.shutdown, id.clone());
        let mut answering = answer(stream, outbox);
        // A subscription never ends in its first step, and polled in place
        // it would claim its listener places before a cancelled one's task
        // has been dropped and given its own back.
        if !subscription && finished_in_place(&mut answering) {
            return;
        }
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
            answering.await;
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
        Outbox::new(self.outgoing.clone(), self.budget.clone(), self.era.clone())
    }

    async fn send(&self, message: Message) {
        let outbox = self.outbox();
        // A closed channel means the peer is gone; there is no one to tell.
        let _ = outbox.send(message).await;
    }

    /// Waits for the requests still running: each ends by itself, or at
    /// the end of the drain period with `-31003`; subscriptions closed when
    /// it began.
    async fn drain(&mut self) {
        while self.subscriptions.join_next().await.is_some() {}
        while self.tasks.join_next().await.is_some() {}
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(writer) = self.era_writer.take() {
            writer.abort();
        }
    }
}

/// Writes a request's messages to `outbox` as its stream yields them,
/// until it ends or the peer is gone.
fn answer(mut stream: ResponseStream, outbox: Outbox) -> BoxFuture<()> {
    Box::pin(async move {
        while let Some(message) = stream.next().await {
            if outbox.send(message).await.is_err() {
                break;
            }
        }
    })
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

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
