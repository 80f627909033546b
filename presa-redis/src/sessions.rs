//! [`RedisSessionStore`]: the legacy (2025-11-25) sessions of a server's
//! replicas, kept in the Redis their tasks are in.
//!
//! A replica gets one from its task store,
//! [`RedisTaskStore::session_store`], so that its tasks and its sessions
//! share one Redis, one prefix and one set of connections. The rules, in
//! order:
//!
//! 1. **One key per session.** A session's [`SessionRecord`] is kept as
//!    its own JSON in the string `{prefix}session:{id}`, which expires
//!    once the session has been idle for the time it was written or
//!    touched with. Expiry runs on Redis's clock, in whole milliseconds
//!    (at least one), so every replica agrees on it.
//! 2. **Each call is one round trip.** `create` is `SET … PX`; `touch` is
//!    `GETEX … PX`, which reads the record and starts its idle time again
//!    in one step; `remove` is `DEL`. `replace` is one script that reads
//!    the stored record's `version` and, only if it is still the one the
//!    caller read, writes the new record with its idle time: two replicas
//!    changing one session never lose a change. (The first script call on
//!    a Redis that has not seen the script loads it: two round trips more,
//!    once.)
//! 3. **Channels are Redis channels**, named `{prefix}session-channel:{name}`.
//!    `publish` is `PUBLISH`, and returns what Redis counts: the
//!    connections subscribed to the channel, one per replica that listens,
//!    however many listeners it has. `0` means no replica listens. In a
//!    Redis Cluster, `PUBLISH` reaches every node, but counts only the
//!    subscribers of the node it was sent to; both it and `SUBSCRIBE` go to
//!    the primary of the prefix's slot, so that node is the one every
//!    replica subscribes on, and the count is whole. While the slot moves
//!    to another node it may be short.
//! 4. **Listening shares the task store's subscription connection.**
//!    `listen` returns once Redis has confirmed the subscription, so a
//!    message published after that reaches the stream. The listeners of
//!    one channel in one replica share one subscription; the last one
//!    dropped unsubscribes.
//! 5. **A listener that stops reading holds at most [`LISTENER_BACKLOG`]
//!    messages.** Past that, each new message is dropped for it (the
//!    newest, not the oldest), and it still counts in `publish`: Redis
//!    counts the replica, which got the message.
//! 6. **A subscription survives a lost connection, its messages do not.**
//!    When the subscription connection drops and comes back (a restart, a
//!    failover), the channels are subscribed again, as the task store's
//!    are (the `watch` module). What was published meanwhile is lost, and
//!    a listener is not told. A `publish` while no replica is subscribed
//!    returns `0`.
//! 7. **Redis unreachable** is a [`SessionStoreError`] whose message names
//!    the server (its address, never its credentials) and says it could
//!    not be reached; the server answers `503` with `Retry-After`. No
//!    method panics. If a call times out after Redis ran it, the caller
//!    sees an error for a change that was made.
//!
//! [`LISTENER_BACKLOG`]: presa_runtime::server::http::LISTENER_BACKLOG
//! [`RedisTaskStore::session_store`]: crate::RedisTaskStore::session_store

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use futures::Stream;
use presa_runtime::server::http::{
    ChannelMessages, LISTENER_BACKLOG, LegacySessionStore, SessionRecord, SessionStoreError,
};
use redis::Script;
use tokio::sync::mpsc;

use crate::connection::Link;
use crate::error::Failures;
use crate::keys::Keys;
use crate::watch::{Inbox, Registration, Subscriber};

/// The longest idle time kept, in milliseconds (about 35 000 years):
/// Redis refuses an expiry past its clock's range.
const LONGEST_IDLE_MS: u64 = 1 << 50;

/// KEYS: the session. ARGV: the version read, the new record's JSON, the
/// idle time in ms. Returns 1 when it replaced the record, 0 when the
/// record is gone or its version moved. Lua numbers are exact up to 2^53,
/// past any version a session reaches.
const REPLACE: &str = r#"
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
if cjson.decode(stored).version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"#;

/// Legacy sessions in Redis, shared by every replica whose task store is
/// on the same Redis and prefix: give it to
/// [`LegacySessions::shared`](presa_runtime::server::http::LegacySessions::shared).
/// Cloning is cheap and shares the connections.
///
/// Get one with [`RedisTaskStore::session_store`]; the [module
/// docs](self) say the rules it keeps. Its `Debug` shows where its Redis
/// is, without credentials.
///
/// [`RedisTaskStore::session_store`]: crate::RedisTaskStore::session_store
#[derive(Clone)]
pub struct RedisSessionStore {
    connection: Link,
    keys: Keys,
    failures: Failures,
    subscriber: Arc<Subscriber>,
    replace: Arc<Script>,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("server", &self.server())
            .field("prefix", &self.keys.tagged())
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// Sessions over a task store's connections: `connection` for
    /// commands, `subscriber` for channels.
    pub(crate) fn new(
        connection: Link,
        keys: Keys,
        failures: Failures,
        subscriber: Arc<Subscriber>,
    ) -> Self {
        RedisSessionStore {
            connection,
            keys,
            failures,
            subscriber,
            replace: Arc::new(Script::new(REPLACE)),
        }
    }

    /// Where the store's Redis is: its address, without credentials.
    pub fn server(&self) -> &str {
        self.connection.address()
    }

    async fn query<T: redis::FromRedisValue>(
        &self,
        doing: &str,
        command: &redis::Cmd,
    ) -> Result<T, SessionStoreError> {
        command
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|e| self.failures.session(doing, e))
    }

    fn encode(&self, record: &SessionRecord) -> Result<String, SessionStoreError> {
        serde_json::to_string(record).map_err(|e| self.failures.unencodable_session(e))
    }
}

/// `idle` in whole milliseconds, as `PX` takes it (rule 1).
fn idle_ms(idle: Duration) -> u64 {
    u64::try_from(idle.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, LONGEST_IDLE_MS)
}

#[async_trait]
impl LegacySessionStore for RedisSessionStore {
    async fn create(
        &self,
        record: &SessionRecord,
        idle: Duration,
    ) -> Result<(), SessionStoreError> {
        let mut set = redis::cmd("SET");
        set.arg(self.keys.session(&record.id))
            .arg(self.encode(record)?)
            .arg("PX")
            .arg(idle_ms(idle));
        self.query("creating a session", &set).await
    }

    async fn touch(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        let mut getex = redis::cmd("GETEX");
        getex
            .arg(self.keys.session(id))
            .arg("PX")
            .arg(idle_ms(idle));
        let json: Option<String> = self.query("reading a session", &getex).await?;
        json.map(|json| serde_json::from_str(&json).map_err(|e| self.failures.corrupt_session(e)))
            .transpose()
    }

    async fn replace(
        &self,
        record: &SessionRecord,
        read: u64,
        idle: Duration,
    ) -> Result<bool, SessionStoreError> {
        let replaced: i64 = self
            .replace
            .key(self.keys.session(&record.id))
            .arg(read)
            .arg(self.encode(record)?)
            .arg(idle_ms(idle))
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|e| self.failures.session("changing a session", e))?;
        Ok(replaced == 1)
    }

    async fn remove(&self, id: &str) -> Result<bool, SessionStoreError> {
        let mut del = redis::cmd("DEL");
        del.arg(self.keys.session(id));
        let removed: i64 = self.query("removing a session", &del).await?;
        Ok(removed > 0)
    }

    async fn publish(&self, channel: &str, message: Vec<u8>) -> Result<usize, SessionStoreError> {
        let mut publish = redis::cmd("PUBLISH");
        publish.arg(self.keys.session_channel(channel)).arg(message);
        self.query("publishing to a session channel", &publish)
            .await
    }

    async fn listen(&self, channel: &str) -> Result<ChannelMessages, SessionStoreError> {
        let (sender, receiver) = mpsc::channel(LISTENER_BACKLOG);
        let registration = self
            .subscriber
            .join(self.keys.session_channel(channel), Inbox::Listener(sender))
            .await
            .map_err(|e| self.failures.session("listening on a session channel", e))?;
        Ok(Box::pin(Listener {
            receiver,
            _registration: registration,
        }))
    }
}

/// One listener of a session channel (rules 4 and 5). Dropping it leaves
/// the channel; the last listener of a channel to leave unsubscribes. It
/// never ends by itself: it keeps the subscription connection alive.
struct Listener {
    receiver: mpsc::Receiver<Vec<u8>>,
    _registration: Registration,
}

impl Stream for Listener {
    type Item = Vec<u8>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        self.receiver.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_time_is_whole_milliseconds_that_redis_takes() {
        assert_eq!(idle_ms(Duration::ZERO), 1);
        assert_eq!(idle_ms(Duration::from_micros(1500)), 1);
        assert_eq!(idle_ms(Duration::from_secs(60)), 60_000);
        assert_eq!(idle_ms(Duration::MAX), LONGEST_IDLE_MS);
    }
}
