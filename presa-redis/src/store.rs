//! [`RedisTaskStore`]: the [`TaskStore`] methods, each one script or one
//! read, and `apply` as read, compute, compare-and-set.
//!
//! # Round trips
//!
//! Each round trip to Redis is the largest cost of a task operation, so
//! each method takes as few as it can:
//!
//! - `create`, `get`, `purge_expired`, `count`, `hold`, `lapsed` and
//!   `list` are one script or one command each.
//! - `apply` is one round trip when it can start from a record the store
//!   already holds, and two (a read, then the compare-and-set) when it
//!   cannot. The store keeps the last record it wrote or read of each
//!   running task ([`Recent`]). A change computed from it is sent straight
//!   to the compare-and-set, which checks the version as always: if
//!   another server changed the task meanwhile, the script answers with
//!   the record as it is now, and the change is computed again from that,
//!   without another read. So a stale copy costs a round trip, never an
//!   update. A change computed from a copy uses the largest room a record
//!   may have, and the script accepts it only if the task still has that
//!   room, whether the record grew or not, so that it is the change an
//!   exact read would have computed; otherwise the change is computed again from the fresh record
//!   and its exact room. A change that does nothing to the copy, or that
//!   the copy refuses, is read afresh before the store says so, since only
//!   the record as it is now may decide that.
//! - The copy is kept fresh by every version the store reads, writes or
//!   sees published to a watcher of its own, so that a handler that wakes
//!   on a published answer changes its task from that version.
//! - A version the store writes reaches its own watchers at once (rule 6
//!   of [`watch`](crate::watch)), not after the published message comes
//!   back from Redis: an answer given here resumes a handler waiting here
//!   without that wait, which is on the client's way to its result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use futures::StreamExt;
use presa_runtime::server::tasks::store::{
    Lease, ListTasks, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch,
};
use redis::Script;
use tokio::sync::mpsc::unbounded_channel;

use crate::connection::{Link, Settings, Target};
use crate::error::Failures;
use crate::follow::follow;
use crate::keys::{Keys, owner_key};
use crate::mailbox::mailbox;
use crate::record;
use crate::records::{Expiry, Records};
use crate::scripts::Scripts;
#[cfg(feature = "legacy-sessions")]
use crate::sessions::RedisSessionStore;
use crate::watch::{Inbox, Subscriber};

/// How many replicas must have a new task before `create` returns `Ok`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replicas {
    pub(crate) count: u32,
    pub(crate) timeout: Duration,
}

/// The largest limit handed to the scripts: Lua counts in doubles, which
/// are exact up to 2^53. No store comes near it.
const EXACT_LIMIT: usize = 1 << 53;

/// The most records, and the most bytes of records ([`TaskRecord::weight`]),
/// that [`Recent`] keeps. Past either it forgets them all: a copy only
/// saves a round trip, and the next write of each task keeps it again.
const RECENT_RECORDS: usize = 4_096;
/// See [`RECENT_RECORDS`].
const RECENT_BYTES: usize = 16 << 20;

/// The last record this store wrote or read of each running task, shared
/// by its clones: where `apply` starts from, to save a read. A copy may be
/// stale; the compare-and-set finds out (see the module docs).
#[derive(Default)]
struct Recent {
    kept: Mutex<Kept>,
}

/// The copies, and what they weigh together.
#[derive(Default)]
struct Kept {
    records: HashMap<String, Arc<TaskRecord>>,
    bytes: usize,
}

impl Kept {
    fn remove(&mut self, id: &str) {
        if let Some(old) = self.records.remove(id) {
            self.bytes = self.bytes.saturating_sub(old.weight());
        }
    }
}

impl Recent {
    /// The copy of task `id`, if one is kept.
    fn get(&self, id: &str) -> Option<Arc<TaskRecord>> {
        self.lock().records.get(id).cloned()
    }

    /// Keeps `record` as the latest of its task, unless a copy as new is
    /// kept already; forgets the task once it finished, as no change
    /// applies to it any more.
    fn keep(&self, record: &Arc<TaskRecord>) {
        let mut kept = self.lock();
        if record.status().is_terminal() {
            kept.remove(record.id());
            return;
        }
        if let Some(copy) = kept.records.get(record.id())
            && copy.version() >= record.version()
        {
            return;
        }
        kept.remove(record.id());
        let weight = record.weight();
        if kept.records.len() >= RECENT_RECORDS || kept.bytes + weight > RECENT_BYTES {
            *kept = Kept::default();
        }
        if weight > RECENT_BYTES {
            return;
        }
        kept.bytes += weight;
        kept.records
            .insert(record.id().to_owned(), Arc::clone(record));
    }

    /// Forgets task `id`.
    fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while the lock is held leaves valid copies.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Tasks in Redis, shared by every store (in this process or another) with
/// the same Redis and prefix. Cloning is cheap and shares the connections.
///
/// Built with [`RedisTaskStore::builder`]; see the [crate docs](crate) for
/// the rules it keeps. Its `Debug` shows where its Redis is, without
/// credentials.
#[derive(Clone)]
pub struct RedisTaskStore {
    records: Records,
    scripts: Arc<Scripts>,
    subscriber: Arc<Subscriber>,
    recent: Arc<Recent>,
    max_conflicts: u32,
    replicas: Replicas,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("server", &self.server())
            .field("prefix", &self.records.keys.tagged())
            .finish_non_exhaustive()
    }
}

/// A record as `apply` read it, with what its room depends on.
struct Snapshot {
    record: TaskRecord,
    bytes: usize,
    finished_bytes: usize,
    weight: usize,
}

/// How a compare-and-set ended.
enum Commit {
    Done,
    Gone,
    /// The record changed meanwhile, or its room shrank: here it is now.
    Conflict(Box<Snapshot>),
}

/// What `apply` computes a change from.
enum Start {
    /// The store's own copy, with the largest room a record may have.
    Copy(Arc<TaskRecord>),
    /// The record as Redis holds it, with its room.
    Read(Box<Snapshot>),
}

impl RedisTaskStore {
    pub(crate) fn open(
        target: Target,
        settings: Settings,
        keys: Keys,
        failures: Failures,
        max_conflicts: u32,
        replicas: Replicas,
    ) -> Self {
        let (push_sender, push_receiver) = unbounded_channel();
        let pushes = Settings {
            pushes: Some(push_sender),
            ..settings.clone()
        };
        let subscriptions = Link::new(target.clone(), pushes);
        RedisTaskStore {
            records: Records {
                connection: Link::new(target, settings),
                keys,
                failures,
            },
            scripts: Arc::new(Scripts::new()),
            subscriber: Subscriber::start(subscriptions, push_receiver),
            recent: Arc::default(),
            max_conflicts,
            replicas,
        }
    }

    /// Where the store's Redis is: its address, without credentials.
    pub fn server(&self) -> &str {
        self.records.connection.address()
    }

    /// The legacy sessions of the same replicas, in the same Redis under
    /// the same prefix, over this store's connections: give it to
    /// [`LegacySessions::shared`](presa_runtime::server::http::LegacySessions::shared),
    /// so that any replica serves any request of a 2025-11-25 session.
    /// Cheap: it opens no connection of its own.
    #[cfg(feature = "legacy-sessions")]
    #[cfg_attr(docsrs, doc(cfg(feature = "legacy-sessions")))]
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore::new(
            self.records.connection.clone(),
            self.records.keys.clone(),
            self.records.failures.clone(),
            Arc::clone(&self.subscriber),
        )
    }

    /// Connects now, rather than on first use, and checks that Redis
    /// answers: a wrong address, password or certificate is then an error
    /// at startup, naming the server.
    pub async fn connect(&self) -> Result<(), StoreError> {
        let failures = self.failures();
        let link = &self.records.connection;
        link.connect()
            .await
            .map_err(|e| failures.redis("connecting", e))?;
        redis::cmd("PING")
            .query_async::<()>(&mut link.clone())
            .await
            .map_err(|e| failures.redis("connecting", e))
    }

    fn failures(&self) -> &Failures {
        &self.records.failures
    }

    /// Runs a script with the fixed keys and then `own` as its keys, and
    /// the tagged prefix as its first argument.
    async fn run<T: redis::FromRedisValue>(
        &self,
        doing: &str,
        script: &Script,
        own: &[String],
        args: &[String],
    ) -> Result<T, StoreError> {
        let keys = &self.records.keys;
        let mut invocation = script.prepare_invoke();
        for key in keys.fixed().chain(own.iter().cloned()) {
            invocation.key(key);
        }
        invocation.arg(keys.tagged());
        for arg in args {
            invocation.arg(arg);
        }
        invocation
            .invoke_async(&mut self.records.connection.clone())
            .await
            .map_err(|e| self.failures().redis(doing, e))
    }

    async fn read(&self, id: &str) -> Result<Option<Snapshot>, StoreError> {
        let read: Option<(String, usize, usize, usize)> = self
            .run(
                "reading a task",
                &self.scripts.read,
                &[self.records.keys.task(id)],
                &[id.to_owned()],
            )
            .await?;
        let Some((json, bytes, finished_bytes, weight)) = read else {
            return Ok(None);
        };
        self.snapshot(id, &json, bytes, finished_bytes, weight)
            .map(Some)
    }

    /// A snapshot from what the `read` and `commit` scripts answer.
    fn snapshot(
        &self,
        id: &str,
        json: &str,
        bytes: usize,
        finished_bytes: usize,
        weight: usize,
    ) -> Result<Snapshot, StoreError> {
        Ok(Snapshot {
            record: self.records.decode(id, json)?,
            bytes,
            finished_bytes,
            weight,
        })
    }

    /// Writes `record` if the stored one is still `read`'s version, and,
    /// when it grew or was computed from a copy (`from_copy`), still has
    /// the `room` it was computed with.
    async fn commit(
        &self,
        record: &TaskRecord,
        read: &TaskRecord,
        room: usize,
        from_copy: bool,
        limits: &TaskLimits,
    ) -> Result<Commit, StoreError> {
        let weight = record.weight();
        let check_room = from_copy || weight > read.weight();
        let keys = &self.records.keys;
        let own = [keys.task(record.id()), keys.running(record.owner())];
        let args = [
            record.id().to_owned(),
            read.version().to_string(),
            self.encode(record)?,
            record.version().to_string(),
            weight.to_string(),
            if record.status().is_terminal() {
                "1"
            } else {
                "0"
            }
            .to_owned(),
            limits.max_store_bytes.to_string(),
            limits.max_record_bytes.to_string(),
            if check_room {
                room.to_string()
            } else {
                String::new()
            },
        ];
        let answer: (String, Option<(String, usize, usize, usize)>) = self
            .run("changing a task", &self.scripts.commit, &own, &args)
            .await?;
        match answer {
            (done, None) if done == "ok" => Ok(Commit::Done),
            (gone, None) if gone == "gone" => Ok(Commit::Gone),
            (conflict, Some((json, bytes, finished_bytes, weight))) if conflict == "conflict" => {
                let now = self.snapshot(record.id(), &json, bytes, finished_bytes, weight)?;
                Ok(Commit::Conflict(Box::new(now)))
            }
            (other, _) => Err(self.failures().unexpected("changing a task", &other)),
        }
    }

    /// Waits for the replicas the store was told to wait for, if any, to
    /// have task `id` (kept at `key`).
    async fn replicated(&self, id: &str, key: &str) -> Result<(), StoreError> {
        let Replicas { count, timeout } = self.replicas;
        if count == 0 {
            return Ok(());
        }
        let confirmed = self
            .records
            .connection
            .wait_for_replicas(key, count, timeout)
            .await
            .map_err(|e| self.failures().redis("waiting for replicas", e))?;
        if confirmed >= count {
            return Ok(());
        }
        Err(StoreError::Backend(format!(
            "task {id} was written to Redis at {}, but {confirmed} of the {count} replicas \
             waited for had it after {timeout:?}: it could be lost if that server fails",
            self.server()
        )))
    }

    fn encode(&self, record: &TaskRecord) -> Result<String, StoreError> {
        record::encode(record).map_err(|e| self.failures().corrupt(record.id(), e))
    }
}

/// The limits as the scripts count them.
fn exact(limits: &TaskLimits) -> TaskLimits {
    limits
        .max_tasks(limits.max_tasks.min(EXACT_LIMIT))
        .max_running_per_subject(limits.max_running_per_subject.min(EXACT_LIMIT))
        .max_record_bytes(limits.max_record_bytes.min(EXACT_LIMIT))
        .max_store_bytes(limits.max_store_bytes.min(EXACT_LIMIT))
}

/// The room a record has: what it may weigh, and what the store could free
/// for it by evicting every finished task, as the in-memory store counts.
fn room(read: &Snapshot, limits: &TaskLimits) -> usize {
    let others_running = read
        .bytes
        .saturating_sub(read.finished_bytes)
        .saturating_sub(read.weight);
    limits
        .max_record_bytes
        .min(limits.max_store_bytes.saturating_sub(others_running))
}

#[async_trait]
impl TaskStore for RedisTaskStore {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        let exact = exact(limits);
        let keys = &self.records.keys;
        let task_key = keys.task(record.id());
        let own = [
            task_key.clone(),
            keys.running(record.owner()),
            keys.owned(record.owner()),
        ];
        let args = [
            record.id().to_owned(),
            owner_key(record.owner()),
            self.encode(&record)?,
            record.version().to_string(),
            record.weight().to_string(),
            record
                .ttl()
                .map_or_else(String::new, |ttl| ttl.as_millis().to_string()),
            exact.max_tasks.to_string(),
            exact.max_running_per_subject.to_string(),
            exact.max_store_bytes.to_string(),
        ];
        let answer: String = self
            .run("creating a task", &self.scripts.create, &own, &args)
            .await?;
        match answer.as_str() {
            "ok" => {
                self.recent.keep(&Arc::new(record.clone()));
                self.replicated(record.id(), &task_key).await
            }
            "quota" => Err(StoreError::QuotaExceeded {
                limit: limits.max_running_per_subject,
            }),
            "full" => Err(StoreError::Full {
                limit: limits.max_tasks,
            }),
            "space" => Err(StoreError::OutOfSpace {
                limit: limits.max_store_bytes,
            }),
            other => Err(self.failures().unexpected("creating a task", other)),
        }
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        let record = self.records.get(id).await?.map(Arc::new);
        if let Some(record) = &record {
            self.recent.keep(record);
        }
        Ok(record)
    }

    /// The copy this store keeps of a running task, if any; else a read.
    async fn peek(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        match self.recent.get(id) {
            Some(copy) => Ok(Some(copy)),
            None => self.get(id).await,
        }
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        let limits = exact(limits);
        let mut start = match self.recent.get(id) {
            Some(copy) => Start::Copy(copy),
            None => match self.read(id).await? {
                Some(read) => Start::Read(Box::new(read)),
                None => return Ok(None),
            },
        };
        // Conflicts of changes computed from a read: a copy's conflict
        // costs no attempt, as a read would have found the same record.
        let mut conflicts = 0;
        while conflicts < self.max_conflicts {
            let (read, room) = match &start {
                Start::Copy(copy) => (copy.as_ref(), limits.max_record_bytes),
                Start::Read(read) => (&read.record, room(read, &limits)),
            };
            let exact_room = matches!(start, Start::Read(_));
            if exact_room && read.status().is_terminal() {
                self.recent.forget(id);
                return Ok(Some(Arc::new(read.clone())));
            }
            let mut record = read.clone();
            let changed = match change.clone().apply(&mut record, room) {
                Ok(changed) => changed,
                // Only the record as it is now may refuse a change.
                Err(_) if !exact_room => false,
                Err(refused) => return Err(refused.into()),
            };
            if !changed {
                if exact_room {
                    return Ok(Some(Arc::new(record)));
                }
                // Only the record as it is now may say that a change does
                // nothing: read it.
                start = match self.read(id).await? {
                    Some(read) => Start::Read(Box::new(read)),
                    None => {
                        self.recent.forget(id);
                        return Ok(None);
                    }
                };
                continue;
            }
            match self
                .commit(&record, read, room, !exact_room, &limits)
                .await?
            {
                Commit::Done => {
                    let record = Arc::new(record);
                    self.recent.keep(&record);
                    // Rule 6 of `watch`: this store's watchers need not
                    // wait for the message.
                    let channel = self.records.keys.changes(id);
                    self.subscriber.tell(&channel, &record);
                    return Ok(Some(record));
                }
                Commit::Gone => {
                    self.recent.forget(id);
                    return Ok(None);
                }
                Commit::Conflict(now) => {
                    if exact_room {
                        conflicts += 1;
                    }
                    start = Start::Read(now);
                }
            }
        }
        Err(StoreError::Backend(format!(
            "task {id} changed {} times while one change to it was computed",
            self.max_conflicts
        )))
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        let channel = self.records.keys.changes(id);
        let (letterbox, events) = mailbox();
        let registration = self
            .subscriber
            .join(channel, Inbox::Watcher(letterbox))
            .await
            .map_err(|e| self.failures().redis("subscribing to a task", e))?;
        // The record and its expiry in one round trip.
        let Some((current, expiry)) = self.records.get_with_expiry(id).await? else {
            return Ok(None);
        };
        let expiry = match current.ttl() {
            Some(_) => expiry,
            None => Expiry::Never,
        };
        let records = self.records.clone();
        // Each version the watcher sees is the store's copy too: a
        // handler woken by an answer that was published before its writer
        // heard back then changes the task from the version it saw, not
        // from an older copy that would cost a conflict.
        let recent = Arc::clone(&self.recent);
        let watch = follow(current, expiry, registration, events, records)
            .inspect(move |record| recent.keep(record))
            .boxed();
        Ok(Some(watch))
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.run("purging expired tasks", &self.scripts.purge, &[], &[])
            .await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        self.run("counting tasks", &self.scripts.count, &[], &[])
            .await
    }

    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        let own = [self.records.keys.task(id)];
        let args = [
            id.to_owned(),
            lease.holder.clone(),
            epoch_ms(lease.until).to_string(),
            epoch_ms(now).to_string(),
        ];
        let held: i64 = self
            .run("holding a lease", &self.scripts.hold, &own, &args)
            .await?;
        Ok(held == 1)
    }

    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        let args = [epoch_ms(now).to_string(), limit.min(1 << 20).to_string()];
        self.run("finding lapsed leases", &self.scripts.lapsed, &[], &args)
            .await
    }

    fn lister(&self) -> Option<&dyn ListTasks> {
        Some(self)
    }
}

#[async_trait]
impl ListTasks for RedisTaskStore {
    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError> {
        let start = after.map_or_else(|| "-".to_owned(), |after| format!("({after}"));
        let page_size = limit.min(i64::MAX as usize).to_string();
        let own = [self.records.keys.owned(owner)];
        let args = [start, page_size];
        let page: Vec<String> = self
            .run("listing tasks", &self.scripts.list, &own, &args)
            .await?;
        page.iter()
            .map(|json| {
                let record = self.records.decode("(listed)", json)?;
                Ok(Arc::new(record))
            })
            .collect()
    }
}

/// Milliseconds since the Unix epoch (0 before it), as lease times are
/// kept.
fn epoch_ms(time: SystemTime) -> u64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}
