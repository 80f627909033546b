//! The Tasks extension (`io.modelcontextprotocol/tasks`): tool calls that
//! outlive their request, and the engine that runs them.
//!
//! Tasks is an [`Extension`](super::extension::Extension) like any other:
//! [`ServerBuilder::tasks`](super::ServerBuilder::tasks) registers it
//! through the same seam as [`ServerBuilder::extension`](super::ServerBuilder::extension).
//! It advertises `{}` in `server/discover`, serves `tasks/get`,
//! `tasks/update` and `tasks/cancel` (each needs the request to declare the
//! extension, or it is answered `-32021`, and each names its task in
//! `Mcp-Name` over Streamable HTTP), and sends `notifications/tasks`. The
//! part a method cannot express, a `tools/call` that becomes a task, lives
//! in the core's `tools/call` and the engine.
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
//! the engine. Answers stay in the record, so a task whose server died can
//! be resumed elsewhere by replaying its handler (see below).
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
//! - A resumable tool's handler (`#[tool(resumable)]`) **sleeps** instead,
//!   on a server without leases: it is dropped while the task waits, and
//!   runs again from the start when nothing is outstanding, every answer
//!   the record holds returning at once, exactly as after a takeover. Its
//!   code before the last answered question runs again; the rules are in
//!   the engine's `dormant` module.
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
//!
//! # Servers that share a store
//!
//! The handler of a task runs on the server that created it. With
//! [`TaskSettings::lease`], that server holds a [`Lease`] on the task and
//! renews it; the rules are in the engine's `lease`
//! module. In short:
//!
//! - a server whose lease was taken (it was cut off from the store for
//!   longer than a lease) drops the handler;
//! - a running task whose lease lapsed (its server died, or restarted) is
//!   claimed by one sweeping server, which runs it again from the start
//!   when the tool is resumable (`#[tool(resumable)]`: the record keeps the
//!   call, and every answer it holds returns at once), and otherwise fails
//!   it with `-32603 Internal error`;
//! - a runner that cannot reach the store to follow its task, or to record
//!   its end, tries again every second, keeping its lease.
//!
//! # When the store fails
//!
//! A shared store can be down while the server runs. A task is never
//! reported created unless the store kept it, and nothing about tasks is
//! cached, so the server serves again as soon as the store does.
//!
//! - A request whose store call fails with [`StoreError::Backend`] fails
//!   with `-31002` ([`TASK_STORE_UNAVAILABLE`](crate::wire::codes::TASK_STORE_UNAVAILABLE)):
//!   the message says the task store is unavailable and to retry, `data`
//!   says when, and over Streamable HTTP it is a `503` with `Retry-After`.
//!   The backend's message goes to the logs only.
//! - A `required` tool gets that error. An `optional` one runs
//!   synchronously, as at a limit: it needs no store that way, and its
//!   caller gets its result rather than an error.
//! - A creation that failed may still have been kept (a timeout after the
//!   store acted): the task is then failed, as when its request is
//!   cancelled, so that it never shows as running without a runner.
//!
//! # Limits, so that no client can fill the server
//!
//! Every limit is part of [`TaskSettings`]; the store is handed them as
//! [`TaskLimits`] with each call that can make it grow.
//!
//! - **Running tasks** are counted per subject (`max_tasks_per_subject`),
//!   and all tasks kept, running or finished, against `max_tasks`. A
//!   finished task stays readable until its TTL, but is evicted, the
//!   first to finish first, as soon as a new task needs its room. Only when
//!   every task kept is running, or the subject is at its quota, is a new
//!   one refused: an `optional` tool then runs synchronously.
//! - **Records are weighed** ([`TaskRecord::weight`]: the JSON length of
//!   what varies) against `max_record_size` for one task and
//!   `max_store_size` for all, finished tasks again evicted first. The room
//!   a record has is handed to [`TaskChange::apply`], which refuses answers
//!   that do not fit (the task waits on) and fails a task whose tool asks
//!   or returns more than fits, with a message that says so.
//! - **Answers** are kept as the JSON text they came as ([`StoredAnswer`]),
//!   at most `max_answer_size` each (`-32602` past it), and parsed only
//!   when the handler reads them. An answer that does not fit its question
//!   is asked again under a new key at most `max_reasks` times; then the
//!   task fails, saying why. A completed task's result is kept as text
//!   too ([`StoredResult`]), and so is the question a parked input keeps
//!   for its re-asks: a parsed JSON object costs many times its text.
//! - **Listeners**: at most `max_listeners_per_task` listen streams follow
//!   one task (`-31001` past it). The engine's own watchers (the runner, a
//!   parked input) never count.
//! - **Running handlers** hold the memory budget their request was charged
//!   (its parsed size) until they end: see
//!   [`ServerBuilder::memory_limit`](super::ServerBuilder::memory_limit).
//!
//! The interface a store implements, and everything it needs, is the
//! [`store`] module; `presa::testing` checks a store against its rules.
//!
//! [`TaskRecord`]: store::TaskRecord
//! [`TaskRecord::weight`]: store::TaskRecord::weight
//! [`TaskChange`]: store::TaskChange
//! [`TaskChange::apply`]: store::TaskChange::apply
//! [`TaskStore`]: store::TaskStore
//! [`TaskStore::watch`]: store::TaskStore::watch
//! [`StoreError::Backend`]: store::StoreError::Backend
//! [`TaskLimits`]: store::TaskLimits
//! [`Lease`]: store::Lease
//! [`StoredAnswer`]: store::StoredAnswer
//! [`StoredResult`]: store::StoredResult
//!
//! Layers, bottom up: methods, extension.

mod extension;
mod methods;

pub use super::task_engine::store;
pub use super::task_engine::{InMemoryTaskStore, TaskSettings};
pub(crate) use extension::Tasks;
