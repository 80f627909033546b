//! The sessions of legacy HTTP clients: what `Mcp-Session-Id` names.
//!
//! By these rules, so that no client can fill the server:
//!
//! 1. `initialize` opens a session under a fresh unguessable id; at most
//!    [`MAX_SESSIONS`] live at once (expired ones are purged first), and
//!    past that `initialize` gets `503`;
//! 2. a session belongs to the caller that opened it: another caller
//!    naming its id finds no session (`404`), as for an unknown id;
//! 3. a session unused for its idle time ([`SESSION_IDLE`] by default)
//!    expires; `DELETE` ends it at once. Either way its requests are
//!    dropped and its id answers `404` from then on;
//! 4. a session runs at most [`MAX_SESSION_REQUESTS`] requests at once
//!    (`503` past it), keeps the log of each (see `events`), and drops the
//!    logs of finished requests, oldest first, past [`KEPT_LOGS`];
//! 5. its own messages (list changes, requests of its tasks) go to the
//!    standalone stream's log, whether or not a `GET` reads it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::events::StreamLog;
use crate::server::legacy::LegacySession;
use crate::server::stream::ResponseStream;
use crate::util::{Budget, lock};
use crate::wire::{Message, RequestId};

/// How many legacy sessions live at once, by default.
pub const MAX_SESSIONS: usize = 1024;

/// How long a legacy session lives without a request, by default.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// How many requests one session runs at once.
pub const MAX_SESSION_REQUESTS: usize = 64;

/// How many logs of finished requests a session keeps for resumption.
pub const KEPT_LOGS: usize = 16;

/// The table of sessions.
pub(super) struct HttpSessions {
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    pub idle: Duration,
    pub max: usize,
}

/// Why a session could not be opened.
pub(super) struct TooManySessions;

impl HttpSessions {
    pub fn new() -> Self {
        HttpSessions {
            sessions: Mutex::default(),
            idle: SESSION_IDLE,
            max: MAX_SESSIONS,
        }
    }

    /// Keeps `session` (rule 1).
    pub fn open(&self, session: Arc<HttpSession>) -> Result<(), TooManySessions> {
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= self.max {
            let idle = self.idle;
            sessions.retain(|_, s| !expire_if_idle(s, idle));
        }
        if sessions.len() >= self.max {
            return Err(TooManySessions);
        }
        sessions.insert(session.legacy.id().to_owned(), session);
        Ok(())
    }

    /// The live session `id` of `subject` (rules 2 and 3), marked used.
    pub fn get(&self, id: &str, subject: Option<&str>) -> Option<Arc<HttpSession>> {
        let mut sessions = lock(&self.sessions);
        let session = sessions.get(id)?;
        if expire_if_idle(session, self.idle) {
            sessions.remove(id);
            return None;
        }
        if session.legacy.caller().subject.as_deref() != subject {
            return None;
        }
        *lock(&session.last_used) = Instant::now();
        Some(Arc::clone(session))
    }

    /// Ends session `id` of `subject`; whether there was one (rule 3).
    pub fn end(&self, id: &str, subject: Option<&str>) -> bool {
        let Some(session) = self.get(id, subject) else {
            return false;
        };
        lock(&self.sessions).remove(id);
        session.close();
        true
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
    last_used: Mutex<Instant>,
    logs: Mutex<Logs>,
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Moves the session's own messages to the standalone log (rule 5).
    pump: AbortHandle,
    /// Whether a `GET` reads the standalone stream now.
    pub standalone_open: Mutex<bool>,
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
    /// A session around `legacy`, whose own messages come from `queue`,
    /// charged to `budget` while kept.
    pub fn new(legacy: Arc<LegacySession>, queue: mpsc::Receiver<Message>, budget: Budget) -> Self {
        let standalone = StreamLog::new(0);
        let pump = tokio::spawn(pump(queue, Arc::clone(&standalone), budget.clone()));
        HttpSession {
            legacy,
            last_used: Mutex::new(Instant::now()),
            logs: Mutex::new(Logs {
                standalone,
                requests: BTreeMap::new(),
                next: 1,
            }),
            running: Mutex::default(),
            pump: pump.abort_handle(),
            standalone_open: Mutex::new(false),
        }
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
    /// (rule 4). The request runs on its own task: a lost connection does
    /// not stop it, `notifications/cancelled` does ([`HttpSession::cancel`]).
    pub fn run(
        &self,
        id: RequestId,
        mut stream: ResponseStream,
        budget: Budget,
    ) -> Result<Arc<StreamLog>, TooManyRequests> {
        let mut running = lock(&self.running);
        running.retain(|_, task| !task.is_finished());
        if running.len() >= MAX_SESSION_REQUESTS {
            return Err(TooManyRequests);
        }
        let log = self.new_log();
        let writing = Arc::clone(&log);
        let task = tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                let line = message.to_line();
                let charge = budget.force(line.len());
                writing.push(line, charge);
            }
            writing.finish();
        });
        running.insert(id, task.abort_handle());
        Ok(log)
    }

    fn new_log(&self) -> Arc<StreamLog> {
        let mut logs = lock(&self.logs);
        let log = StreamLog::new(logs.next);
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

    /// Drops request `id`, as `notifications/cancelled` asks.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(task) = lock(&self.running).remove(id) {
            task.abort();
        }
    }

    /// Drops every request and the pump: the session is over.
    fn close(&self) {
        for (_, task) in lock(&self.running).drain() {
            task.abort();
        }
        self.pump.abort();
        self.legacy.peer().close();
        lock(&self.logs).standalone.finish();
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
