//! [`TaskStore`]: the trait a store implements, with the [`TaskLimits`]
//! it keeps to.
//!
//! The contract is in the trait's docs, method by method; the module docs
//! of [`store`](super) give the rules in order.

use std::sync::Arc;
use std::time::SystemTime;

use async_trait::async_trait;
use futures::stream::BoxStream;

use super::super::lease::Lease;
use super::change::TaskChange;
use super::error::StoreError;
use super::list::ListTasks;
use super::record::TaskRecord;

/// What a store may hold. The engine passes them with every call that can
/// make a store grow, so a store needs no settings of its own; they come
/// from [`TaskSettings`](crate::server::TaskSettings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLimits {
    /// Tasks kept, running and finished. At the cap, the task that
    /// finished first is evicted to make room; when every task runs, the
    /// new one is refused.
    pub max_tasks: usize,
    /// Running tasks of one subject. Anonymous callers share one quota.
    pub max_running_per_subject: usize,
    /// What one record may weigh ([`TaskRecord::weight`]).
    pub max_record_bytes: usize,
    /// What all records together may weigh. Finished tasks are evicted,
    /// oldest first, to make room.
    pub max_store_bytes: usize,
}

const MIB: usize = 1024 * 1024;

impl Default for TaskLimits {
    /// The limits of [`TaskSettings::default`](crate::server::TaskSettings).
    fn default() -> Self {
        TaskLimits {
            max_tasks: 1000,
            max_running_per_subject: 100,
            max_record_bytes: 4 * MIB,
            max_store_bytes: 128 * MIB,
        }
    }
}

impl TaskLimits {
    /// These limits with at most `max` tasks kept.
    pub const fn max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max;
        self
    }

    /// These limits with at most `max` running tasks per subject.
    pub const fn max_running_per_subject(mut self, max: usize) -> Self {
        self.max_running_per_subject = max;
        self
    }

    /// These limits with records of at most `max` bytes.
    pub const fn max_record_bytes(mut self, max: usize) -> Self {
        self.max_record_bytes = max;
        self
    }

    /// These limits with at most `max` bytes of records in all.
    pub const fn max_store_bytes(mut self, max: usize) -> Self {
        self.max_store_bytes = max;
        self
    }
}

/// The changes of one task: the current record first, then each new
/// version. Nothing follows a terminal version, so a store may end the
/// watch there; it must end it when the task is removed (expired). A
/// watcher that falls behind may skip versions, but always receives the
/// latest.
pub type TaskWatch = BoxStream<'static, Arc<TaskRecord>>;

/// Where tasks live. [`InMemoryTaskStore`](crate::server::tasks::InMemoryTaskStore) is
/// the default; implement this trait to keep tasks in a shared database.
///
/// A store must be linearizable per task: [`apply`](TaskStore::apply) is
/// an atomic read-modify-write, and watchers see versions in order.
/// Expired tasks must be invisible to every method even before they are
/// purged. A store keeps to the [`TaskLimits`] it is given: it evicts
/// finished tasks, the one that finished first first, before it refuses
/// anything.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. Fails with [`StoreError::QuotaExceeded`] when its
    /// owner already runs `max_running_per_subject` tasks, and with
    /// [`StoreError::Full`] or [`StoreError::OutOfSpace`] when it does not
    /// fit even after evicting every finished task. When this returns,
    /// [`get`](TaskStore::get) must find the task.
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError>;

    /// The task, unless it is unknown or expired.
    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// The task as this store last saw it, which may be an older version
    /// than [`get`](TaskStore::get) would find: enough to check what never
    /// changes once a task is created (its owner, its trace parent)
    /// before a change that reads the record anyway. `None` if it is
    /// unknown or expired. A store that keeps copies of records may answer
    /// from its copy, saving a read; this default calls `get`.
    async fn peek(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.get(id).await
    }

    /// Applies `change` with [`TaskChange::apply`], with the room the
    /// record has under `limits` (evicting finished tasks to make it),
    /// publishes the result to watchers if it changed anything, and
    /// returns the record as it now is; `None` if the task is unknown or
    /// expired.
    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// Follows the task's changes; `None` if it is unknown or expired.
    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError>;

    /// Removes expired tasks (ending their watches); returns how many.
    async fn purge_expired(&self) -> Result<usize, StoreError>;

    /// How many live (unexpired) tasks the store holds, running or not.
    async fn count(&self) -> Result<usize, StoreError>;

    /// Takes or renews `lease` on the running task `id`, following
    /// [`Lease::may_hold`] at `now`: `false` if another server holds a
    /// lease that has not lapsed, or the task is finished or unknown. A
    /// store without leases keeps this default, which grants every lease:
    /// it suits a store that only one server uses.
    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        let _ = (id, lease, now);
        Ok(true)
    }

    /// Up to `limit` running tasks whose lease has lapsed at `now`: tasks
    /// whose server stopped renewing it. A store without leases keeps this
    /// default, which finds none.
    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        let _ = (now, limit);
        Ok(Vec::new())
    }

    /// The store as a [`ListTasks`], if it can list tasks: only legacy
    /// (2025-11-25) `tasks/list` needs it. A store that cannot list keeps
    /// this default: the server then declares no `tasks.list` to legacy
    /// clients, and answers their `tasks/list` with `-32601`, method not
    /// found. A store that lists returns `Some(self)`.
    fn lister(&self) -> Option<&dyn ListTasks> {
        None
    }
}

/// A shared store: several servers (or a server and its operator's tools)
/// can hold the same one.
#[async_trait]
impl<S: TaskStore + ?Sized> TaskStore for Arc<S> {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        (**self).create(record, limits).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).get(id).await
    }

    async fn peek(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).peek(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).apply(id, change, limits).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        (**self).watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        (**self).purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        (**self).count().await
    }

    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        (**self).hold(id, lease, now).await
    }

    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        (**self).lapsed(now, limit).await
    }

    fn lister(&self) -> Option<&dyn ListTasks> {
        (**self).lister()
    }
}
