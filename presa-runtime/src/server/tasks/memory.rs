//! The default [`TaskStore`]: a map in this process's memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::StreamExt;
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::store::{StoreError, TaskChange, TaskRecord, TaskStore, TaskWatch};
use crate::util::lock;

/// How many versions a slow watcher may fall behind before it skips some.
const WATCH_BUFFER: usize = 16;

/// Tasks in memory. They do not survive a restart, and only this process
/// sees them.
///
/// Expiry runs on tokio's clock, so tests with paused time control it.
#[derive(Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    record: Arc<TaskRecord>,
    expires: Option<Instant>,
    changes: broadcast::Sender<Arc<TaskRecord>>,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        self.expires.is_some_and(|at| at <= now)
    }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f` on the live entry `id`, removing it first if it expired.
    fn with_live<T>(&self, id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut tasks = lock(&self.tasks);
        let expired = tasks.get(id)?.expired(Instant::now());
        if expired {
            tasks.remove(id);
            return None;
        }
        tasks.get_mut(id).map(f)
    }
}

fn purge(tasks: &mut HashMap<String, Entry>) -> usize {
    let now = Instant::now();
    let before = tasks.len();
    tasks.retain(|_, entry| !entry.expired(now));
    before - tasks.len()
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn create(&self, record: TaskRecord, max_tasks: usize) -> Result<(), StoreError> {
        let mut tasks = lock(&self.tasks);
        if tasks.len() >= max_tasks && (purge(&mut tasks) == 0 || tasks.len() >= max_tasks) {
            return Err(StoreError::Full { limit: max_tasks });
        }
        let entry = Entry {
            expires: record.ttl.map(|ttl| Instant::now() + ttl),
            record: Arc::new(record),
            changes: broadcast::channel(WATCH_BUFFER).0,
        };
        tasks.insert(entry.record.id.clone(), entry);
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        Ok(self.with_live(id, |entry| Arc::clone(&entry.record)))
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        Ok(self.with_live(id, |entry| {
            // Only terminal records carry a (possibly large) result, and
            // they accept no change: skip the copy.
            if entry.record.status.is_terminal() {
                return Arc::clone(&entry.record);
            }
            let mut record = (*entry.record).clone();
            if change.apply(&mut record) {
                entry.record = Arc::new(record);
                // No receivers is fine: nobody is watching.
                let _ = entry.changes.send(Arc::clone(&entry.record));
            }
            Arc::clone(&entry.record)
        }))
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        Ok(self.with_live(id, |entry| {
            // Subscribing under the lock means no version falls between the
            // current record and the first change.
            let changes = entry.changes.subscribe();
            let current = Arc::clone(&entry.record);
            futures::stream::once(async move { current })
                .chain(futures::stream::unfold(changes, next_change))
                .boxed()
        }))
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        Ok(purge(&mut lock(&self.tasks)))
    }

    async fn count(&self) -> Result<usize, StoreError> {
        let mut tasks = lock(&self.tasks);
        purge(&mut tasks);
        Ok(tasks.len())
    }
}

async fn next_change(
    mut changes: broadcast::Receiver<Arc<TaskRecord>>,
) -> Option<(Arc<TaskRecord>, broadcast::Receiver<Arc<TaskRecord>>)> {
    loop {
        match changes.recv().await {
            Ok(record) => return Some((record, changes)),
            // The newest versions are still queued; skip to them.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record(id: &str, ttl: Option<Duration>) -> TaskRecord {
        TaskRecord::new(id.into(), None, ttl, None)
    }

    #[tokio::test(start_paused = true)]
    async fn expired_tasks_vanish_on_read_and_free_their_slot() {
        let store = InMemoryTaskStore::new();
        let ttl = Some(Duration::from_secs(10));
        store.create(record("a", ttl), 1).await.unwrap();
        assert_eq!(
            store.create(record("b", ttl), 1).await,
            Err(StoreError::Full { limit: 1 })
        );
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(store.get("a").await.unwrap().is_none());
        store.create(record("b", ttl), 1).await.unwrap();
        assert_eq!(store.count().await.unwrap(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_store_purges_expired_tasks_before_refusing() {
        let store = InMemoryTaskStore::new();
        store
            .create(record("old", Some(Duration::from_secs(1))), 2)
            .await
            .unwrap();
        store.create(record("forever", None), 2).await.unwrap();
        tokio::time::advance(Duration::from_secs(1)).await;
        store.create(record("new", None), 2).await.unwrap();
        assert!(store.get("old").await.unwrap().is_none());
        assert_eq!(
            store.create(record("more", None), 2).await,
            Err(StoreError::Full { limit: 2 })
        );
    }

    #[tokio::test(start_paused = true)]
    async fn watchers_see_the_current_record_then_each_change_then_the_end() {
        let store = InMemoryTaskStore::new();
        store
            .create(record("a", Some(Duration::from_secs(5))), 10)
            .await
            .unwrap();
        let mut watch = store.watch("a").await.unwrap().unwrap();
        assert_eq!(watch.next().await.unwrap().version, 0);
        store
            .apply("a", TaskChange::StatusMessage(Some("half way".into())))
            .await
            .unwrap();
        let next = watch.next().await.unwrap();
        assert_eq!(next.status_message.as_deref(), Some("half way"));
        tokio::time::advance(Duration::from_secs(5)).await;
        assert_eq!(store.purge_expired().await.unwrap(), 1);
        assert!(watch.next().await.is_none());
    }
}
