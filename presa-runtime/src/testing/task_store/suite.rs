//! The runner: each rule of the kit, by name, run on a fresh store.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::support::SharedTaskStore;
use super::{changes, leasing, limits, living, watching};
use crate::server::tasks::store::TaskStore;

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
