//! [`Replica`]: what one replica runs while it shares legacy sessions
//! with others through a store.
//!
//! Beside the channel of each session it holds (see `session`), a replica
//! listens on two channels of its own, from the first request it serves
//! until it stops, and tells its own changes from when it is built:
//!
//! 1. its own channel, for the answers its requests to clients get on
//!    other replicas: each goes to the request that waits for it, in the
//!    session that asked it; and for the asks of replicas that a client
//!    reconnected to, to pass on a stream this one holds (`relay`);
//! 2. the offers channel, where every replica tells what it offers that
//!    changed (a list, or a resource the application updated): the
//!    standalone streams this replica holds hear the changes of every
//!    replica, including its own, from there;
//! 3. its own changes go out on the offers channel as they happen, from
//!    when the endpoint is built (or, built outside a tokio runtime, from
//!    its first request): a replica that serves no legacy request, or
//!    none yet, still changes what the others' sessions see.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use tokio::sync::{OnceCell, broadcast};
use tokio::task::AbortHandle;

use super::relay::pass_on;
use super::session::HttpSessions;
use crate::server::catalog::changes::{CHANGE_BACKLOG, Change};
use crate::server::legacy::shared::note::{
    OFFERS_CHANNEL, OfferNote, ReplicaNote, decode, replica_channel,
};
use crate::server::legacy::shared::{SessionStoreError, SharedSessions};
use crate::server::router::Server;
use crate::util::lock;
use tokio::sync::broadcast::error::RecvError;

/// One replica's share of a shared store.
pub(super) struct Replica {
    pub shared: SharedSessions,
    /// The changes every replica offers, as heard on the offers channel.
    offers: broadcast::Sender<Change>,
    /// The listeners, once started.
    running: OnceCell<Running>,
    /// The server's changes, until the task that tells them (rule 3)
    /// takes them.
    changes: Mutex<Option<broadcast::Receiver<Change>>>,
    /// The task that tells this replica's changes, once started.
    telling: Mutex<Option<Running>>,
}

/// The drop guard of a replica's listeners: they stop with it.
struct Running(Vec<AbortHandle>);

impl Drop for Running {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

impl Replica {
    /// A replica of `server` on `shared`, not listening yet, that tells
    /// `server`'s changes from now on (rule 3).
    pub fn new(shared: SharedSessions, server: &Server) -> Self {
        let replica = Replica {
            shared,
            offers: broadcast::channel(CHANGE_BACKLOG).0,
            running: OnceCell::new(),
            changes: Mutex::new(Some(server.shared().registry.subscribe())),
            telling: Mutex::default(),
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            replica.tell_changes();
        }
        replica
    }

    /// Starts listening (rules 1 and 2), once: what serves `sessions`.
    /// Tried again on the next request if the store is down.
    pub async fn start(&self, sessions: &Arc<HttpSessions>) -> Result<(), SessionStoreError> {
        self.tell_changes();
        self.running
            .get_or_try_init(|| self.listen(sessions))
            .await
            .map(|_| ())
    }

    /// Starts telling the server's changes (rule 3), once.
    fn tell_changes(&self) {
        let Some(mut local) = lock(&self.changes).take() else {
            return;
        };
        let shared = self.shared.clone();
        let telling = tokio::spawn(async move {
            loop {
                let change = match local.recv().await {
                    Ok(change) => change,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "some changes were not told to the other replicas");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                shared.tell(OFFERS_CHANNEL, &note_of(&change)).await;
            }
        });
        *lock(&self.telling) = Some(Running(vec![telling.abort_handle()]));
    }

    /// A receiver of every replica's changes from now on.
    pub fn offers(&self) -> broadcast::Receiver<Change> {
        self.offers.subscribe()
    }

    async fn listen(&self, sessions: &Arc<HttpSessions>) -> Result<Running, SessionStoreError> {
        let store = self.shared.store();
        let mut answers = store.listen(&replica_channel(&self.shared.replica)).await?;
        let mut heard = store.listen(OFFERS_CHANNEL).await?;
        let sessions = Arc::downgrade(sessions);
        let shared = self.shared.clone();
        let answering = tokio::spawn(async move {
            while let Some(bytes) = answers.next().await {
                let Some(note) = decode::<ReplicaNote>(&bytes) else {
                    continue;
                };
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                match note {
                    ReplicaNote::Answer { session, response } => {
                        let resolved = sessions
                            .find(&session)
                            .is_some_and(|session| session.legacy.peer().resolve(response));
                        if !resolved {
                            tracing::warn!(
                                session,
                                "ignoring an answer, passed on by another replica, to no \
                                 request of this replica's"
                            );
                        }
                    }
                    ReplicaNote::Replay {
                        session,
                        stream,
                        after,
                        to,
                    } => pass_on(&sessions, shared.clone(), &session, stream, after, to),
                }
            }
        });
        let offers = self.offers.clone();
        let hearing = tokio::spawn(async move {
            while let Some(bytes) = heard.next().await {
                if let Some(note) = decode::<OfferNote>(&bytes) {
                    let _ = offers.send(change_of(note));
                }
            }
        });
        Ok(Running(vec![
            answering.abort_handle(),
            hearing.abort_handle(),
        ]))
    }
}

fn note_of(change: &Change) -> OfferNote {
    match change {
        Change::Tools => OfferNote::Tools,
        Change::Prompts => OfferNote::Prompts,
        Change::Resources => OfferNote::Resources,
        Change::ResourceUpdated(uri) => OfferNote::ResourceUpdated {
            uri: uri.to_string(),
        },
    }
}

fn change_of(note: OfferNote) -> Change {
    match note {
        OfferNote::Tools => Change::Tools,
        OfferNote::Prompts => Change::Prompts,
        OfferNote::Resources => Change::Resources,
        OfferNote::ResourceUpdated { uri } => Change::ResourceUpdated(Arc::from(uri)),
    }
}
