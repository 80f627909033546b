//! The default [`TaskStore`]: a map in this process's memory.
//!
//! Each task's record lives in a `tokio::sync::watch` channel, which holds
//! only the current version: watchers read the newest when they get to it,
//! and a change is made in place (`Arc::make_mut`) unless a reader still
//! holds the previous version, so changing a large record does not copy
//! it. One lock guards the map and the counters the limits need (bytes,
//! running tasks per subject, the order in which tasks finished), so every
//! limit is exact.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;

use super::store::{StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch};
use crate::util::lock;

/// Tasks in memory. They do not survive a restart, and only this process
/// sees them.
///
/// Expiry runs on tokio's clock, so tests with paused time control it.
#[derive(Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<Tasks>,
}

#[derive(Default)]
struct Tasks {
    entries: HashMap<String, Entry>,
    /// Finished tasks, the first to finish first: the eviction order.
    /// Holds ids already purged too; eviction skips them.
    finished: VecDeque<String>,
    /// Running tasks by owner.
    running: HashMap<Option<String>, usize>,
    /// The weight of every record, and of the finished ones.
    bytes: usize,
    finished_bytes: usize,
}

struct Entry {
    record: watch::Sender<Arc<TaskRecord>>,
    expires: Option<Instant>,
    /// The record's weight as last counted.
    weight: usize,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        self.expires.is_some_and(|at| at <= now)
    }

    fn current(&self) -> Arc<TaskRecord> {
        Arc::clone(&self.record.borrow())
    }

    fn finished(&self) -> bool {
        self.record.borrow().status.is_terminal()
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
    fn live(&mut self, id: &str) -> Option<&Entry> {
        let expired = self.entries.get(id)?.expired(Instant::now());
        if expired {
            self.remove(id);
            return None;
        }
        self.entries.get(id)
    }

    fn insert(&mut self, record: TaskRecord) {
        let weight = record.weight();
        *self.running.entry(record.owner.clone()).or_default() += 1;
        self.bytes += weight;
        let entry = Entry {
            expires: record.ttl.map(|ttl| Instant::now() + ttl),
            weight,
            record: watch::Sender::new(Arc::new(record)),
        };
        let id = entry.record.borrow().id.clone();
        self.entries.insert(id, entry);
    }

    /// Removes a task, ending its watches.
    fn remove(&mut self, id: &str) {
        let Some(entry) = self.entries.remove(id) else {
            return;
        };
        self.bytes -= entry.weight;
        if entry.finished() {
            self.finished_bytes -= entry.weight;
        } else {
            self.stop_running(&entry.record.borrow().owner);
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
        let expired: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| entry.expired(now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            self.remove(id);
        }
        if self.finished.len() > 2 * self.entries.len() + 16 {
            let entries = &self.entries;
            self.finished.retain(|id| entries.contains_key(id));
        }
        expired.len()
    }

    /// Evicts finished tasks, the first to finish first, until `fits`
    /// says there is room; whether there is.
    fn evict_until(&mut self, fits: impl Fn(&Tasks) -> bool) -> bool {
        while !fits(self) {
            let Some(id) = self.finished.pop_front() else {
                return false;
            };
            if self.entries.get(&id).is_some_and(Entry::finished) {
                tracing::debug!(task = id, "evicting a finished task to make room");
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
        let entry = self.entries.get(id).expect("looked up above");
        let mut outcome = Ok(false);
        entry.record.send_if_modified(|current| {
            let record = Arc::make_mut(current);
            outcome = change.apply(record, room);
            matches!(outcome, Ok(true))
        });
        outcome?;
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
            self.finished.push_back(id.to_owned());
            let owner = entry.record.borrow().owner.clone();
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
        Ok(lock(&self.tasks).live(id).map(Entry::current))
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
        let changes = entry.record.subscribe();
        Ok(Some(
            futures::stream::unfold((changes, true), next_version).boxed(),
        ))
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        Ok(lock(&self.tasks).purge())
    }

    async fn count(&self) -> Result<usize, StoreError> {
        let mut tasks = lock(&self.tasks);
        tasks.purge();
        Ok(tasks.entries.len())
    }

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
            .filter(|(id, _)| after.is_none_or(|after| id.as_str() > after))
            .map(|(_, entry)| entry.current())
            .filter(|record| record.owner.as_deref() == owner)
            .collect();
        page.sort_by(|a, b| a.id.cmp(&b.id));
        page.truncate(limit);
        Ok(page)
    }
}

/// The current version at first, then each newer one; ends when the task
/// is removed (its sender dropped).
async fn next_version(
    (mut changes, first): (watch::Receiver<Arc<TaskRecord>>, bool),
) -> Option<(Arc<TaskRecord>, (watch::Receiver<Arc<TaskRecord>>, bool))> {
    if !first {
        changes.changed().await.ok()?;
    }
    let current = Arc::clone(&changes.borrow_and_update());
    Some((current, (changes, false)))
}
