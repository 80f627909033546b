//! A presa [`TaskStore`] on Redis: tasks shared by every server that uses
//! one Redis; and, from it, a [`RedisSessionStore`] for the legacy
//! (2025-11-25) sessions of the same servers.
//!
//! ```no_run
//! # async fn run() -> Result<(), presa_runtime::server::tasks::store::StoreError> {
//! use presa_redis::RedisTaskStore;
//!
//! let store = RedisTaskStore::builder("redis://127.0.0.1:6379/")
//!     .prefix("myapp:tasks:")
//!     .build()?;
//! # let _ = store;
//! # Ok(())
//! # }
//! ```
//!
//! # Why Redis
//!
//! The engine keeps everything about a task in its [`TaskRecord`] and
//! follows it through [`TaskStore::watch`], so a store that every server
//! reads, and that publishes its changes to all of them, lets a task
//! started on one server be answered, cancelled and listened to on
//! another. Redis has both halves: a record per key, and pub/sub.
//!
//! # The rules, in order
//!
//! 1. **Everything a task holds is stored**, as one JSON document (owner,
//!    status, times, TTL, poll interval, status message, input requests,
//!    answers, result or error, version, asked keys) in the hash
//!    `{prefix}task:{id}` (the prefix in braces, a Redis Cluster hash
//!    tag: all of one store's keys are in one slot), which expires with the task's TTL; a task
//!    without one does not expire. The JSON form is the record's own
//!    (`TaskRecord` is `Serialize`), which reads back equal.
//! 2. **A task is created only within its limits.** One Lua script purges
//!    expired tasks, checks the owner's running tasks, evicts finished
//!    tasks (the one that finished first, first) until the count and the
//!    bytes fit, and inserts the task, so that every store on the same
//!    Redis and prefix counts against the same [`TaskLimits`]. `create`
//!    returns `Ok` only when the script has stored the task.
//! 3. **Every change is [`TaskChange::apply`]**, the same as in memory,
//!    applied atomically by optimistic concurrency: read the record with
//!    the store's byte counts, apply the change in Rust with the room they
//!    leave, and write it with a script that replaces the record only if
//!    its version is still the one read (and, if the record grew, only if
//!    its room did not shrink meanwhile). On a conflict the change is
//!    computed again from the new record, so two servers racing never
//!    lose an update or apply one twice. This works over one multiplexed
//!    connection, unlike `WATCH`/`MULTI`.
//! 4. **Every write is published** on `{prefix}changes:{id}`, and a
//!    removal as an empty message; watchers subscribe before they read,
//!    drop stale copies, and end when their task is removed or expires.
//!    The details are in the `watch` module.
//! 5. **Expired tasks are invisible** at once (Redis expires the key) and
//!    are purged from the indexes, and their bytes and quota freed, by
//!    `purge_expired`, `create`, `count` and `list`. Expiry runs on
//!    Redis's clock, so all servers agree on it.
//! 6. **Redis unreachable** is [`StoreError::Backend`], whose message
//!    names the server and says it could not be reached; no method panics.
//!    The server answers the request with `-31002`, "task store
//!    unavailable" (a `503` with `Retry-After` over HTTP), and logs the
//!    message. The connections reconnect by themselves, and watchers read
//!    their record afresh once the connection is back, so nothing is lost.
//! 7. **Leases** ([`Lease`]) live beside the records, in a sorted set by
//!    when they lapse: a renewal is no change a client sees. Taking one
//!    follows [`Lease::may_hold`] in a script, so two servers claiming a
//!    lapsed task do not both win; a task's lease is forgotten when it
//!    ends or is removed. Lease times are the servers' wall clocks.
//!
//! # Legacy sessions
//!
//! Hosts that speak 2025-11-25 open a session and send every request of
//! it with its `Mcp-Session-Id`. Behind a load balancer without affinity,
//! those requests reach any replica, so the replicas need the session in
//! a store they share: [`RedisTaskStore::session_store`] gives the one on
//! the task store's Redis, prefix and connections. A replica configures
//! both stores so:
//!
//! ```no_run
//! # #[cfg(feature = "legacy-sessions")]
//! # fn replica() -> Result<presa_runtime::server::http::StreamableHttp, Box<dyn std::error::Error>> {
//! use presa_redis::RedisTaskStore;
//! use presa_runtime::server::http::{LegacySessions, StreamableHttp};
//! use presa_runtime::server::{Server, TaskSettings};
//!
//! let tasks = RedisTaskStore::builder("redis://127.0.0.1:6379/")
//!     .prefix("myapp:")
//!     .build()?;
//! let sessions = tasks.session_store();
//! let server = Server::builder("jobs", "1")
//!     .tasks(TaskSettings::default())
//!     .task_store(tasks)
//!     .build();
//! Ok(StreamableHttp::new(server).legacy_sessions(LegacySessions::new().shared(sessions)))
//! # }
//! ```
//!
//! The [`sessions`] module gives the session store's rules. It needs the
//! default feature `legacy-sessions`, which builds presa's HTTP server.
//!
//! # Where it differs from the in-memory store
//!
//! - Expiry is counted in whole milliseconds on Redis's clock, not on
//!   tokio's: paused tokio time does not expire Redis tasks.
//! - A watch also ends when its task's key expires, even if nothing
//!   purges it; in memory a watch ends at the purge (or the next read).
//! - If a call times out after Redis ran it, the caller sees an error for a
//!   change that was made (a task created is then kept until its TTL).
//! - In a Redis Cluster, one store's keys share one hash tag, so one store
//!   lives on one shard; several stores (prefixes) spread over several.
//!
//! # The shapes of Redis it takes
//!
//! The URL says where Redis is and the node says what it is (the
//! `connection` module): `redis://` or `rediss://` (TLS on rustls,
//! verified against Mozilla's roots unless
//! [`tls_ca`](RedisTaskStoreBuilder::tls_ca) names a private CA; mutual
//! TLS with [`tls_client_certificate`](RedisTaskStoreBuilder::tls_client_certificate);
//! `#insecure` skips verification, for test certificates), with
//! `user:password@` for an ACL user; a Redis Cluster node's URL makes a
//! cluster store, found out by asking the node;
//! `redis+sentinel://HOST:PORT,…/MASTER` follows the master that Sentinel
//! watches, across failovers. Credentials never appear
//! in the store's errors, logs or `Debug`. RESP2 (the default) and RESP3
//! (`?protocol=resp3`) both work; pub/sub always uses RESP3.
//!
//! [`TaskStore`]: presa_runtime::server::tasks::store::TaskStore
//! [`TaskStore::watch`]: presa_runtime::server::tasks::store::TaskStore::watch
//! [`TaskRecord`]: presa_runtime::server::tasks::store::TaskRecord
//! [`TaskChange::apply`]: presa_runtime::server::tasks::store::TaskChange::apply
//! [`TaskLimits`]: presa_runtime::server::tasks::store::TaskLimits
//! [`StoreError::Backend`]: presa_runtime::server::tasks::store::StoreError::Backend
//! [`Lease`]: presa_runtime::server::tasks::store::Lease
//! [`Lease::may_hold`]: presa_runtime::server::tasks::store::Lease::may_hold
//! [`RedisSessionStore`]: crate::sessions::RedisSessionStore
//! [`RedisTaskStore::session_store`]: crate::RedisTaskStore::session_store
//! [`sessions`]: crate::sessions

#![cfg_attr(docsrs, feature(doc_cfg))]

mod builder;
mod connection;
mod error;
mod follow;
mod keys;
mod mailbox;
mod record;
mod records;
mod scripts;
#[cfg(feature = "legacy-sessions")]
#[cfg_attr(docsrs, doc(cfg(feature = "legacy-sessions")))]
pub mod sessions;
mod store;
mod watch;

pub use builder::RedisTaskStoreBuilder;
#[cfg(feature = "legacy-sessions")]
pub use sessions::RedisSessionStore;
pub use store::RedisTaskStore;

/// How many round trips to Redis every store and session store of this
/// process has made so far: each command, pipeline, script call and
/// subscription sent and waited for counts once (a script counts once
/// however many commands it runs). For benchmarks and tests, which take
/// the difference across what they measure; the counter is process-wide
/// and never reset. Needs the feature `round-trips`.
#[cfg(feature = "round-trips")]
#[cfg_attr(docsrs, doc(cfg(feature = "round-trips")))]
pub fn round_trips() -> u64 {
    connection::ROUND_TRIPS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The README's example, compiled as a doctest so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
