//! Changes across processes: Redis pub/sub, one connection per store.
//!
//! Every write publishes the new record on the task's channel, and a
//! removal publishes an empty message. A store keeps one RESP3 connection
//! for its subscriptions and hands each message to the local watchers of
//! that task ([`Subscriber`]). The session store of the same
//! [`RedisTaskStore`](crate::RedisTaskStore) shares that connection: its
//! listeners join channels here too, as an [`Inbox::Listener`] beside the
//! watchers' [`Inbox::Watcher`]. The rules, in order:
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
//! 5. A session channel's listener gets each message's bytes as they
//!    came, while it holds fewer than [`LISTENER_BACKLOG`] unread; past
//!    that, a new message is dropped for it. What was published while the
//!    connection was down is lost for it: nothing is read afresh.
//! 6. A version this store wrote itself is handed to its own watchers as
//!    soon as Redis accepts the write, without waiting for the message:
//!    a handler here that waits for an answer given here resumes one
//!    delivery sooner. The message, when it comes, is no newer, and is
//!    dropped by rule 2.
//!
//! [`LISTENER_BACKLOG`]: presa_runtime::server::http::LISTENER_BACKLOG

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use presa_runtime::server::tasks::store::TaskRecord;
use redis::{PushInfo, PushKind, Value};
#[cfg(feature = "legacy-sessions")]
use tokio::sync::mpsc::Sender;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::connection::Link;
use crate::mailbox::{Event, Letterbox};
use crate::record;

type Inboxes = HashMap<String, HashMap<u64, Inbox>>;

/// Where the messages of a channel go, for one local subscriber.
pub(crate) enum Inbox {
    /// A task watcher's mailbox: each message as a record (rules 2 to 4).
    Watcher(Letterbox),
    /// A session channel's listener: each message's bytes, while it has
    /// room (rule 5).
    #[cfg(feature = "legacy-sessions")]
    Listener(Sender<Vec<u8>>),
}

/// The store's subscriptions and the local watchers and listeners of each
/// channel.
pub(crate) struct Subscriber {
    connection: Link,
    inboxes: Mutex<Inboxes>,
    next_watcher: Mutex<u64>,
    /// Serializes SUBSCRIBE and UNSUBSCRIBE, so that the first watcher of a
    /// channel and the last one leaving never reorder their commands.
    changing: tokio::sync::Mutex<()>,
    dispatcher: Mutex<Option<JoinHandle<()>>>,
    runtime: tokio::runtime::Handle,
}

/// One watcher's or listener's place on a channel; dropping it leaves the
/// channel, and the last to leave unsubscribes.
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
            inboxes: Mutex::default(),
            next_watcher: Mutex::new(0),
            changing: tokio::sync::Mutex::new(()),
            dispatcher: Mutex::new(None),
            runtime: tokio::runtime::Handle::current(),
        });
        let dispatcher = tokio::spawn(dispatch(Arc::downgrade(&subscriber), pushes));
        *lock(&subscriber.dispatcher) = Some(dispatcher);
        subscriber
    }

    /// Joins `channel` with `inbox`, subscribing to it first if nobody
    /// here watches it; returns once Redis has confirmed the subscription.
    ///
    /// The inbox is registered before the subscription is sent, so that a
    /// join dropped while it waits for Redis (its watcher's handler ended
    /// meanwhile) or failed leaves the channel like any registration, and
    /// no subscription outlives its watchers.
    pub(crate) async fn join(
        self: &Arc<Self>,
        channel: String,
        inbox: Inbox,
    ) -> Result<Registration, redis::RedisError> {
        let _changing = self.changing.lock().await;
        let id = {
            let mut next = lock(&self.next_watcher);
            *next += 1;
            *next
        };
        let first = {
            let mut inboxes = lock(&self.inboxes);
            let first = !inboxes.contains_key(&channel);
            inboxes
                .entry(channel.clone())
                .or_default()
                .insert(id, inbox);
            first
        };
        let registration = Registration {
            subscriber: Arc::clone(self),
            channel,
            id,
        };
        if first {
            self.subscribe(&registration.channel).await?;
        }
        Ok(registration)
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
            let mut inboxes = lock(&self.inboxes);
            let Some(on_channel) = inboxes.get_mut(&channel) else {
                return;
            };
            on_channel.remove(&id);
            let last = on_channel.is_empty();
            if last {
                inboxes.remove(&channel);
            }
            last
        };
        if last && let Err(error) = self.connection.unsubscribe(&channel).await {
            tracing::debug!(%error, channel, "could not unsubscribe");
        }
    }

    /// Hands `payload` to every inbox on `channel`: to watchers as an
    /// event, decoded once, and to listeners as bytes.
    fn deliver(&self, channel: &str, payload: Vec<u8>) {
        let inboxes = lock(&self.inboxes);
        let Some(on_channel) = inboxes.get(channel) else {
            return;
        };
        let mut event = None;
        for inbox in on_channel.values() {
            match inbox {
                Inbox::Watcher(letterbox) => {
                    let event = event.get_or_insert_with(|| event_of(&payload));
                    letterbox.deliver(event.clone());
                }
                // Rule 5: a full listener misses this message.
                #[cfg(feature = "legacy-sessions")]
                Inbox::Listener(sender) => {
                    let _ = sender.try_send(payload.clone());
                }
            }
        }
    }

    /// Hands `record`, a version this store just wrote, to the local
    /// watchers of `channel` at once (rule 6). Listeners get nothing:
    /// their channels carry no task records.
    pub(crate) fn tell(&self, channel: &str, record: &Arc<TaskRecord>) {
        let inboxes = lock(&self.inboxes);
        let Some(on_channel) = inboxes.get(channel) else {
            return;
        };
        for inbox in on_channel.values() {
            if let Inbox::Watcher(letterbox) = inbox {
                letterbox.deliver(Event::Changed(Arc::clone(record)));
            }
        }
    }

    /// Has every watcher read its record afresh (rule 4).
    fn reread_everywhere(&self) {
        for on_channel in lock(&self.inboxes).values() {
            for inbox in on_channel.values() {
                match inbox {
                    Inbox::Watcher(letterbox) => letterbox.deliver(Event::Reread),
                    // Rule 5: a listener's lost messages are not read again.
                    #[cfg(feature = "legacy-sessions")]
                    Inbox::Listener(_) => {}
                }
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
        self.reread_everywhere();
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

/// Hands each push to the watchers and listeners it concerns, until the
/// store is gone.
async fn dispatch(subscriber: Weak<Subscriber>, mut pushes: UnboundedReceiver<PushInfo>) {
    while let Some(push) = pushes.recv().await {
        let Some(subscriber) = subscriber.upgrade() else {
            return;
        };
        match push.kind {
            PushKind::Message => {
                if let Some((channel, payload)) = message(push.data) {
                    subscriber.deliver(&channel, payload);
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
