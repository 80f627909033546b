//! [`Measured`]: a task store whose operations are timed, and whose
//! records' status changes are counted, for the metrics of
//! `telemetry::metrics` (feature `otel`).
//!
//! It wraps the store the server was given, so every store counts the
//! same way, and the counts are this server's: a change another replica
//! applies is counted there.

use std::future::Future;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use async_trait::async_trait;

use super::lease::Lease;
use super::store::{
    ListTasks, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch,
};
use crate::telemetry::metrics;
use crate::wire::TaskStatus;

/// A store whose operations are timed (`presa.task_store.operation.duration`)
/// and whose status changes are counted (`presa.tasks.status_changes`).
pub(crate) struct Measured(pub Arc<dyn TaskStore>);

/// Runs `operation` on the store, timing it as `name`.
async fn timed<T>(
    name: &'static str,
    operation: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let started = Instant::now();
    let outcome = operation.await;
    metrics::store_operation(name, outcome.is_ok(), started.elapsed());
    outcome
}

#[async_trait]
impl TaskStore for Measured {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        let status = record.status;
        timed("create", self.0.create(record, limits)).await?;
        metrics::task_status(status);
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        timed("get", self.0.get(id)).await
    }

    async fn peek(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        timed("peek", self.0.peek(id)).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        // The status before the change is not read back (it would cost
        // the store a round trip), so what is counted is each change that
        // can move a task, by the status it leaves the task in. A final
        // change that found the task already finished leaves it in
        // another status, and is not counted.
        let counted = match &change {
            TaskChange::Complete(_) => Some(Some(TaskStatus::Completed)),
            TaskChange::Fail(_) => Some(Some(TaskStatus::Failed)),
            TaskChange::Cancel => Some(Some(TaskStatus::Cancelled)),
            TaskChange::RequestInput(_) | TaskChange::Answer(_) => Some(None),
            TaskChange::Withdraw(_) | TaskChange::StatusMessage(_) => None,
        };
        let applied = timed("apply", self.0.apply(id, change, limits)).await?;
        if let (Some(target), Some(record)) = (counted, &applied)
            && target.is_none_or(|status| status == record.status)
        {
            metrics::task_status(record.status);
        }
        Ok(applied)
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        timed("watch", self.0.watch(id)).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        timed("purge_expired", self.0.purge_expired()).await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        timed("count", self.0.count()).await
    }

    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        timed("hold", self.0.hold(id, lease, now)).await
    }

    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        timed("lapsed", self.0.lapsed(now, limit)).await
    }

    fn lister(&self) -> Option<&dyn ListTasks> {
        self.0.lister()
    }
}
