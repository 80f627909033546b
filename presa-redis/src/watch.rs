//! Changes across processes: Redis pub/sub, one connection per store.
//!
//! Every write publishes the new record on the task's channel, and a
//! removal publishes an empty message. A store keeps one RESP3 connection
//! for its subscriptions and hands each message to the local watchers of
//! that task ([`Subscriber`]). The rules, in order:
//!
//! 1. A watcher subscribes, and waits until Redis confirms, **before** it
//!    reads the current record: a change made between the two arrives as a
//!    message, so none is missed.
//! 2. It yields the current record, then each message whose version is
//!    newer than the last it yielded; stale copies are dropped. What it
//!    has not read yet waits in a mailbox of one event (the `mailbox`
//!    module), so a watcher that stops reading skips to the newest
//!    version, and holds one record however often its task changes.
//! 3. It ends on the removal message, or when the task's key is found gone
//!    at the moment Redis said it would expire (a task can expire with no
//!    server purging it, and Redis publishes nothing then).
//! 4. When the subscription connection drops, messages may be lost until
//!    it is back. Once it is (and the connection manager has subscribed
//!    again), every watcher reads its record afresh, which yields the
//!    latest version or ends a watch whose task is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use redis::{PushInfo, PushKind, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::connection::Link;
use crate::mailbox::{Event, Letterbox, Mailbox, mailbox};
use crate::record;

type Watchers = HashMap<String, HashMap<u64, Letterbox>>;

/// The store's subscriptions and the local watchers of each channel.
pub(crate) struct Subscriber {
    connection: Link,
    watchers: Mutex<Watchers>,
    next_watcher: Mutex<u64>,
    /// Serializes SUBSCRIBE and UNSUBSCRIBE, so that the first watcher of a
    /// channel and the last one leaving never reorder their commands.
    changing: tokio::sync::Mutex<()>,
    dispatcher: Mutex<Option<JoinHandle<()>>>,
    runtime: tokio::runtime::Handle,
}

/// One watcher's place on a channel; leaving it unsubscribes the last.
pub(crate) struct Registration {
    subscriber: Arc<Subscriber>,
    channel: String,
    id: u64,
}

impl Subscriber {
    /// A subscriber on `connection`, whose pushes arrive on `pushes`.
    pub(crate) fn start(connection: Link, pushes: UnboundedReceiver<PushInfo>) -> Arc<Self> {
        let subscriber = Arc::new(Subscriber {
            connection,
            watchers: Mutex::default(),
            next_watcher: Mutex::new(0),
            changing: tokio::sync::Mutex::new(()),
            dispatcher: Mutex::new(None),
            runtime: tokio::runtime::Handle::current(),
        });
        let dispatcher = tokio::spawn(dispatch(Arc::downgrade(&subscriber), pushes));
        *lock(&subscriber.dispatcher) = Some(dispatcher);
        subscriber
    }

    /// Joins `channel`, subscribing to it first if nobody here watches it;
    /// returns once Redis has confirmed the subscription.
    pub(crate) async fn join(
        self: &Arc<Self>,
        channel: String,
    ) -> Result<(Registration, Mailbox), redis::RedisError> {
        let (sender, events) = mailbox();
        let _changing = self.changing.lock().await;
        let id = {
            let mut next = lock(&self.next_watcher);
            *next += 1;
            *next
        };
        let first = !lock(&self.watchers).contains_key(&channel);
        if first {
            self.subscribe(&channel).await?;
        }
        lock(&self.watchers)
            .entry(channel.clone())
            .or_default()
            .insert(id, sender);
        let registration = Registration {
            subscriber: Arc::clone(self),
            channel,
            id,
        };
        Ok((registration, events))
    }

    /// Subscribes to `channel`. A connection that failed while Redis was
    /// away is replaced on its first error, so one more try goes to the new
    /// connection.
    async fn subscribe(&self, channel: &str) -> Result<(), redis::RedisError> {
        match self.connection.subscribe(channel).await {
            Err(error) if error.is_connection_refusal() || error.is_connection_dropped() => {
                self.connection.subscribe(channel).await
            }
            done => done,
        }
    }

    /// Leaves a channel, unsubscribing when nobody here watches it any more.
    async fn leave(&self, channel: String, id: u64) {
        let _changing = self.changing.lock().await;
        let last = {
            let mut watchers = lock(&self.watchers);
            let Some(on_channel) = watchers.get_mut(&channel) else {
                return;
            };
            on_channel.remove(&id);
            let last = on_channel.is_empty();
            if last {
                watchers.remove(&channel);
            }
            last
        };
        if last && let Err(error) = self.connection.unsubscribe(&channel).await {
            tracing::debug!(%error, channel, "could not unsubscribe");
        }
    }

    fn deliver(&self, channel: &str, event: impl Fn() -> Event) {
        if let Some(on_channel) = lock(&self.watchers).get(channel) {
            for sender in on_channel.values() {
                sender.deliver(event());
            }
        }
    }

    fn deliver_everywhere(&self, event: impl Fn() -> Event) {
        for on_channel in lock(&self.watchers).values() {
            for sender in on_channel.values() {
                sender.deliver(event());
            }
        }
    }

    /// Waits until the subscription connection answers again (it has
    /// subscribed again by then), then has every watcher read afresh.
    async fn recover(self: Arc<Self>) {
        let mut pause = Duration::from_millis(20);
        while redis::cmd("PING")
            .query_async::<()>(&mut self.connection.clone())
            .await
            .is_err()
        {
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
        self.deliver_everywhere(|| Event::Reread);
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        if let Some(dispatcher) = lock(&self.dispatcher).take() {
            dispatcher.abort();
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let subscriber = Arc::clone(&self.subscriber);
        let channel = std::mem::take(&mut self.channel);
        let id = self.id;
        self.subscriber
            .runtime
            .spawn(async move { subscriber.leave(channel, id).await });
    }
}

/// Hands each push to the watchers it concerns, until the store is gone.
async fn dispatch(subscriber: Weak<Subscriber>, mut pushes: UnboundedReceiver<PushInfo>) {
    while let Some(push) = pushes.recv().await {
        let Some(subscriber) = subscriber.upgrade() else {
            return;
        };
        match push.kind {
            PushKind::Message => {
                if let Some((channel, payload)) = message(push.data) {
                    let event = event_of(&payload);
                    match event {
                        Event::Changed(record) => {
                            subscriber.deliver(&channel, || Event::Changed(Arc::clone(&record)))
                        }
                        Event::Removed => subscriber.deliver(&channel, || Event::Removed),
                        Event::Reread => subscriber.deliver(&channel, || Event::Reread),
                    }
                }
            }
            PushKind::Disconnection => {
                tokio::spawn(subscriber.recover());
            }
            _ => {}
        }
    }
}

/// A message's channel and payload.
fn message(data: Vec<Value>) -> Option<(String, Vec<u8>)> {
    let mut data = data.into_iter();
    let channel = match data.next()? {
        Value::BulkString(bytes) => String::from_utf8(bytes).ok()?,
        _ => return None,
    };
    match data.next()? {
        Value::BulkString(payload) => Some((channel, payload)),
        _ => None,
    }
}

fn event_of(payload: &[u8]) -> Event {
    if payload.is_empty() {
        return Event::Removed;
    }
    let decoded = std::str::from_utf8(payload)
        .ok()
        .and_then(|text| record::decode(text).ok());
    match decoded {
        Some(record) => Event::Changed(Arc::new(record)),
        None => {
            tracing::warn!("a published task record does not parse; reading it instead");
            Event::Reread
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
