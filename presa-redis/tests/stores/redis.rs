//! The conformance kit against [`RedisTaskStore`], each rule on a
//! `redis-server` of its own, and what only a store with a server behind
//! it must do.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use presa::testing::{SharedTaskStore, shared_task_store_suite};
use presa_redis::RedisTaskStore;
use presa_runtime::server::tasks::store::{
    ListTasks, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore,
};

use crate::redis_server::RedisServer;

/// Stores on one server under one prefix: each handle is a server of its
/// own, with its own connections.
pub struct Redis {
    server: RedisServer,
    url: String,
    prefix: String,
}

impl Redis {
    fn on(server: RedisServer) -> Self {
        Redis::at(server, |url| url)
    }

    /// Stores on `server`, at the URL `url` makes of its plain one.
    pub fn at(server: RedisServer, url: impl FnOnce(String) -> String) -> Self {
        Redis {
            url: url(server.url()),
            server,
            prefix: "test:".into(),
        }
    }

    fn store(&self) -> RedisTaskStore {
        RedisTaskStore::builder(self.url.clone())
            .prefix(self.prefix.clone())
            .build()
            .expect("a valid URL")
    }
}

impl SharedTaskStore for Redis {
    fn open(&self) -> Arc<dyn TaskStore> {
        Arc::new(self.store())
    }
}

crate::redis_tests!(
    keeps_every_rule,
    an_unreachable_redis_is_a_clear_error_until_it_is_back,
    a_watch_reads_afresh_after_redis_came_back,
    prefixes_keep_stores_apart,
    a_change_from_a_stale_copy_loses_no_update,
    a_watch_dropped_while_it_subscribes_leaves_no_subscription,
);

/// Every rule of the kit, each on a server of its own, every handle with
/// connections of its own.
async fn keeps_every_rule(server: RedisServer) {
    let first = Redis::on(server);
    assert!(first.store().lister().is_some(), "it lists");
    let mut first = Some(first);
    let fresh = async || {
        first
            .take()
            .unwrap_or_else(|| Redis::on(RedisServer::start()))
    };
    shared_task_store_suite(fresh).await;
}

/// A store computes its next change from the last record it wrote, to
/// save a read. When another store changed the task meanwhile, the change
/// is computed again from the record as it is, and a change that does
/// nothing to the stale copy is still decided on the record as it is.
async fn a_change_from_a_stale_copy_loses_no_update(server: RedisServer) {
    let redis = Redis::on(server);
    let (mine, theirs) = (redis.store(), redis.store());
    let created = task("t1");
    let first = created.version();
    mine.create(created, &limits()).await.unwrap();
    let message = |text: &str| TaskChange::StatusMessage(Some(text.to_owned()));

    theirs
        .apply("t1", message("theirs"), &limits())
        .await
        .unwrap();
    let changed = mine.apply("t1", message("mine"), &limits()).await.unwrap();
    let changed = changed.expect("the task is there");
    assert_eq!(changed.version(), first + 2, "both changes count");
    assert_eq!(changed.status_message(), Some("mine"));

    // Their message is the one in my copy: to the copy, mine changes
    // nothing; to the record, it does.
    theirs
        .apply("t1", message("other"), &limits())
        .await
        .unwrap();
    let changed = mine.apply("t1", message("mine"), &limits()).await.unwrap();
    let changed = changed.expect("the task is there");
    assert_eq!(changed.version(), first + 4);
    assert_eq!(changed.status_message(), Some("mine"));
    let stored = theirs.get("t1").await.unwrap().expect("the task is there");
    assert_eq!(stored.version(), changed.version(), "Redis holds it");
    assert_eq!(stored.status_message(), Some("mine"));
}

/// Limits that the tests below do not reach.
fn limits() -> TaskLimits {
    TaskLimits::default()
}

fn task(id: &str) -> TaskRecord {
    TaskRecord::new(id.into(), None, None, None)
}

fn unreachable(result: Result<impl std::fmt::Debug, StoreError>) -> String {
    match result {
        Err(StoreError::Backend(message)) => message,
        other => panic!("expected a backend error, got {other:?}"),
    }
}

async fn an_unreachable_redis_is_a_clear_error_until_it_is_back(server: RedisServer) {
    let mut redis = Redis::on(server);
    let store = redis.store();
    store.create(task("before"), &limits()).await.unwrap();
    redis.server.stop();

    let message = unreachable(store.get("before").await);
    assert!(message.contains("unreachable"), "{message}");
    assert!(message.contains("127.0.0.1"), "{message}");
    unreachable(store.create(task("during"), &limits()).await);
    unreachable(store.apply("before", TaskChange::Cancel, &limits()).await);
    unreachable(store.watch("before").await.map(|_| ()));
    unreachable(store.count().await);
    unreachable(store.list(None, None, 10).await);
    unreachable(store.purge_expired().await);

    redis.server.restart();
    let mut back = false;
    for _ in 0..200 {
        if store.count().await.is_ok() {
            back = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(back, "the store never reconnected");
    // A server without persistence comes back empty.
    assert!(store.get("before").await.unwrap().is_none());
    store.create(task("after"), &limits()).await.unwrap();
    assert!(store.watch("after").await.unwrap().is_some());
}

async fn a_watch_reads_afresh_after_redis_came_back(server: RedisServer) {
    let mut redis = Redis::on(server);
    let store = redis.store();
    store.create(task("t"), &limits()).await.unwrap();
    let mut watch = store.watch("t").await.unwrap().unwrap();
    assert_eq!(watch.next().await.unwrap().version(), 0);
    redis.server.restart();
    // The new server knows no task `t`: the watch reads that and ends.
    let end = tokio::time::timeout(Duration::from_secs(10), watch.next()).await;
    assert!(end.expect("the watch noticed in time").is_none());
}

/// A watch dropped after Redis took its SUBSCRIBE, but before the store
/// heard it confirmed (its runner ended meanwhile), still leaves the
/// channel: no subscription outlives its watchers.
async fn a_watch_dropped_while_it_subscribes_leaves_no_subscription(server: RedisServer) {
    let redis = Redis::on(server);
    let port = redis.server.port();
    let subscribed = move || async move {
        let none = tokio::task::spawn_blocking(move || {
            crate::redis_server::replies_with(port, "PUBSUB CHANNELS", "*0\r\n")
        });
        !none.await.expect("the check ran")
    };
    let store = redis.store();
    store.create(task("t"), &limits()).await.unwrap();
    // Poll the watch only until Redis shows the subscription: the store
    // has then sent SUBSCRIBE but, not polled since, may not have heard
    // it back. A watch that got further before the check saw it is
    // dropped too (it leaves as any watcher does), and tried again.
    let mut caught = false;
    for _ in 0..20 {
        let mut watch = Box::pin(store.watch("t"));
        let started = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if futures::poll!(watch.as_mut()).is_ready() {
                    return true;
                }
                if subscribed().await {
                    return false;
                }
            }
        });
        let started = started.await.expect("Redis took the subscription");
        drop(watch);
        let left = tokio::time::timeout(Duration::from_secs(20), async {
            while subscribed().await {
                tokio::task::yield_now().await;
            }
        });
        left.await.expect("the dropped watch unsubscribed");
        if !started {
            caught = true;
            break;
        }
    }
    assert!(caught, "no watch was caught while it subscribed");
}

async fn prefixes_keep_stores_apart(server: RedisServer) {
    let redis = Redis::on(server);
    let mine = redis.store();
    let theirs = RedisTaskStore::builder(redis.server.url())
        .prefix("other:")
        .build()
        .unwrap();
    mine.create(task("t"), &limits()).await.unwrap();
    assert!(theirs.get("t").await.unwrap().is_none());
    assert_eq!((mine.count().await, theirs.count().await), (Ok(1), Ok(0)));
}

#[tokio::test]
async fn a_bad_url_is_refused_when_built() {
    let built = RedisTaskStore::builder("http://nowhere").build();
    assert!(matches!(built, Err(StoreError::Backend(_))));
}
