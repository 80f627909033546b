//! Expiry, purging, counting and, for a store that lists, listing.

use std::sync::Arc;

use super::support::{SharedTaskStore, create, expiring, limits, task, until_expired};
use crate::server::tasks::store::{ListTasks, TaskChange, TaskLimits, TaskRecord};

pub(super) async fn expired_tasks_are_gone_and_purged(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let quota = TaskLimits {
        max_running_per_subject: 2,
        ..limits()
    };
    create(&*store, expiring("e1"), &quota).await;
    create(&*store, task("kept", Some("alice")), &quota).await;
    create(&*store, expiring("e2"), &quota).await;
    until_expired(&*store, "e2").await;
    // A store whose reads purge as they go has purged `e2` already.
    assert!((1..=2).contains(&store.purge_expired().await.unwrap()));
    for id in ["e1", "e2"] {
        assert!(store.get(id).await.unwrap().is_none());
        assert!(store.watch(id).await.unwrap().is_none());
        let change = store.apply(id, TaskChange::Cancel, &quota).await;
        assert_eq!(change.unwrap(), None);
    }
    assert_eq!(store.purge_expired().await.unwrap(), 0);
    assert_eq!(store.count().await.unwrap(), 1);
    // The expired tasks no longer count against the anonymous quota.
    create(&*store, task("n1", None), &quota).await;
    create(&*store, task("n2", None), &quota).await;
}

pub(super) async fn count_and_list_see_live_tasks_by_owner_in_order(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    for id in ["t5", "t1", "t4", "t2", "t3"] {
        create(&*store, task(id, Some("alice")), &limits()).await;
    }
    create(&*store, task("t0", Some("bob")), &limits()).await;
    create(&*store, task("t6", None), &limits()).await;
    assert_eq!(stores.open().count().await.unwrap(), 7);
    if let Some(lister) = store.lister() {
        lists_by_owner_in_order(lister).await;
    }
}

/// The listing half of the rule above, on its seven tasks.
async fn lists_by_owner_in_order(store: &dyn ListTasks) {
    let ids =
        |page: Vec<Arc<TaskRecord>>| page.iter().map(|r| r.id().to_owned()).collect::<Vec<_>>();
    let page =
        async |after: Option<&'static str>| ids(store.list(Some("alice"), after, 2).await.unwrap());
    assert_eq!(page(None).await, ["t1", "t2"]);
    assert_eq!(page(Some("t2")).await, ["t3", "t4"]);
    assert_eq!(page(Some("t4")).await, ["t5"]);
    assert!(page(Some("t5")).await.is_empty());
    assert_eq!(
        ids(store.list(Some("bob"), None, 10).await.unwrap()),
        ["t0"]
    );
    assert_eq!(ids(store.list(None, None, 10).await.unwrap()), ["t6"]);
    assert!(
        store
            .list(Some("carol"), None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.list(Some("alice"), None, 0).await.unwrap().is_empty());
}
