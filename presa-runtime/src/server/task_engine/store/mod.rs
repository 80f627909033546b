//! The task store interface: everything a store needs, and nothing else.
//!
//! The engine never touches task state directly. It creates a
//! [`TaskRecord`], reads it back, and describes every change as a
//! [`TaskChange`]; the store applies the change atomically with
//! [`TaskChange::apply`] and publishes the new record to every
//! [`watch`](TaskStore::watch)er. Parked `ctx.elicit` futures, the task
//! runner (which drops a cancelled handler) and `subscriptions/listen`
//! streams are all watchers, so a shared store (Redis, Postgres) that
//! publishes changes across processes makes all three work across
//! processes, with no change to the engine.
//!
//! # Writing a store, in order
//!
//! 1. **Keep records, not fields.** A [`TaskRecord`] is `Serialize` and
//!    `Deserialize` (the `json` file says how): write it as one document
//!    per task, keyed by [`TaskRecord::id`], with its owner, status and
//!    [`weight`](TaskRecord::weight) beside it where your queries need
//!    them. Never edit a record yourself.
//! 2. **Apply every change with [`TaskChange::apply`]**, atomically per
//!    task: read the record, apply the change with the room the record
//!    has under the [`TaskLimits`] you were handed, and write it back only
//!    if nobody wrote it meanwhile (a lock, a transaction, or a
//!    compare-and-set on [`version`](TaskRecord::version)).
//! 3. **Publish every write to the task's watchers** ([`TaskWatch`]), in
//!    version order, and end their watches when the task is removed.
//! 4. **Keep to the limits**: evict finished tasks, the first to finish
//!    first, before refusing anything with a [`StoreError`]; a backend
//!    that fails is [`StoreError::Backend`], never a panic.
//! 5. **Hide expired tasks** from every method, even before
//!    [`purge_expired`](TaskStore::purge_expired) removes them.
//! 6. **Leases and listing are optional.** A store that only one server
//!    uses keeps the defaults of [`hold`](TaskStore::hold) and
//!    [`lapsed`](TaskStore::lapsed); one that can page through an owner's
//!    tasks implements [`ListTasks`] for legacy `tasks/list`.
//! 7. **Run the conformance kit**, `presa::testing::task_store_suite`
//!    (feature `testing`; `crate::testing` here), which checks each of
//!    these rules against your store as it checks the in-memory and Redis
//!    ones.
//!
//! # Why `async_trait`
//!
//! The engine holds its store as `Arc<dyn TaskStore>`, so the trait must
//! be object-safe, which a native `async fn` in a trait is not. The
//! traits here are written with the [`async_trait`] attribute, which boxes
//! each method's future; an implementation adds `async-trait` to its own
//! dependencies and writes `#[async_trait::async_trait]` on its `impl`.
//! Writing the boxed futures out by hand, without the attribute, works as
//! well.
//!
//! [`async_trait`]: https://docs.rs/async-trait
//!
//! Layers, bottom up: by_input_key, stored, call, record, change, json, error, list, task_store.

mod by_input_key;
mod call;
mod change;
mod error;
mod json;
mod list;
mod record;
mod stored;
mod task_store;

pub use super::lease::Lease;
pub use by_input_key::ByInputKey;
pub use call::{ResumableCall, StoredCall};
pub use change::{AnswersTooLarge, TaskChange};
pub use error::StoreError;
pub use list::ListTasks;
pub use record::{RECORD_OVERHEAD, TaskRecord};
pub use stored::{
    StoredAnswer, StoredAnswers, StoredJson, StoredRequest, StoredRequests, StoredResult,
};
pub use task_store::{TaskLimits, TaskStore, TaskWatch};
