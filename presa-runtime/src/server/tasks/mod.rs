//! The task engine: tool calls that outlive their request
//! (`io.modelcontextprotocol/tasks`).
//!
//! ```text
//!  tools/call ──▶ policy says "task" ──▶ store.create ──▶ CreateTaskResult
//!                                            │
//!                      runner (own tokio task): handler ──▶ store.apply(Complete | Fail)
//!                                            │       ▲
//!   ctx.elicit ──▶ store.apply(RequestInput) │       │ store.watch: answer arrived
//!   tasks/update ──▶ store.apply(Answer) ────┘───────┘
//!   tasks/get ──▶ store.get          tasks/cancel ──▶ store.apply(Cancel) ──▶ runner drops the handler
//!   subscriptions/listen ──▶ store.watch ──▶ notifications/tasks
//! ```
//!
//! # Why a store behind a trait
//!
//! Everything about a task lives in its [`TaskRecord`], and every change is
//! a [`TaskChange`] applied atomically by a [`TaskStore`]. Nobody waits on
//! in-process state: a parked `ctx.elicit`, the runner watching for
//! cancellation and a `subscriptions/listen` stream all follow the record
//! through [`TaskStore::watch`]. A shared store that publishes its changes
//! (Redis pub/sub, Postgres `LISTEN`) therefore makes `tasks/update`,
//! `tasks/cancel` and notifications work across processes without touching
//! the engine. Answers stay in the record, so such a store could also
//! resume a task after a restart by replaying its handler.
//!
//! # Lifecycle rules
//!
//! - The record exists before `CreateTaskResult` is sent, so an immediate
//!   `tasks/get` finds it.
//! - The handler runs on its own tokio task with a context that carries the
//!   caller's version, capabilities, client info and subject, but no
//!   progress or log channel.
//! - An input request moves the task to `input_required` and **parks** the
//!   handler; code before it runs once. `tasks/update` stores answers for
//!   outstanding keys only; when none is outstanding the task is `working`
//!   again and the handler wakes. A key is never asked twice in one task.
//! - A tool error ends `completed` with the `isError` result; a panic or
//!   internal error ends `failed` with `-32603 Internal error`, whose
//!   message says nothing of the cause.
//! - `tasks/cancel` makes a running task `cancelled` and drops its handler
//!   (and so its parked input futures).
//! - `ttlMs` after creation the task is gone: a read checks the expiry, and
//!   a sweeper purges expired tasks (dropping their handlers) in the
//!   background.
//! - A task belongs to the subject that created it; for anyone else it does
//!   not exist.

mod engine;
mod listen;
mod memory;
mod store;

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The attribute [`TaskStore`] implementations use, re-exported so that a
/// store needs no dependency of its own: `#[presa::server::tasks::async_trait]`.
pub use async_trait::async_trait;
pub use memory::InMemoryTaskStore;
pub use store::{StoreError, TaskChange, TaskRecord, TaskStore, TaskWatch};

pub(crate) use engine::{
    CreateError, OrphanGuard, Run, TaskLink, tasks_capability, too_many_tasks,
};
pub use listen::MAX_LISTEN_TASK_IDS;
pub(super) use listen::listen;

/// How the server runs tasks: [`ServerBuilder::tasks`](super::ServerBuilder::tasks).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSettings {
    ttl: Option<Duration>,
    poll_interval: Duration,
    max_tasks: usize,
    sweep_interval: Duration,
}

impl Default for TaskSettings {
    /// A one-hour TTL, a 20 ms poll interval and at most 1 000 live tasks.
    fn default() -> Self {
        TaskSettings {
            ttl: Some(Duration::from_millis(3_600_000)),
            poll_interval: Duration::from_millis(20),
            max_tasks: 1000,
            sweep_interval: Duration::from_secs(60),
        }
    }
}

impl TaskSettings {
    /// How long a task is kept after its creation (`ttlMs`; at least one
    /// second, so that a client can read what it was just given); `None`
    /// keeps it until the process ends.
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl.map(|ttl| ttl.max(Duration::from_secs(1)));
        self
    }

    /// The `pollIntervalMs` suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many live (unexpired) tasks the server keeps at most. At the cap,
    /// an `optional` tool runs synchronously and a `required` one fails
    /// with [`TOO_MANY_TASKS`](crate::wire::codes::TOO_MANY_TASKS).
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.max_tasks = tasks;
        self
    }

    /// How often expired tasks are purged in the background (default one
    /// minute; at least one millisecond).
    pub fn sweep_interval(mut self, interval: Duration) -> Self {
        self.sweep_interval = interval.max(Duration::from_millis(1));
        self
    }
}

/// The tasks part of a server: the settings and the store.
pub(crate) struct TaskEngine {
    pub settings: TaskSettings,
    pub store: Arc<dyn TaskStore>,
    sweeper: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl TaskEngine {
    pub fn new(settings: TaskSettings, store: Arc<dyn TaskStore>) -> Self {
        TaskEngine {
            settings,
            store,
            sweeper: Mutex::new(None),
        }
    }

    /// Starts the background sweeper from inside the runtime, unless it
    /// runs already (it is started again if the runtime that ran it is
    /// gone). It stops when the store is dropped.
    fn start_sweeper(&self) {
        let mut sweeper = crate::server::lock(&self.sweeper);
        if sweeper.as_ref().is_some_and(|s| !s.is_finished()) {
            return;
        }
        let store = Arc::downgrade(&self.store);
        let period = self.settings.sweep_interval;
        *sweeper = Some(tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(store) = store.upgrade() else { return };
                if let Err(e) = store.purge_expired().await {
                    tracing::warn!(error = %e, "purging expired tasks failed");
                }
            }
        }));
    }
}
