//! [`LegacySessionStore`]: where the replicas of one server keep their
//! legacy sessions, and how they tell each other about them.
//!
//! A store has two halves, as Redis does: records, one per session, that
//! expire when the session is idle; and channels, on which one replica
//! publishes and every replica listening hears. What travels on the
//! channels is presa's own business: a store moves bytes and never reads
//! them.

use std::pin::Pin;
use std::time::Duration;

use async_trait::async_trait;
use futures::Stream;

use super::record::SessionRecord;

/// What a listener hears on a channel: each message, in the order
/// published. It ends when the store closes the subscription.
pub type ChannelMessages = Pin<Box<dyn Stream<Item = Vec<u8>> + Send>>;

/// A store that several replicas of one server share for their legacy
/// (2025-11-25) sessions, so that any replica serves any request of a
/// session. Give one to
/// [`LegacySessions::shared`](crate::server::http::LegacySessions::shared).
///
/// [`MemorySessionStore`](super::MemorySessionStore) shares sessions
/// between servers in one process; `presa-redis` has one on Redis.
///
/// Every method fails only when the store cannot be reached, with a
/// [`SessionStoreError`] that says why; the server then answers `503`
/// with `Retry-After`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a legacy session store",
    note = "use `MemorySessionStore`, `presa_redis::RedisSessionStore`, or implement `LegacySessionStore`"
)]
#[async_trait]
pub trait LegacySessionStore: Send + Sync + 'static {
    /// Keeps `record` under its id until it is idle for `idle`. Its id is
    /// fresh and unguessable, so no record is replaced.
    async fn create(&self, record: &SessionRecord, idle: Duration)
    -> Result<(), SessionStoreError>;

    /// The record of session `id`, its idle time started again; `None`
    /// when it ended or expired.
    async fn touch(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError>;

    /// Replaces the record under `record.id` with `record`, only if the
    /// stored one is still at version `read` (so two replicas changing one
    /// session never lose a change), and starts its idle time again.
    /// Whether it did: `false` when the version moved or the session is
    /// gone.
    async fn replace(
        &self,
        record: &SessionRecord,
        read: u64,
        idle: Duration,
    ) -> Result<bool, SessionStoreError>;

    /// Forgets session `id`; whether there was one.
    async fn remove(&self, id: &str) -> Result<bool, SessionStoreError>;

    /// Sends `message` to every listener of `channel`, and returns how
    /// many there were when it arrived, as the store counts them:
    /// [`MemorySessionStore`](super::MemorySessionStore) counts listeners,
    /// Redis counts replicas (one subscription each, however many listen
    /// in it). `0` tells the sender that nobody listens: no replica holds
    /// what the channel names.
    async fn publish(&self, channel: &str, message: Vec<u8>) -> Result<usize, SessionStoreError>;

    /// Listens to `channel`. Once this returns, every message published
    /// on it reaches the stream, until the stream is dropped. The
    /// exceptions are a listener that falls
    /// [`LISTENER_BACKLOG`](super::LISTENER_BACKLOG) messages behind, and a
    /// store that lost its connection for a while: each store's docs say
    /// what it drops then.
    async fn listen(&self, channel: &str) -> Result<ChannelMessages, SessionStoreError>;
}

/// A shared session store could not be reached.
#[derive(Debug, thiserror::Error)]
#[error("the legacy session store is unavailable: {message}")]
pub struct SessionStoreError {
    message: String,
}

impl SessionStoreError {
    /// An error that says, in `message`, what failed. Never put a
    /// credential in it: it is logged.
    pub fn new(message: impl Into<String>) -> Self {
        SessionStoreError {
            message: message.into(),
        }
    }
}
