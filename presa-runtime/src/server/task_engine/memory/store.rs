//! [`InMemoryTaskStore`]: the default task store, a map in this
//! process's memory, and the limits it keeps exactly.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use async_trait::async_trait;
use futures::StreamExt;
use tokio::time::Instant;

use super::super::lease::Lease;
use super::super::store::{
    AnswersTooLarge, ListTasks, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore,
    TaskWatch,
};
use super::versions::Versions;
use crate::util::lock;

/// Tasks in memory. They do not survive a restart, and only this process
/// sees them.
///
/// Expiry runs on tokio's clock, so tests with paused time control it.
#[derive(Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<Tasks>,
}

/// A task's id, shared by the indexes that name it.
type Id = Arc<str>;

#[derive(Default)]
struct Tasks {
    entries: HashMap<Id, Entry>,
    /// Finished tasks, the first to finish first: the eviction order.
    /// Holds ids already purged too; eviction skips them.
    finished: VecDeque<Id>,
    /// Tasks with a TTL, the first to expire first: a purge takes what
    /// expired off the front, without looking at the others.
    expiries: BTreeSet<(Instant, Id)>,
    /// Running tasks by owner.
    running: HashMap<Option<String>, usize>,
    /// The weight of every record, and of the finished ones.
    bytes: usize,
    finished_bytes: usize,
}

struct Entry {
    record: Slot,
    /// The server running the handler, when servers take leases. Boxed:
    /// most servers take none, and every task has an entry.
    lease: Option<Box<Lease>>,
    expires: Option<Instant>,
    /// The record's weight as last counted.
    weight: usize,
}

/// Where an entry's record lives.
enum Slot {
    /// Nobody follows the task.
    Alone(Arc<TaskRecord>),
    /// Followed: the channel holds the record and wakes its watchers.
    Watched(Versions),
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        self.expires.is_some_and(|at| at <= now)
    }

    fn current(&self) -> Arc<TaskRecord> {
        match &self.record {
            Slot::Alone(record) => Arc::clone(record),
            Slot::Watched(channel) => channel.current(),
        }
    }

    fn finished(&self) -> bool {
        self.current().status.is_terminal()
    }

    /// A watch of the task's versions, making the channel if there is
    /// none yet.
    fn subscribe(&mut self) -> TaskWatch {
        match &self.record {
            Slot::Watched(channel) => channel.watch(),
            Slot::Alone(record) => {
                let channel = Versions::new(Arc::clone(record));
                let watch = channel.watch();
                self.record = Slot::Watched(channel);
                watch
            }
        }
    }

    /// Gives the channel up if nobody watches any more: a handler that
    /// went to sleep dropped its watch, and reads its task right after.
    fn unwatched(&mut self) -> &mut Self {
        if let Slot::Watched(channel) = &self.record
            && channel.watchers() == 0
        {
            self.record = Slot::Alone(self.current());
        }
        self
    }

    /// Applies `change`, waking the watchers if it changed anything; after
    /// a terminal change, drops the channel (the watchers still read the
    /// last version, then their watch ends).
    fn apply(&mut self, change: TaskChange, room: usize) -> Result<bool, AnswersTooLarge> {
        self.unwatched();
        let outcome = match &mut self.record {
            Slot::Alone(record) => change.apply(Arc::make_mut(record), room),
            Slot::Watched(channel) => {
                let mut outcome = Ok(false);
                channel.modify(|current| {
                    outcome = change.apply(Arc::make_mut(current), room);
                    matches!(outcome, Ok(true))
                });
                outcome
            }
        };
        if matches!(self.record, Slot::Watched(_)) && self.finished() {
            self.record = Slot::Alone(self.current());
        }
        outcome
    }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many bytes the records weigh together.
    pub fn bytes(&self) -> usize {
        lock(&self.tasks).bytes
    }
}

impl Tasks {
    /// The live entry `id`, removing it first if it expired.
    fn live(&mut self, id: &str) -> Option<&mut Entry> {
        let expired = self.entries.get(id)?.expired(Instant::now());
        if expired {
            self.remove(id);
            return None;
        }
        self.entries.get_mut(id)
    }

    fn insert(&mut self, record: TaskRecord) {
        let weight = record.weight();
        *self.running.entry(record.owner.clone()).or_default() += 1;
        self.bytes += weight;
        let id: Id = Arc::clone(&record.id);
        let expires = record.ttl.map(|ttl| Instant::now() + ttl);
        if let Some(at) = expires {
            self.expiries.insert((at, Arc::clone(&id)));
        }
        let entry = Entry {
            lease: None,
            expires,
            weight,
            record: Slot::Alone(Arc::new(record)),
        };
        self.entries.insert(id, entry);
    }

    /// Removes a task, ending its watches.
    fn remove(&mut self, id: &str) {
        let Some((id, entry)) = self.entries.remove_entry(id) else {
            return;
        };
        if let Some(at) = entry.expires {
            self.expiries.remove(&(at, id));
        }
        self.bytes -= entry.weight;
        if entry.finished() {
            self.finished_bytes -= entry.weight;
        } else {
            self.stop_running(&entry.current().owner);
        }
    }

    fn stop_running(&mut self, owner: &Option<String>) {
        if let Some(count) = self.running.get_mut(owner) {
            *count -= 1;
            if *count == 0 {
                self.running.remove(owner);
            }
        }
    }

    fn purge(&mut self) -> usize {
        let now = Instant::now();
        let mut purged = 0;
        while let Some((at, _)) = self.expiries.first()
            && *at <= now
        {
            let (_, id) = self.expiries.pop_first().expect("there is a first");
            self.remove(&id);
            purged += 1;
        }
        if self.finished.len() > 2 * self.entries.len() + 16 {
            let entries = &self.entries;
            self.finished.retain(|id| entries.contains_key(id));
        }
        purged
    }

    /// Evicts finished tasks, the first to finish first, until `fits`
    /// says there is room; whether there is.
    fn evict_until(&mut self, fits: impl Fn(&Tasks) -> bool) -> bool {
        while !fits(self) {
            let Some(id) = self.finished.pop_front() else {
                return false;
            };
            if self.entries.get(&id).is_some_and(Entry::finished) {
                tracing::debug!(task = &*id, "evicting a finished task to make room");
                self.remove(&id);
            }
        }
        true
    }

    fn create(&mut self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        self.purge();
        let running = self.running.get(&record.owner).copied().unwrap_or(0);
        if running >= limits.max_running_per_subject {
            return Err(StoreError::QuotaExceeded {
                limit: limits.max_running_per_subject,
            });
        }
        let weight = record.weight();
        if !self.evict_until(|tasks| tasks.entries.len() < limits.max_tasks) {
            return Err(StoreError::Full {
                limit: limits.max_tasks,
            });
        }
        if !self.evict_until(|tasks| tasks.bytes + weight <= limits.max_store_bytes) {
            return Err(StoreError::OutOfSpace {
                limit: limits.max_store_bytes,
            });
        }
        self.insert(record);
        Ok(())
    }

    fn apply(
        &mut self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        let Some(entry) = self.live(id) else {
            return Ok(None);
        };
        // Terminal records accept no change: no room to compute.
        if entry.finished() {
            return Ok(Some(entry.current()));
        }
        let weight = entry.weight;
        // What the store could free for this record, by evicting every
        // finished task.
        let free = limits
            .max_store_bytes
            .saturating_sub(self.bytes - self.finished_bytes - weight);
        let room = limits.max_record_bytes.min(free);
        let entry = self.entries.get_mut(id).expect("looked up above");
        entry.apply(change, room)?;
        let record = entry.current();
        let new_weight = record.weight();
        self.reweigh(id, weight, new_weight, record.status.is_terminal());
        if self.bytes > limits.max_store_bytes {
            let max = limits.max_store_bytes;
            self.evict_until(|tasks| tasks.bytes <= max);
        }
        Ok(Some(record))
    }

    /// Counts a changed record: its new weight, and that it finished.
    fn reweigh(&mut self, id: &str, before: usize, after: usize, finished: bool) {
        let entry = self.entries.get_mut(id).expect("the entry just changed");
        entry.weight = after;
        self.bytes = self.bytes - before + after;
        if finished {
            self.finished_bytes += after;
            let owner = entry.current().owner.clone();
            let (id, _) = self
                .entries
                .get_key_value(id)
                .expect("the entry just changed");
            self.finished.push_back(Arc::clone(id));
            self.stop_running(&owner);
        }
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        lock(&self.tasks).create(record, limits)
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        Ok(lock(&self.tasks)
            .live(id)
            .map(|entry| entry.unwatched().current()))
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        lock(&self.tasks).apply(id, change, limits)
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        let mut tasks = lock(&self.tasks);
        let Some(entry) = tasks.live(id) else {
            return Ok(None);
        };
        if entry.finished() {
            // Nothing follows a terminal version: no channel to keep.
            let last = entry.current();
            return Ok(Some(futures::stream::once(async move { last }).boxed()));
        }
        Ok(Some(entry.subscribe()))
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        Ok(lock(&self.tasks).purge())
    }

    async fn count(&self) -> Result<usize, StoreError> {
        let mut tasks = lock(&self.tasks);
        tasks.purge();
        Ok(tasks.entries.len())
    }

    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        let mut tasks = lock(&self.tasks);
        let Some(entry) = tasks.live(id) else {
            return Ok(false);
        };
        let granted =
            !entry.finished() && Lease::may_hold(entry.lease.as_deref(), &lease.holder, now);
        if granted {
            entry.lease = Some(Box::new(lease.clone()));
        }
        Ok(granted)
    }

    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut tasks = lock(&self.tasks);
        tasks.purge();
        Ok(tasks
            .entries
            .iter()
            .filter(|(_, entry)| entry.lease.as_ref().is_some_and(|l| l.lapsed(now)))
            .filter(|(_, entry)| !entry.finished())
            .map(|(id, _)| id.to_string())
            .take(limit)
            .collect())
    }

    fn lister(&self) -> Option<&dyn ListTasks> {
        Some(self)
    }
}

#[async_trait]
impl ListTasks for InMemoryTaskStore {
    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError> {
        let mut tasks = lock(&self.tasks);
        tasks.purge();
        let mut page: Vec<Arc<TaskRecord>> = tasks
            .entries
            .iter()
            .filter(|&(id, _)| after.is_none_or(|after| &**id > after))
            .map(|(_, entry)| entry.current())
            .filter(|record| record.owner.as_deref() == owner)
            .collect();
        page.sort_by(|a, b| a.id.cmp(&b.id));
        page.truncate(limit);
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::TaskStatus;
    use std::time::Duration;

    const LIMITS: TaskLimits = TaskLimits {
        max_tasks: 10,
        max_running_per_subject: 10,
        max_record_bytes: 1 << 20,
        max_store_bytes: 1 << 20,
    };

    async fn store_with(id: &str) -> InMemoryTaskStore {
        let store = InMemoryTaskStore::new();
        let record = TaskRecord::new(id.into(), None, None, None);
        store.create(record, &LIMITS).await.unwrap();
        store
    }

    #[tokio::test]
    async fn a_lease_is_held_renewed_refused_and_found_lapsed() {
        let store = store_with("t").await;
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(600);
        let minute = Duration::from_secs(60);
        let lease_a = Lease::new("a", now, minute);
        assert!(store.hold("t", &lease_a, now).await.unwrap());
        assert!(store.hold("t", &lease_a, now + minute / 2).await.unwrap());
        let lease_b = Lease::new("b", now, minute);
        assert!(!store.hold("t", &lease_b, now).await.unwrap());
        assert!(store.lapsed(now, 10).await.unwrap().is_empty());

        let later = now + 2 * minute;
        assert_eq!(store.lapsed(later, 10).await.unwrap(), ["t"]);
        assert!(
            store
                .hold("t", &Lease::new("b", later, minute), later)
                .await
                .unwrap()
        );
        assert!(store.lapsed(later, 10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_finished_task_takes_no_lease_and_never_lapses() {
        let store = store_with("t").await;
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(600);
        let lease = Lease::new("a", now, Duration::from_secs(1));
        assert!(store.hold("t", &lease, now).await.unwrap());
        store.apply("t", TaskChange::Cancel, &LIMITS).await.unwrap();

        let later = now + Duration::from_secs(5);
        assert!(store.lapsed(later, 10).await.unwrap().is_empty());
        assert!(!store.hold("t", &lease, later).await.unwrap());
        assert!(!store.hold("unknown", &lease, later).await.unwrap());
    }

    #[tokio::test(start_paused = true)]
    async fn a_purge_takes_exactly_the_expired_tasks_whatever_their_ttls() {
        let store = InMemoryTaskStore::new();
        for (id, seconds) in [("late", 30), ("never", 0), ("soon", 10), ("mid", 20)] {
            let ttl = (seconds > 0).then(|| Duration::from_secs(seconds));
            let record = TaskRecord::new(id.into(), None, ttl, None);
            store.create(record, &LIMITS).await.unwrap();
        }
        tokio::time::advance(Duration::from_secs(20)).await;

        assert_eq!(store.purge_expired().await.unwrap(), 2);
        assert!(store.get("soon").await.unwrap().is_none());
        assert!(store.get("mid").await.unwrap().is_none());
        assert!(store.get("late").await.unwrap().is_some());
        assert_eq!(store.count().await.unwrap(), 2);
        assert_eq!(
            lock(&store.tasks).expiries.len(),
            1,
            "only `late` is left to expire"
        );
    }

    fn watched(store: &InMemoryTaskStore, id: &str) -> bool {
        matches!(lock(&store.tasks).entries[id].record, Slot::Watched(_))
    }

    #[tokio::test]
    async fn a_watcher_sees_the_terminal_version_and_then_its_watch_ends() {
        let store = store_with("t").await;
        let mut watch = store.watch("t").await.unwrap().unwrap();
        assert_eq!(watch.next().await.unwrap().status, TaskStatus::Working);
        assert!(watched(&store, "t"));

        store.apply("t", TaskChange::Cancel, &LIMITS).await.unwrap();

        assert!(!watched(&store, "t"), "a finished task keeps no channel");
        assert_eq!(watch.next().await.unwrap().status, TaskStatus::Cancelled);
        assert!(watch.next().await.is_none());
    }

    #[tokio::test]
    async fn watching_a_finished_task_gives_its_record_once() {
        let store = store_with("t").await;
        store.apply("t", TaskChange::Cancel, &LIMITS).await.unwrap();

        let mut watch = store.watch("t").await.unwrap().unwrap();

        assert_eq!(watch.next().await.unwrap().status, TaskStatus::Cancelled);
        assert!(watch.next().await.is_none());
        assert!(!watched(&store, "t"));
    }

    #[tokio::test]
    async fn a_change_nobody_watches_gives_the_channel_up() {
        let store = store_with("t").await;
        drop(store.watch("t").await.unwrap());
        assert!(watched(&store, "t"));

        let message = TaskChange::StatusMessage(Some("busy".into()));
        let record = store.apply("t", message, &LIMITS).await.unwrap().unwrap();

        assert!(!watched(&store, "t"));
        assert_eq!(record.status_message.as_deref(), Some("busy"));
        let mut watch = store.watch("t").await.unwrap().unwrap();
        let current = watch.next().await.unwrap();
        assert_eq!(current.status_message.as_deref(), Some("busy"));
    }
}
