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
mod link;
mod memory;
mod settings;
mod store;

/// The attribute [`TaskStore`] implementations use, re-exported so that a
/// store needs no dependency of its own: `#[presa::server::tasks::async_trait]`.
pub use async_trait::async_trait;
pub use memory::InMemoryTaskStore;
pub use settings::TaskSettings;
pub use store::{
    AnswersTooLarge, RECORD_OVERHEAD, StoreError, StoredAnswer, StoredAnswers, TaskChange,
    TaskLimits, TaskRecord, TaskStore, TaskWatch,
};

pub(crate) use engine::{CreateError, OrphanGuard, TaskEnd, TaskEngine};
pub(crate) use link::TaskLink;
