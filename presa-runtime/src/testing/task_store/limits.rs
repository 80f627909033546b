//! The limits every store on one backend shares: quotas, the task cap,
//! the store's bytes.

use serde_json::{Map, json};

use super::support::{SharedTaskStore, apply, create, limits, task};
use crate::server::tasks::store::{StoreError, TaskChange, TaskLimits};
use crate::wire::TaskStatus;

pub(super) async fn one_subject_runs_at_most_its_quota(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let quota = TaskLimits {
        max_running_per_subject: 2,
        ..limits()
    };
    create(&*store, task("a1", Some("alice")), &quota).await;
    create(&*stores.open(), task("a2", Some("alice")), &quota).await;
    let refused = store.create(task("a3", Some("alice")), &quota).await;
    assert_eq!(refused, Err(StoreError::QuotaExceeded { limit: 2 }));
    create(&*store, task("b1", Some("bob")), &quota).await;
    create(&*store, task("n1", None), &quota).await;
    apply(&*store, "a1", TaskChange::Cancel).await;
    create(&*store, task("a3", Some("alice")), &quota).await;
    assert!(store.get("a1").await.unwrap().is_some());
}

pub(super) async fn at_the_cap_the_first_finished_task_is_evicted(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let cap = TaskLimits {
        max_tasks: 3,
        ..limits()
    };
    for id in ["a", "b", "c"] {
        create(&*store, task(id, None), &cap).await;
    }
    apply(&*store, "b", TaskChange::Cancel).await;
    apply(&*store, "a", TaskChange::Complete(Map::new())).await;
    create(&*store, task("d", None), &cap).await;
    assert!(store.get("b").await.unwrap().is_none(), "b finished first");
    assert!(store.get("a").await.unwrap().is_some());
    create(&*store, task("e", None), &cap).await;
    assert!(store.get("a").await.unwrap().is_none());
    let refused = store.create(task("f", None), &cap).await;
    assert_eq!(refused, Err(StoreError::Full { limit: 3 }));
    assert_eq!(store.count().await.unwrap(), 3);
}

pub(super) async fn the_store_holds_at_most_its_bytes(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let weight = task("a", None).weight();
    let tight = TaskLimits {
        max_store_bytes: 2 * weight + weight / 2,
        ..limits()
    };
    create(&*store, task("a", None), &tight).await;
    create(&*store, task("b", None), &tight).await;
    let refused = store.create(task("c", None), &tight).await;
    assert_eq!(
        refused,
        Err(StoreError::OutOfSpace {
            limit: tight.max_store_bytes
        })
    );
    store.apply("a", TaskChange::Cancel, &tight).await.unwrap();
    create(&*store, task("c", None), &tight).await;
    assert!(store.get("a").await.unwrap().is_none(), "a was evicted");

    // A running record may grow only into what the running ones leave.
    let grown = Map::from_iter([("text".to_owned(), json!("z".repeat(weight)))]);
    let failed = store.apply("b", TaskChange::Complete(grown), &tight).await;
    assert_eq!(failed.unwrap().unwrap().status(), TaskStatus::Failed);
}
