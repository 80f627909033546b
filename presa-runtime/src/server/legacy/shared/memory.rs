//! [`MemorySessionStore`]: a [`LegacySessionStore`] in the memory of one
//! process, shared by every server given a clone of it.
//!
//! It serves servers that run side by side in one process, and tests of
//! what replicas do, with no Redis to run. The rules, in order:
//!
//! 1. a record expires when it has been idle for the time it was stored
//!    or last touched with, on tokio's clock; an expired record is gone
//!    from then on, as if removed;
//! 2. a listener holds at most [`LISTENER_BACKLOG`] messages it has not
//!    read; past that a new message is dropped for it (Redis drops a slow
//!    subscriber's connection instead). A message counts as delivered to
//!    every listener it reached;
//! 3. dropping a listener's stream ends its subscription at once.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use futures::Stream;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::record::SessionRecord;
use super::store::{ChannelMessages, LegacySessionStore, SessionStoreError};
use crate::util::lock;

/// How many unread messages one listener holds (rule 2).
pub const LISTENER_BACKLOG: usize = 1024;

/// Legacy sessions shared by the servers of one process. Clones share
/// the sessions.
#[derive(Clone, Default)]
pub struct MemorySessionStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MemorySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let records = lock(&self.inner.records).len();
        f.debug_struct("MemorySessionStore")
            .field("records", &records)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Inner {
    records: Mutex<HashMap<String, Kept>>,
    channels: Mutex<Channels>,
}

struct Kept {
    record: SessionRecord,
    expires: Instant,
}

#[derive(Default)]
struct Channels {
    next: u64,
    listeners: HashMap<String, HashMap<u64, mpsc::Sender<Vec<u8>>>>,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        MemorySessionStore::default()
    }

    /// The live record of `id` (rule 1), dropping an expired one.
    fn live<'a>(records: &'a mut HashMap<String, Kept>, id: &str) -> Option<&'a mut Kept> {
        if records.get(id)?.expires <= Instant::now() {
            records.remove(id);
            return None;
        }
        records.get_mut(id)
    }
}

#[async_trait]
impl LegacySessionStore for MemorySessionStore {
    async fn create(
        &self,
        record: &SessionRecord,
        idle: Duration,
    ) -> Result<(), SessionStoreError> {
        let kept = Kept {
            record: record.clone(),
            expires: Instant::now() + idle,
        };
        lock(&self.inner.records).insert(record.id.clone(), kept);
        Ok(())
    }

    async fn touch(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        let mut records = lock(&self.inner.records);
        Ok(Self::live(&mut records, id).map(|kept| {
            kept.expires = Instant::now() + idle;
            kept.record.clone()
        }))
    }

    async fn replace(
        &self,
        record: &SessionRecord,
        read: u64,
        idle: Duration,
    ) -> Result<bool, SessionStoreError> {
        let mut records = lock(&self.inner.records);
        match Self::live(&mut records, &record.id) {
            Some(kept) if kept.record.version == read => {
                kept.record = record.clone();
                kept.expires = Instant::now() + idle;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn remove(&self, id: &str) -> Result<bool, SessionStoreError> {
        let mut records = lock(&self.inner.records);
        let live = Self::live(&mut records, id).is_some();
        records.remove(id);
        Ok(live)
    }

    async fn publish(&self, channel: &str, message: Vec<u8>) -> Result<usize, SessionStoreError> {
        let mut channels = lock(&self.inner.channels);
        let Some(listeners) = channels.listeners.get_mut(channel) else {
            return Ok(0);
        };
        listeners.retain(|_, sender| !sender.is_closed());
        let mut reached = 0;
        for sender in listeners.values() {
            // Rule 2: a full listener misses this one.
            if sender.try_send(message.clone()).is_ok() {
                reached += 1;
            }
        }
        Ok(reached)
    }

    async fn listen(&self, channel: &str) -> Result<ChannelMessages, SessionStoreError> {
        let (sender, receiver) = mpsc::channel(LISTENER_BACKLOG);
        let mut channels = lock(&self.inner.channels);
        let number = channels.next;
        channels.next += 1;
        channels
            .listeners
            .entry(channel.to_owned())
            .or_default()
            .insert(number, sender);
        Ok(Box::pin(Listener {
            receiver,
            number,
            channel: channel.to_owned(),
            store: Arc::downgrade(&self.inner),
        }))
    }
}

/// One subscription; dropping it ends the subscription (rule 3).
struct Listener {
    receiver: mpsc::Receiver<Vec<u8>>,
    number: u64,
    channel: String,
    store: Weak<Inner>,
}

impl Stream for Listener {
    type Item = Vec<u8>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        self.receiver.poll_recv(cx)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let Some(store) = self.store.upgrade() else {
            return;
        };
        let mut channels = lock(&store.channels);
        if let Some(listeners) = channels.listeners.get_mut(&self.channel) {
            listeners.remove(&self.number);
            if listeners.is_empty() {
                channels.listeners.remove(&self.channel);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use futures::StreamExt;

    use super::*;
    use crate::wire::{ClientCapabilities, Implementation};

    fn record(id: &str) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            principal: Some("alice".into()),
            protocol_version: "2025-11-25".into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("client", "1.0"),
            log_level: None,
            subscriptions: BTreeSet::new(),
            version: 0,
        }
    }

    const IDLE: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn a_record_lives_while_it_is_touched_and_expires_when_idle() {
        let store = MemorySessionStore::new();
        store.create(&record("s"), IDLE).await.unwrap();
        tokio::time::advance(Duration::from_secs(50)).await;
        assert!(store.touch("s", IDLE).await.unwrap().is_some());
        tokio::time::advance(Duration::from_secs(50)).await;
        assert!(store.touch("s", IDLE).await.unwrap().is_some());
        tokio::time::advance(IDLE).await;
        assert_eq!(store.touch("s", IDLE).await.unwrap(), None);
        assert!(!store.remove("s").await.unwrap());
    }

    #[tokio::test]
    async fn a_replace_needs_the_version_it_read() {
        let store = MemorySessionStore::new();
        let mut changed = record("s");
        store.create(&changed, IDLE).await.unwrap();
        changed.version = 1;
        assert!(store.replace(&changed, 0, IDLE).await.unwrap());
        assert!(!store.replace(&changed, 0, IDLE).await.unwrap());
        assert_eq!(store.touch("s", IDLE).await.unwrap().unwrap().version, 1);
        assert!(store.remove("s").await.unwrap());
        assert!(!store.replace(&changed, 1, IDLE).await.unwrap());
    }

    #[tokio::test]
    async fn publish_reaches_every_listener_and_counts_them() {
        let store = MemorySessionStore::new();
        assert_eq!(store.publish("c", b"lost".to_vec()).await.unwrap(), 0);
        let mut one = store.listen("c").await.unwrap();
        let two = store.listen("c").await.unwrap();
        assert_eq!(store.publish("c", b"hello".to_vec()).await.unwrap(), 2);
        assert_eq!(one.next().await.unwrap(), b"hello");
        drop(two);
        assert_eq!(store.publish("c", b"again".to_vec()).await.unwrap(), 1);
        drop(one);
        assert_eq!(store.publish("c", b"gone".to_vec()).await.unwrap(), 0);
        assert!(lock(&store.inner.channels).listeners.is_empty());
    }

    #[tokio::test]
    async fn a_listener_that_stops_reading_misses_messages_past_its_backlog() {
        let store = MemorySessionStore::new();
        let mut slow = store.listen("c").await.unwrap();
        for n in 0..LISTENER_BACKLOG {
            assert_eq!(
                store
                    .publish("c", n.to_string().into_bytes())
                    .await
                    .unwrap(),
                1
            );
        }
        assert_eq!(store.publish("c", b"over".to_vec()).await.unwrap(), 0);
        assert_eq!(slow.next().await.unwrap(), b"0");
    }
}
