//! [`RedisTaskStore`]: the [`TaskStore`] methods, each one script or one
//! read, and `apply` as read, compute, compare-and-set.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
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
    Conflict,
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
        Ok(Some(Snapshot {
            record: self.records.decode(id, &json)?,
            bytes,
            finished_bytes,
            weight,
        }))
    }

    /// Writes `record` if the stored one is still version `read_version`,
    /// and, when it grew, still has the `room` it was computed with.
    async fn commit(
        &self,
        record: &TaskRecord,
        read: &Snapshot,
        room: usize,
        limits: &TaskLimits,
    ) -> Result<Commit, StoreError> {
        let weight = record.weight();
        let keys = &self.records.keys;
        let own = [keys.task(record.id()), keys.running(record.owner())];
        let args = [
            record.id().to_owned(),
            read.record.version().to_string(),
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
            if weight > read.weight {
                room.to_string()
            } else {
                String::new()
            },
        ];
        let answer: String = self
            .run("changing a task", &self.scripts.commit, &own, &args)
            .await?;
        match answer.as_str() {
            "ok" => Ok(Commit::Done),
            "gone" => Ok(Commit::Gone),
            "conflict" => Ok(Commit::Conflict),
            other => Err(self.failures().unexpected("changing a task", other)),
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
            "ok" => self.replicated(record.id(), &task_key).await,
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
        Ok(self.records.get(id).await?.map(Arc::new))
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        let limits = exact(limits);
        for _ in 0..self.max_conflicts {
            let Some(read) = self.read(id).await? else {
                return Ok(None);
            };
            if read.record.status().is_terminal() {
                return Ok(Some(Arc::new(read.record)));
            }
            let room = room(&read, &limits);
            let mut record = read.record.clone();
            if !change.clone().apply(&mut record, room)? {
                return Ok(Some(Arc::new(record)));
            }
            match self.commit(&record, &read, room, &limits).await? {
                Commit::Done => return Ok(Some(Arc::new(record))),
                Commit::Gone => return Ok(None),
                Commit::Conflict => continue,
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
        let Some(current) = self.records.get(id).await? else {
            return Ok(None);
        };
        let expiry = match current.ttl() {
            Some(_) => self.records.expiry(id).await?,
            None => Expiry::Never,
        };
        let records = self.records.clone();
        Ok(Some(follow(current, expiry, registration, events, records)))
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
