//! Following a master that Sentinel watches, across failovers.
//!
//! The redis crate asks sentinels where the master is, and checks that
//! the node it names says it is the master; what it hands back is a
//! connection to that one node. This module keeps such a connection and
//! replaces it when the master may have changed. The rules, in order:
//!
//! 1. **One connection to the master, found on demand.** Until one
//!    stands, a call asks the sentinels (one lookup at a time; callers
//!    waiting meanwhile take its result) and connects to the master they
//!    name. If they name none, or the node they name is down, the call
//!    fails with the reason: during a failover, requests fail rather than
//!    wait, and the engine answers them with `-31002` and `Retry-After`.
//! 2. **A sign that the master moved drops the connection.** That is a
//!    connection that broke or timed out, or a node that answers
//!    `READONLY` (the old master, back as a replica of the new one). The
//!    failing call reports it; the next one looks the master up afresh.
//!    Nothing is retried here, so a write that may have been applied is
//!    never sent twice.
//! 3. **Subscriptions move with the master.** The channels subscribed
//!    through this link are kept, and a new connection subscribes to all
//!    of them before any call uses it; the old connection's end reaches
//!    the store's watchers as a disconnection push, and they read their
//!    records afresh once a call succeeds again (the `watch` module).

use std::collections::BTreeSet;
use std::sync::Mutex;

use redis::aio::MultiplexedConnection;
use redis::sentinel::SentinelClient;
use redis::{AsyncConnectionConfig, ErrorKind, RedisError, RedisResult, ServerErrorKind};

use super::Settings;
use crate::error::unreachable;

/// A link to whichever node the sentinels say is the master.
pub(crate) struct Following {
    /// Asks the sentinels; locked for one lookup at a time.
    lookup: tokio::sync::Mutex<Lookup>,
    settings: Settings,
    /// The connection to the master, while it stands.
    master: Mutex<Option<Master>>,
    /// The channels every new connection subscribes to.
    channels: Mutex<BTreeSet<String>>,
}

/// The sentinels, and how many connections to a master were made.
struct Lookup {
    sentinels: SentinelClient,
    made: u64,
}

/// One connection to the master, numbered so that a failing call drops
/// only the connection it used, not a newer one.
#[derive(Clone)]
struct Master {
    connection: MultiplexedConnection,
    number: u64,
}

impl Following {
    /// Follows the master that `sentinels` name; connects on first use.
    pub(crate) fn new(sentinels: SentinelClient, settings: Settings) -> Self {
        Following {
            lookup: tokio::sync::Mutex::new(Lookup { sentinels, made: 0 }),
            settings,
            master: Mutex::new(None),
            channels: Mutex::new(BTreeSet::new()),
        }
    }

    /// Runs `call` on the master's connection, dropping the connection if
    /// the call's error says the master may have moved.
    pub(crate) async fn run<T, F>(
        &self,
        call: impl FnOnce(MultiplexedConnection) -> F,
    ) -> RedisResult<T>
    where
        F: Future<Output = RedisResult<T>>,
    {
        let master = self.master().await?;
        let answer = call(master.connection).await;
        if let Err(error) = &answer
            && moved(error)
        {
            let mut current = lock(&self.master);
            if current.as_ref().is_some_and(|m| m.number == master.number) {
                *current = None;
            }
        }
        answer
    }

    /// Connects to the master now, if no connection stands.
    pub(crate) async fn connect(&self) -> RedisResult<()> {
        self.master().await.map(|_| ())
    }

    /// Subscribes to `channel`, now and on every later master.
    pub(crate) async fn subscribe(&self, channel: &str) -> RedisResult<()> {
        lock(&self.channels).insert(channel.to_owned());
        self.run(|mut master| async move { master.subscribe(channel).await })
            .await
    }

    /// Unsubscribes from `channel`.
    pub(crate) async fn unsubscribe(&self, channel: &str) -> RedisResult<()> {
        lock(&self.channels).remove(channel);
        self.run(|mut master| async move { master.unsubscribe(channel).await })
            .await
    }

    /// The standing connection, or a new one to the master the sentinels
    /// name now.
    async fn master(&self) -> RedisResult<Master> {
        if let Some(master) = lock(&self.master).clone() {
            return Ok(master);
        }
        let mut lookup = self.lookup.lock().await;
        if let Some(master) = lock(&self.master).clone() {
            return Ok(master);
        }
        let client = lookup.sentinels.async_get_client().await?;
        let mut connection = client
            .get_multiplexed_async_connection_with_config(&self.config())
            .await?;
        let channels: Vec<String> = lock(&self.channels).iter().cloned().collect();
        for channel in &channels {
            connection.subscribe(channel).await?;
        }
        lookup.made += 1;
        let master = Master {
            connection,
            number: lookup.made,
        };
        *lock(&self.master) = Some(master.clone());
        Ok(master)
    }

    fn config(&self) -> AsyncConnectionConfig {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.settings.connect_timeout))
            .set_response_timeout(Some(self.settings.response_timeout));
        match &self.settings.pushes {
            Some(pushes) => config.set_push_sender(pushes.clone()),
            None => config,
        }
    }
}

/// Whether `error` says the master may be another node now.
fn moved(error: &RedisError) -> bool {
    unreachable(error) || error.kind() == ErrorKind::Server(ServerErrorKind::ReadOnly)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
