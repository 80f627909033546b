//! The conformance kit of task stores: the rules every [`TaskStore`]
//! keeps, written once, and run against the in-memory and Redis stores as
//! against yours.
//!
//! A store passes when every rule does. The rules, in the order they run:
//!
//! 1. **changes**: a created task reads back whole; every change applies
//!    as [`TaskChange::apply`] says; a change that changes nothing keeps
//!    the version; a finished task accepts no change; answers past the
//!    record size are refused; two handles racing land every change once;
//! 2. **limits**: one subject runs at most its quota; at the task cap the
//!    first finished task is evicted; the store holds at most its bytes;
//! 3. **watching**: a watch sees the current record, then each version,
//!    and ends when its task expires or is evicted;
//! 4. **living**: expired tasks are gone and purged; counting sees live
//!    tasks, and a store that lists ([`ListTasks`]) lists them by owner,
//!    in order of id;
//! 5. **leasing**: a lease is held, renewed, refused to another server and
//!    taken once lapsed; a task that ended holds none. A store that keeps
//!    the default [`hold`](crate::server::tasks::store::TaskStore::hold),
//!    which grants every lease (a store only one server uses), breaks
//!    these two.
//!
//! Each rule runs on a fresh store: the function you pass makes one.
//! Rules that need several servers open several handles on it with
//! [`SharedTaskStore::open`]; [`task_store_suite`] shares one handle,
//! [`shared_task_store_suite`] lets you give each its own connections, as
//! separate servers would have.
//!
//! Expiry is waited for, a few milliseconds at a time, by asking the store
//! whether the task is still there. A store on tokio's clock (as the
//! in-memory one is) runs the kit under paused time, where no real time
//! passes and nothing depends on the machine's speed:
//!
//! ```
//! use presa_runtime::server::tasks::InMemoryTaskStore;
//! use presa_runtime::testing::task_store_suite;
//!
//! # fn main() {
//! # tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true)
//! #     .build().unwrap().block_on(async {
//! // In a test: #[tokio::test(start_paused = true)]
//! task_store_suite(async || InMemoryTaskStore::new()).await;
//! # });
//! # }
//! ```
//!
//! A failure names its rule; the panic of the assertion that failed is
//! printed above it.
//!
//! [`TaskStore`]: crate::server::tasks::store::TaskStore
//! [`TaskChange::apply`]: crate::server::tasks::store::TaskChange::apply
//! [`ListTasks`]: crate::server::tasks::store::ListTasks

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use crate::server::tasks::store::TaskStore;

mod changes;
mod leasing;
mod limits;
mod living;
mod support;
mod watching;

pub use support::SharedTaskStore;

/// Checks every rule of the kit against `fresh()`'s stores, one fresh store
/// per rule; every server's handle is that one store. Panics, naming the
/// rule, at the first one broken.
pub async fn task_store_suite<S: TaskStore>(mut fresh: impl AsyncFnMut() -> S) {
    shared_task_store_suite(async || OneHandle(Arc::new(fresh().await))).await;
}

/// Checks every rule of the kit against `fresh()`'s shared stores, one per
/// rule, opening a handle for each server a rule needs. Panics, naming the
/// rule, at the first one broken.
pub async fn shared_task_store_suite<B: SharedTaskStore>(mut fresh: impl AsyncFnMut() -> B) {
    for rule in RULES {
        let stores = fresh().await;
        let checked = AssertUnwindSafe((rule.check)(&stores)).catch_unwind().await;
        if checked.is_err() {
            panic!(
                "the task store breaks rule `{}` (the panic above says how)",
                rule.name
            );
        }
    }
}

/// One store shared by every handle.
struct OneHandle<S>(Arc<S>);

impl<S: TaskStore> SharedTaskStore for OneHandle<S> {
    fn open(&self) -> Arc<dyn TaskStore> {
        Arc::clone(&self.0) as Arc<dyn TaskStore>
    }
}

/// A rule of the kit, by name.
struct Rule {
    name: &'static str,
    check: for<'a> fn(&'a dyn SharedTaskStore) -> BoxFuture<'a, ()>,
}

/// The rules, in the order of the module docs.
macro_rules! rules {
    ($($module:ident :: $rule:ident),+ $(,)?) => {
        &[$(Rule {
            name: stringify!($rule),
            check: |stores| Box::pin($module::$rule(stores)),
        }),+]
    };
}

const RULES: &[Rule] = rules![
    changes::a_created_task_reads_back_whole,
    changes::every_change_applies_as_in_task_change,
    changes::a_change_that_changes_nothing_keeps_the_version,
    changes::a_finished_task_accepts_no_change,
    changes::answers_past_the_record_size_are_refused,
    changes::racing_changes_all_land_once,
    limits::one_subject_runs_at_most_its_quota,
    limits::at_the_cap_the_first_finished_task_is_evicted,
    limits::the_store_holds_at_most_its_bytes,
    watching::a_watch_sees_the_current_record_then_each_version,
    watching::a_watch_ends_when_its_task_expires,
    watching::a_watch_ends_when_its_task_is_evicted,
    living::expired_tasks_are_gone_and_purged,
    living::count_and_list_see_live_tasks_by_owner_in_order,
    leasing::a_lease_is_held_renewed_refused_and_taken_once_lapsed,
    leasing::a_task_that_ended_holds_no_lease,
];
