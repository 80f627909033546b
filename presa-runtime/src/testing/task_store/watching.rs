//! Watches: versions in order, and the end of a task.

use super::support::{SharedTaskStore, apply, create, expiring, limits, next, task, until_expired};
use crate::server::tasks::store::{TaskChange, TaskLimits};
use crate::wire::TaskStatus;

pub(super) async fn a_watch_sees_the_current_record_then_each_version(
    stores: &dyn SharedTaskStore,
) {
    let store = stores.open();
    let other = stores.open();
    create(&*store, task("t", None), &limits()).await;
    apply(&*store, "t", TaskChange::StatusMessage(Some("v1".into()))).await;
    let mut watch = store.watch("t").await.unwrap().expect("the task exists");
    assert_eq!(next(&mut watch).await.unwrap().version(), 1);
    for version in 2..=4 {
        let message = format!("v{version}");
        apply(
            &*other,
            "t",
            TaskChange::StatusMessage(Some(message.clone())),
        )
        .await;
        let seen = next(&mut watch).await.unwrap();
        assert_eq!(seen.version(), version);
        assert_eq!(seen.status_message(), Some(message.as_str()));
    }
    apply(&*other, "t", TaskChange::Cancel).await;
    assert_eq!(
        next(&mut watch).await.unwrap().status(),
        TaskStatus::Cancelled
    );
    assert!(store.watch("unknown").await.unwrap().is_none());
}

pub(super) async fn a_watch_ends_when_its_task_expires(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    create(&*store, expiring("t"), &limits()).await;
    let mut watch = store.watch("t").await.unwrap().unwrap();
    assert_eq!(next(&mut watch).await.unwrap().id(), "t");
    until_expired(&*store, "t").await;
    store.purge_expired().await.unwrap();
    assert!(next(&mut watch).await.is_none());
}

pub(super) async fn a_watch_ends_when_its_task_is_evicted(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let cap = TaskLimits {
        max_tasks: 1,
        ..limits()
    };
    create(&*store, task("old", None), &cap).await;
    apply(&*store, "old", TaskChange::Cancel).await;
    let mut watch = store.watch("old").await.unwrap().unwrap();
    assert_eq!(
        next(&mut watch).await.unwrap().status(),
        TaskStatus::Cancelled
    );
    create(&*stores.open(), task("new", None), &cap).await;
    assert!(next(&mut watch).await.is_none());
}
