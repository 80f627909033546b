//! What the rules share: the handles they open, the limits they start
//! from, the records they make, and waiting on a store.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::json;

use crate::server::tasks::store::{
    StoredAnswer, StoredAnswers, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch,
};
use crate::wire::{ElicitResult, InputRequest, InputRequests, InputResponse};

/// Handles on one shared store: each [`open`](SharedTaskStore::open) is
/// another server's view of the same tasks.
pub trait SharedTaskStore: Send + Sync {
    /// A store on the shared tasks.
    fn open(&self) -> Arc<dyn TaskStore>;
}

/// A short TTL: long enough for the steps before expiry, short enough to
/// wait for.
const SHORT_TTL: Duration = Duration::from_millis(150);

/// How long any single step may take before the rule fails.
const STEP: Duration = Duration::from_secs(10);

/// Limits that no rule reaches unless it lowers one.
pub(super) fn limits() -> TaskLimits {
    TaskLimits::default()
        .max_tasks(1000)
        .max_running_per_subject(100)
        .max_record_bytes(1 << 20)
        .max_store_bytes(64 << 20)
}

pub(super) fn task(id: &str, owner: Option<&str>) -> TaskRecord {
    TaskRecord::new(id.into(), owner.map(Into::into), None, None)
}

pub(super) fn expiring(id: &str) -> TaskRecord {
    TaskRecord::new(id.into(), None, Some(SHORT_TTL), None)
}

pub(super) fn requests(keys: &[&str]) -> InputRequests {
    keys.iter()
        .map(|k| (k.to_string(), InputRequest::ListRoots))
        .collect()
}

pub(super) fn answers(keys: &[&str]) -> StoredAnswers {
    keys.iter()
        .map(|k| (k.to_string(), answer(json!({"key": k}))))
        .collect()
}

pub(super) fn answer(content: serde_json::Value) -> StoredAnswer {
    StoredAnswer::new(&InputResponse::Elicit(ElicitResult::accept(content)))
}

pub(super) async fn apply(store: &dyn TaskStore, id: &str, change: TaskChange) -> Arc<TaskRecord> {
    store
        .apply(id, change, &limits())
        .await
        .expect("the store answers")
        .expect("the task exists")
}

pub(super) async fn create(store: &dyn TaskStore, record: TaskRecord, limits: &TaskLimits) {
    store.create(record, limits).await.expect("created");
}

pub(super) async fn next(watch: &mut TaskWatch) -> Option<Arc<TaskRecord>> {
    tokio::time::timeout(STEP, watch.next())
        .await
        .expect("the watch moved on in time")
}

/// Waits until `id`, and every task created before it with the same TTL,
/// has expired, asking the store every 10 ms.
pub(super) async fn until_expired(store: &dyn TaskStore, id: &str) {
    for _ in 0..1000 {
        if store.get(id).await.unwrap().is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never expired");
}
