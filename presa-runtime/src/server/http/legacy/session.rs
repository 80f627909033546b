//! The sessions of legacy HTTP clients: what `Mcp-Session-Id` names.
//!
//! By these rules, so that no client can fill the server:
//!
//! 1. `initialize` opens a session under a fresh unguessable id; at most
//!    [`MAX_SESSIONS`] live at once (expired ones are purged first), and
//!    past that `initialize` gets `503`;
//! 2. one caller (its subject, or for an anonymous caller its network: see
//!    `admission`) holds at most [`MAX_SESSIONS_PER_SUBJECT`] of them.
//!    Past that, its new session evicts its own least recently used
//!    session that runs no request, which answers `404` from then on; when
//!    every one of them runs a request, `initialize` gets `503` instead.
//!    So one caller's sessions never fill the server for the others;
//! 3. a session belongs to the caller that opened it: another caller
//!    naming its id finds no session (`404`), as for an unknown id;
//! 4. a session unused for its idle time ([`SESSION_IDLE`] by default)
//!    expires; `DELETE` ends it at once. Either way its requests are
//!    dropped and its id answers `404` from then on;
//! 5. a session runs at most [`MAX_SESSION_REQUESTS`] requests at once
//!    (`503` past it), keeps the log of each (see `events`), and drops the
//!    logs of finished requests, oldest first, past [`KEPT_LOGS`];
//! 6. its own messages (list changes, requests of its tasks) go to the
//!    standalone stream's log, whether or not a `GET` reads it.
//!
//! Why rule 2 evicts rather than refuses: a caller past its quota has, as
//! a rule, forgotten sessions, not used that many at once. A client with a
//! leak keeps working, since the sessions it forgot make way for the ones
//! it uses, where a refusal would shut it out until its leaked sessions
//! expire (30 minutes); a hostile caller only ever evicts its own. An
//! evicted session answers `404`, on which a 2025-11-25 client must
//! `initialize` again: what any client does for a session the server
//! ended, the one thing the spec lets a server do at any time. A session
//! running a request is in use, though, and evicting it would drop work its
//! client waits for: a caller whose sessions all run requests is refused
//! until one finishes, and only it is.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::events::{SharedStream, StreamLog, StreamName};
use crate::server::catalog::changes::Change;
use crate::server::http::admission::{Account, Admitted};
use crate::server::legacy::shared::note::{
    SessionNote, decode, session_channel, standalone_channel,
};
use crate::server::legacy::shared::{SessionStoreError, SharedSessions};
use crate::server::legacy::{FeedGuard, LegacySession, SESSION_QUEUE};
use crate::server::request::stream::ResponseStream;
use crate::util::{Budget, lock};
use crate::wire::{Message, RequestId};

/// How many legacy sessions live at once, by default.
pub const MAX_SESSIONS: usize = 1024;

/// How many legacy sessions one subject holds at once, by default: one
/// per client that connects, for many clients sharing a token; and at the
/// default [`MAX_SESSIONS`], 32 subjects can hold that many together.
pub const MAX_SESSIONS_PER_SUBJECT: usize = 32;

/// How long a legacy session lives without a request, by default.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// How many requests one session runs at once.
pub const MAX_SESSION_REQUESTS: usize = 64;

/// How many logs of finished requests a session keeps for resumption.
pub const KEPT_LOGS: usize = 16;

/// The table of sessions.
pub(super) struct HttpSessions {
    table: Mutex<Table>,
    pub idle: Duration,
    pub max: usize,
    /// The most sessions one account holds (rule 2).
    pub max_per_account: usize,
}

/// The sessions, by id and by account.
#[derive(Default)]
struct Table {
    sessions: HashMap<String, Arc<HttpSession>>,
    /// The ids of each account's sessions; an account holding none has no
    /// entry.
    by_account: HashMap<Account, Vec<String>>,
}

/// Why a session could not be opened.
pub(super) enum TooManySessions {
    /// The server holds [`HttpSessions::max`] sessions (rule 1).
    Server,
    /// The caller holds its quota, each session running a request (rule 2).
    Caller {
        /// The quota.
        limit: usize,
    },
}

impl HttpSessions {
    pub fn new() -> Self {
        HttpSessions {
            table: Mutex::default(),
            idle: SESSION_IDLE,
            max: MAX_SESSIONS,
            max_per_account: MAX_SESSIONS_PER_SUBJECT,
        }
    }

    /// Keeps `session`, making way for it (rules 1 and 2). A session
    /// refused is closed, so that it holds nothing.
    pub fn open(&self, session: Arc<HttpSession>) -> Result<(), TooManySessions> {
        self.keep(&mut lock(&self.table), session)
    }

    /// [`open`](Self::open), in `table`.
    fn keep(&self, table: &mut Table, session: Arc<HttpSession>) -> Result<(), TooManySessions> {
        let room = match table.make_way(&session.account, self.max_per_account, self.idle) {
            Ok(()) => table.room(self.max, self.idle),
            refused => refused,
        };
        match room {
            Ok(()) => table.insert(session),
            Err(_) => session.close(),
        }
        room
    }

    /// Keeps `session`, built from the shared store's record, as
    /// [`open`](Self::open) does; the session kept. When another request
    /// kept the same session first, `session` is closed and that one is
    /// the session kept, so that every request of a session on this
    /// replica shares one copy (its requests, its answers, its stream).
    pub fn adopt(&self, session: Arc<HttpSession>) -> Result<Arc<HttpSession>, TooManySessions> {
        let mut table = lock(&self.table);
        if let Some(kept) = table.sessions.get(session.legacy.id())
            && !kept.has_ended()
        {
            let kept = Arc::clone(kept);
            drop(table);
            session.close();
            return Ok(kept);
        }
        self.keep(&mut table, Arc::clone(&session))
            .map(|()| session)
    }

    /// The live session `id` of `subject` (rules 3 and 4), marked used.
    pub fn get(&self, id: &str, subject: Option<&str>) -> Option<Arc<HttpSession>> {
        let mut table = lock(&self.table);
        let session = table.sessions.get(id)?;
        if session.has_ended() || expire_if_idle(session, self.idle) {
            table.remove(id);
            return None;
        }
        if session.legacy.caller().principal().as_deref() != subject {
            return None;
        }
        *lock(&session.last_used) = Instant::now();
        Some(Arc::clone(session))
    }

    /// Session `id` as this replica holds it, whoever its caller: for
    /// an answer another replica passes on.
    pub fn find(&self, id: &str) -> Option<Arc<HttpSession>> {
        let table = lock(&self.table);
        table.sessions.get(id).filter(|s| !s.has_ended()).cloned()
    }

    /// Drops this replica's copy of session `id`, which ended elsewhere.
    pub fn forget(&self, id: &str) {
        let removed = lock(&self.table).sessions.get(id).cloned();
        if let Some(session) = removed {
            lock(&self.table).remove(id);
            session.close();
        }
    }

    /// Ends session `id` of `subject`; whether there was one (rule 4).
    pub fn end(&self, id: &str, subject: Option<&str>) -> bool {
        let Some(session) = self.get(id, subject) else {
            return false;
        };
        lock(&self.table).remove(id);
        session.close();
        true
    }
}

impl Table {
    fn insert(&mut self, session: Arc<HttpSession>) {
        let id = session.legacy.id().to_owned();
        let ids = self.by_account.entry(session.account.clone()).or_default();
        ids.push(id.clone());
        self.sessions.insert(id, session);
    }

    /// Forgets session `id`, and its account once it holds no other.
    fn remove(&mut self, id: &str) {
        let Some(session) = self.sessions.remove(id) else {
            return;
        };
        if let Some(ids) = self.by_account.get_mut(&session.account) {
            ids.retain(|kept| kept != id);
            if ids.is_empty() {
                self.by_account.remove(&session.account);
            }
        }
    }

    /// Room for one more session under the server's `max` (rule 1), once
    /// the sessions idle for `idle` are gone.
    fn room(&mut self, max: usize, idle: Duration) -> Result<(), TooManySessions> {
        if self.sessions.len() >= max {
            self.purge_idle(idle);
        }
        if self.sessions.len() >= max {
            return Err(TooManySessions::Server);
        }
        Ok(())
    }

    /// Drops the sessions idle for `idle`.
    fn purge_idle(&mut self, idle: Duration) {
        let expired: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, session)| expire_if_idle(session, idle))
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.remove(&id);
        }
    }

    /// Room for one more session of `account` under its quota of `limit`
    /// (rule 2): its expired sessions go, then, if it is still at its
    /// quota, its least recently used one that runs no request.
    fn make_way(
        &mut self,
        account: &Account,
        limit: usize,
        idle: Duration,
    ) -> Result<(), TooManySessions> {
        let held = self.sessions_of(account);
        if held.len() < limit {
            return Ok(());
        }
        let mut live = Vec::with_capacity(held.len());
        for session in held {
            if expire_if_idle(&session, idle) {
                self.remove(session.legacy.id());
            } else {
                live.push(session);
            }
        }
        if live.len() < limit {
            return Ok(());
        }
        let oldest = live
            .into_iter()
            .filter(|session| !session.is_running())
            .min_by_key(|session| *lock(&session.last_used));
        let Some(oldest) = oldest else {
            return Err(TooManySessions::Caller { limit });
        };
        tracing::info!(
            session = oldest.legacy.id(),
            "evicted a legacy session: its caller opened one past its quota"
        );
        self.remove(oldest.legacy.id());
        oldest.close();
        Ok(())
    }

    fn sessions_of(&self, account: &Account) -> Vec<Arc<HttpSession>> {
        let ids = self.by_account.get(account).map_or(&[][..], Vec::as_slice);
        ids.iter()
            .filter_map(|id| self.sessions.get(id).cloned())
            .collect()
    }
}

/// Closes `session` if it has been idle for `idle`; whether it had.
fn expire_if_idle(session: &HttpSession, idle: Duration) -> bool {
    let expired = lock(&session.last_used).elapsed() >= idle;
    if expired {
        tracing::info!(session = session.legacy.id(), "a legacy session expired");
        session.close();
    }
    expired
}

/// One legacy client's session over HTTP.
pub(super) struct HttpSession {
    pub legacy: Arc<LegacySession>,
    /// Whose quota the session counts against (rule 2).
    account: Account,
    last_used: Mutex<Instant>,
    logs: Mutex<Logs>,
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    /// How many requests have not answered yet: whether the session is in
    /// use (rule 2).
    answering: Arc<AtomicUsize>,
    /// Moves the session's own messages to the standalone log (rule 6).
    pump: AbortHandle,
    /// Whether a `GET` reads the standalone stream now.
    pub standalone_open: Mutex<bool>,
    /// The session ended on another replica, or this one closed it.
    ended: AtomicBool,
    /// What the session's kept messages are charged to.
    budget: Budget,
    /// This replica, when replicas share the session: its event ids
    /// name it.
    replica: Option<Arc<str>>,
    /// Listens to the session's channel while replicas share it.
    listening: Mutex<Option<AbortHandle>>,
}

struct Logs {
    standalone: Arc<StreamLog>,
    /// Request streams by number.
    requests: BTreeMap<u64, Arc<StreamLog>>,
    next: u64,
}

/// Why a request could not start.
pub(super) struct TooManyRequests;

impl HttpSession {
    /// A session around `legacy` counted against `account`, whose own
    /// messages come from `queue`, charged to `budget` while kept.
    ///
    /// When replicas `shared` the session, its own messages go to its
    /// channel instead, for the replica that holds its standalone stream,
    /// and its event ids name this replica.
    pub fn new(
        legacy: Arc<LegacySession>,
        account: Account,
        queue: mpsc::Receiver<Message>,
        budget: Budget,
        shared: Option<&SharedSessions>,
    ) -> Self {
        let replica = shared.map(|shared| Arc::clone(&shared.replica));
        let standalone = StreamLog::new(stream_name(&replica, 0, None));
        let pump = match shared {
            None => tokio::spawn(pump(queue, Arc::clone(&standalone), budget.clone())),
            Some(shared) => tokio::spawn(publish(
                queue,
                shared.clone(),
                standalone_channel(legacy.id()),
                Arc::clone(&standalone),
                budget.clone(),
            )),
        };
        HttpSession {
            legacy,
            account,
            last_used: Mutex::new(Instant::now()),
            logs: Mutex::new(Logs {
                standalone,
                requests: BTreeMap::new(),
                next: 1,
            }),
            replica,
            running: Mutex::default(),
            answering: Arc::default(),
            pump: pump.abort_handle(),
            standalone_open: Mutex::new(false),
            ended: AtomicBool::new(false),
            budget,
            listening: Mutex::new(None),
        }
    }

    /// Listens to the session's channel, as every replica holding a
    /// shared session does, until the session closes: it ends when told,
    /// drops a request its client cancelled, takes a changed record, and
    /// writes what is for its standalone stream while one is open here.
    /// Returns once the store listens.
    pub async fn listen(
        self: &Arc<Self>,
        shared: &SharedSessions,
    ) -> Result<(), SessionStoreError> {
        let mut notes = shared
            .store()
            .listen(&session_channel(self.legacy.id()))
            .await?;
        let session = Arc::downgrade(self);
        let shared = shared.clone();
        let task = tokio::spawn(async move {
            while let Some(bytes) = notes.next().await {
                let Some(note) = decode::<SessionNote>(&bytes) else {
                    continue;
                };
                let Some(session) = session.upgrade() else {
                    return;
                };
                session.heard(note, &shared).await;
            }
        });
        *lock(&self.listening) = Some(task.abort_handle());
        if self.has_ended() {
            task.abort();
        }
        Ok(())
    }

    /// Acts on `note` from another replica (see [`HttpSession::listen`]).
    async fn heard(&self, note: SessionNote, shared: &SharedSessions) {
        match note {
            SessionNote::Ended => self.close(),
            SessionNote::Cancelled { id } => self.cancel(&id),
            SessionNote::Changed { record } => self.legacy.sync(&record),
            SessionNote::StandaloneOpened => {
                // A stream open here reads this log itself.
                if *lock(&self.standalone_open) {
                    return;
                }
                let channel = standalone_channel(self.legacy.id());
                for line in self.standalone().take_undelivered() {
                    let bytes = line.as_bytes().to_vec();
                    if let Err(error) = shared.store().publish(&channel, bytes).await {
                        tracing::warn!(%error, "a kept message of a legacy session was lost");
                    }
                }
            }
        }
    }

    /// Makes this replica the holder of the session's standalone stream,
    /// opened here, until the guard is dropped: it hears the messages
    /// every replica sends the stream, asks the others for those they
    /// kept, and follows every replica's changes (`offers`). While the
    /// stream is open, the session is in use: the holder starts its idle
    /// time again every half of it, and ends the session here when the
    /// store no longer has it.
    pub async fn hold_standalone(
        self: &Arc<Self>,
        shared: &SharedSessions,
        offers: tokio::sync::broadcast::Receiver<Change>,
    ) -> Result<HoldingStandalone, SessionStoreError> {
        let channel = standalone_channel(self.legacy.id());
        let mut lines = shared.store().listen(&channel).await?;
        let log = self.standalone();
        let budget = self.budget.clone();
        let hearing = tokio::spawn(async move {
            while let Some(bytes) = lines.next().await {
                let Ok(line) = String::from_utf8(bytes) else {
                    continue;
                };
                let charge = budget.force(line.len());
                log.push(line, charge);
            }
        });
        let session = Arc::downgrade(self);
        let keeper = shared.clone();
        let keeping = tokio::spawn(async move {
            // At least a millisecond: an interval may not be zero.
            let half = (keeper.idle / 2).max(Duration::from_millis(1));
            let mut every = tokio::time::interval(half);
            every.reset();
            loop {
                every.tick().await;
                let Some(session) = session.upgrade() else {
                    return;
                };
                match keeper.store().touch(session.legacy.id(), keeper.idle).await {
                    Ok(Some(_)) => {}
                    Ok(None) => return session.close(),
                    Err(error) => {
                        tracing::warn!(%error, "could not keep a legacy session alive");
                    }
                }
            }
        });
        let holding = HoldingStandalone {
            _offers: self.follow_offers(offers, self.budget.clone()),
            hearing: hearing.abort_handle(),
            keeping: keeping.abort_handle(),
        };
        let opened = SessionNote::StandaloneOpened;
        shared
            .tell(&session_channel(self.legacy.id()), &opened)
            .await;
        Ok(holding)
    }

    /// Writes `changes` that concern the session to its standalone log
    /// until the guard is dropped: what the replica holding a shared
    /// session's standalone stream does while it is open.
    pub fn follow_offers(
        &self,
        changes: tokio::sync::broadcast::Receiver<Change>,
        budget: Budget,
    ) -> FollowingOffers {
        let (queue, queued) = mpsc::channel(SESSION_QUEUE);
        let feed = self.legacy.follow_offers(changes, queue);
        let pump = tokio::spawn(pump(queued, self.standalone(), budget));
        FollowingOffers {
            _feed: feed,
            pump: pump.abort_handle(),
        }
    }

    /// Whether the session is over on this replica.
    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The standalone stream's log.
    pub fn standalone(&self) -> Arc<StreamLog> {
        Arc::clone(&lock(&self.logs).standalone)
    }

    /// The log of stream `number`, if it is kept.
    pub fn log(&self, number: u64) -> Option<Arc<StreamLog>> {
        let logs = lock(&self.logs);
        match number {
            0 => Some(Arc::clone(&logs.standalone)),
            n => logs.requests.get(&n).cloned(),
        }
    }

    /// Runs request `id`'s `stream` into a new log, which it returns
    /// (rule 5). The request runs on its own task: a lost connection does
    /// not stop it, `notifications/cancelled` does ([`HttpSession::cancel`]).
    /// The task holds `admitted`, its caller's request slot, until it ends.
    pub fn run(
        &self,
        id: RequestId,
        mut stream: ResponseStream,
        budget: Budget,
        admitted: Admitted,
    ) -> Result<Arc<StreamLog>, TooManyRequests> {
        let mut running = lock(&self.running);
        running.retain(|_, task| !task.is_finished());
        if running.len() >= MAX_SESSION_REQUESTS {
            return Err(TooManyRequests);
        }
        let log = self.new_log(&id);
        let writing = Arc::clone(&log);
        let answering = Answering::start(&self.answering);
        let task = tokio::spawn(async move {
            // Given back before the response is logged, so that a client
            // that has read it finds both free.
            let mut held = Some((admitted, answering));
            while let Some(message) = stream.next().await {
                if let Message::Response(_) = message {
                    held.take();
                }
                let line = message.to_line();
                let charge = budget.force(line.len());
                writing.push(line, charge);
            }
            writing.finish();
        });
        running.insert(id, task.abort_handle());
        Ok(log)
    }

    fn new_log(&self, request: &RequestId) -> Arc<StreamLog> {
        let mut logs = lock(&self.logs);
        let log = StreamLog::new(stream_name(&self.replica, logs.next, Some(request)));
        logs.next += 1;
        logs.requests.insert(log.number(), Arc::clone(&log));
        let finished: Vec<u64> = logs
            .requests
            .iter()
            .filter(|(_, log)| log.is_done())
            .map(|(number, _)| *number)
            .collect();
        for number in finished
            .iter()
            .take(finished.len().saturating_sub(KEPT_LOGS))
        {
            logs.requests.remove(number);
        }
        log
    }

    /// Whether a request of the session's has yet to answer.
    fn is_running(&self) -> bool {
        self.answering.load(Ordering::SeqCst) > 0
    }

    /// Drops request `id`, as `notifications/cancelled` asks.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(task) = lock(&self.running).remove(id) {
            task.abort();
        }
    }

    /// Drops every request and the pump: the session is over.
    pub fn close(&self) {
        self.ended.store(true, Ordering::SeqCst);
        if let Some(listening) = lock(&self.listening).take() {
            listening.abort();
        }
        for (_, task) in lock(&self.running).drain() {
            task.abort();
        }
        self.pump.abort();
        self.legacy.peer().close();
        lock(&self.logs).standalone.finish();
    }
}

/// The drop guard of a replica's hold on a shared session's standalone
/// stream ([`HttpSession::hold_standalone`]): it stops with the stream.
pub(super) struct HoldingStandalone {
    _offers: FollowingOffers,
    hearing: AbortHandle,
    keeping: AbortHandle,
}

impl Drop for HoldingStandalone {
    fn drop(&mut self) {
        self.hearing.abort();
        self.keeping.abort();
    }
}

/// A session dropped without being closed (its replica's endpoint is
/// gone, as when a server stops) is closed then: its requests, its pump
/// and its listener would otherwise run on, holding the store's
/// subscriptions, with no table left to reach them.
impl Drop for HttpSession {
    fn drop(&mut self) {
        if !self.has_ended() {
            self.close();
        }
    }
}

/// The drop guard of a standalone stream's share of the server's
/// changes ([`HttpSession::follow_offers`]): it stops with the stream.
pub(super) struct FollowingOffers {
    _feed: FeedGuard,
    pump: AbortHandle,
}

impl Drop for FollowingOffers {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// The drop guard of a request that has not answered: counted in its
/// session's `answering` until it answers, is cancelled, or the session
/// closes.
struct Answering(Arc<AtomicUsize>);

impl Answering {
    fn start(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Answering(Arc::clone(count))
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The name of stream `number`, answering `request` (`None` for the
/// standalone stream), of a session on `replica` (`None` when it is not
/// shared).
fn stream_name(replica: &Option<Arc<str>>, number: u64, request: Option<&RequestId>) -> StreamName {
    StreamName {
        number,
        shared: replica.as_ref().map(|replica| SharedStream {
            replica: Arc::clone(replica),
            request: request.cloned(),
        }),
    }
}

/// Sends the session's own messages to the replica that holds its
/// standalone stream, on `channel`. While no replica holds it, a message
/// is kept in this replica's standalone `log`, charged to `budget`, until
/// a replica opens the stream and asks for it.
async fn publish(
    mut queue: mpsc::Receiver<Message>,
    shared: SharedSessions,
    channel: String,
    log: Arc<StreamLog>,
    budget: Budget,
) {
    while let Some(message) = queue.recv().await {
        let line = message.to_line();
        match shared
            .store()
            .publish(&channel, line.clone().into_bytes())
            .await
        {
            Ok(heard) if heard > 0 => {}
            outcome => {
                if let Err(error) = outcome {
                    tracing::warn!(%error, "kept a legacy session's message: the store is down");
                }
                let charge = budget.force(line.len());
                log.push(line, charge);
            }
        }
    }
}

/// Moves the session's own messages into the standalone log.
async fn pump(mut queue: mpsc::Receiver<Message>, log: Arc<StreamLog>, budget: Budget) {
    while let Some(message) = queue.recv().await {
        let line = message.to_line();
        let charge = budget.force(line.len());
        log.push(line, charge);
    }
}
