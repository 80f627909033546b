//! [`SharedSessions`]: one replica's handle on the store its legacy
//! sessions share, and the one way a session's record changes.
//!
//! A change is read, applied and written back over the version it read
//! ([`LegacySessionStore::replace`]); when another replica wrote first,
//! it is read and applied again, up to [`CHANGE_ATTEMPTS`] times. Once
//! written, the new record goes to every replica holding the session, on
//! its channel.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::note::{SessionNote, encode, session_channel};
use super::record::{SessionChange, SessionChangeRefused, SessionRecord};
use super::store::{LegacySessionStore, SessionStoreError};

/// How many times a change is tried against other replicas' writes.
pub(crate) const CHANGE_ATTEMPTS: usize = 16;

/// One replica's handle on a shared store. Cheap to clone.
#[derive(Clone)]
pub(crate) struct SharedSessions {
    store: Arc<dyn LegacySessionStore>,
    /// How long a session lives without a request.
    pub idle: Duration,
    /// This replica's id: unguessable, fresh each time a server starts.
    pub replica: Arc<str>,
}

/// Why a change of a shared session was not made.
#[derive(Debug)]
pub(crate) enum ChangeFailed {
    /// The session ended or expired.
    Gone,
    /// The change breaks a rule of the session's.
    Refused(SessionChangeRefused),
    /// The store could not be reached.
    Store(SessionStoreError),
    /// Other replicas changed the session every time this one tried.
    Contended,
}

impl SharedSessions {
    /// A handle on `store` for a new replica, whose sessions live `idle`
    /// without a request.
    pub fn new(store: Arc<dyn LegacySessionStore>, idle: Duration) -> Self {
        SharedSessions {
            store,
            idle,
            replica: Arc::from(crate::util::random_id::<9>()),
        }
    }

    /// The store every replica shares the sessions through.
    pub fn store(&self) -> &dyn LegacySessionStore {
        &*self.store
    }

    /// Makes `change` to session `id`, and tells the replicas that hold it;
    /// the new record.
    pub async fn change(
        &self,
        id: &str,
        change: &SessionChange,
    ) -> Result<SessionRecord, ChangeFailed> {
        for _ in 0..CHANGE_ATTEMPTS {
            let Some(mut record) = self
                .store
                .touch(id, self.idle)
                .await
                .map_err(ChangeFailed::Store)?
            else {
                return Err(ChangeFailed::Gone);
            };
            let read = record.version;
            if !change.apply(&mut record).map_err(ChangeFailed::Refused)? {
                return Ok(record);
            }
            if self
                .store
                .replace(&record, read, self.idle)
                .await
                .map_err(ChangeFailed::Store)?
            {
                let note = SessionNote::Changed {
                    record: Box::new(record.clone()),
                };
                self.tell(&session_channel(id), &note).await;
                return Ok(record);
            }
        }
        Err(ChangeFailed::Contended)
    }

    /// Publishes `note` on `channel`: how many heard it. A store that
    /// cannot be reached is logged and counts as nobody: what a note
    /// tells is lost then, as a message over a lost connection is.
    pub async fn tell(&self, channel: &str, note: &impl Serialize) -> usize {
        match self.store.publish(channel, encode(note)).await {
            Ok(heard) => heard,
            Err(error) => {
                tracing::warn!(%error, channel, "could not tell the other replicas");
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use futures::StreamExt;

    use super::*;
    use crate::server::legacy::shared::MemorySessionStore;
    use crate::server::legacy::shared::note::decode;
    use crate::wire::{ClientCapabilities, Implementation, LoggingLevel};

    fn record(id: &str) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            principal: None,
            protocol_version: "2025-11-25".into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("client", "1.0"),
            log_level: None,
            subscriptions: BTreeSet::new(),
            version: 0,
        }
    }

    #[tokio::test]
    async fn a_change_is_stored_and_told_to_the_session_channel() {
        let store = MemorySessionStore::new();
        let shared = SharedSessions::new(Arc::new(store.clone()), Duration::from_secs(60));
        store.create(&record("s"), shared.idle).await.unwrap();
        let mut heard = store.listen(&session_channel("s")).await.unwrap();
        let change = SessionChange::SetLogLevel(LoggingLevel::Info);
        let changed = shared.change("s", &change).await.unwrap();
        assert_eq!(changed.log_level, Some(LoggingLevel::Info));
        let note: SessionNote = decode(&heard.next().await.unwrap()).unwrap();
        assert_eq!(
            note,
            SessionNote::Changed {
                record: Box::new(changed)
            }
        );
        assert!(matches!(
            shared.change("gone", &change).await,
            Err(ChangeFailed::Gone)
        ));
    }
}
