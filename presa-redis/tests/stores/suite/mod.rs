//! The rules every task store keeps, written once and run against each
//! store by [`rules!`](crate::rules).

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use presa_runtime::server::tasks::{
    StoreError, StoredAnswer, StoredAnswers, TaskChange, TaskLimits, TaskRecord, TaskStore,
    TaskWatch,
};
use presa_runtime::wire::{
    ElicitResult, ErrorObject, InputRequest, InputRequests, InputResponse, TaskStatus,
};
use serde_json::{Map, json};

mod changes;
mod leasing;
mod limits;
mod living;
mod watching;

pub use changes::*;
pub use leasing::*;
pub use limits::*;
pub use living::*;
pub use watching::*;

/// Handles on one shared store: each [`open`](Stores::open) is another
/// server's view of the same tasks.
pub trait Stores {
    /// A store on the shared tasks.
    fn open(&self) -> Arc<dyn TaskStore>;
}

/// A short TTL: long enough for the steps before expiry, short enough to
/// wait for.
const SHORT_TTL: Duration = Duration::from_millis(150);

/// How long any single step may take before the test fails.
const STEP: Duration = Duration::from_secs(10);

pub fn limits() -> TaskLimits {
    TaskLimits {
        max_tasks: 1000,
        max_running_per_subject: 100,
        max_record_bytes: 1 << 20,
        max_store_bytes: 64 << 20,
    }
}

fn task(id: &str, owner: Option<&str>) -> TaskRecord {
    TaskRecord::new(id.into(), owner.map(Into::into), None, None)
}

fn expiring(id: &str) -> TaskRecord {
    TaskRecord::new(id.into(), None, Some(SHORT_TTL), None)
}

fn requests(keys: &[&str]) -> InputRequests {
    keys.iter()
        .map(|k| (k.to_string(), InputRequest::ListRoots))
        .collect()
}

fn answers(keys: &[&str]) -> StoredAnswers {
    keys.iter()
        .map(|k| (k.to_string(), answer(json!({"key": k}))))
        .collect()
}

fn answer(content: serde_json::Value) -> StoredAnswer {
    StoredAnswer::new(&InputResponse::Elicit(ElicitResult::accept(content)))
}

async fn apply(store: &dyn TaskStore, id: &str, change: TaskChange) -> Arc<TaskRecord> {
    store
        .apply(id, change, &limits())
        .await
        .expect("the store answers")
        .expect("the task exists")
}

async fn create(store: &dyn TaskStore, record: TaskRecord, limits: &TaskLimits) {
    store.create(record, limits).await.expect("created");
}

async fn next(watch: &mut TaskWatch) -> Option<Arc<TaskRecord>> {
    tokio::time::timeout(STEP, watch.next())
        .await
        .expect("the watch moved on in time")
}

/// Waits until `id`, and every task created before it with the same TTL,
/// has expired.
async fn until_expired(store: &dyn TaskStore, id: &str) {
    for _ in 0..1000 {
        if store.get(id).await.unwrap().is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never expired");
}

/// Calls `$define!` with the name of every rule above, for it to define
/// each as a test on its store.
#[macro_export]
macro_rules! rules {
    ($define:ident) => {
        $define!(
            a_created_task_reads_back_whole,
            every_change_applies_as_in_task_change,
            a_change_that_changes_nothing_keeps_the_version,
            a_finished_task_accepts_no_change,
            answers_past_the_record_size_are_refused,
            one_subject_runs_at_most_its_quota,
            at_the_cap_the_first_finished_task_is_evicted,
            the_store_holds_at_most_its_bytes,
            a_watch_sees_the_current_record_then_each_version,
            a_watch_ends_when_its_task_expires,
            a_watch_ends_when_its_task_is_evicted,
            expired_tasks_are_gone_and_purged,
            count_and_list_see_live_tasks_by_owner_in_order,
            racing_changes_all_land_once,
            a_lease_is_held_renewed_refused_and_taken_once_lapsed,
            a_task_that_ended_holds_no_lease,
        );
    };
}
