//! [`Leases`]: the engine's side of [`Lease`]s. It keeps the lease of each
//! handler this server runs, and takes over the tasks of servers that
//! stopped keeping theirs (the rules are in the `lease` module).

use std::time::{Duration, SystemTime};

use super::lease::Lease;
use super::store::{TaskChange, TaskLimits, TaskStore};
use crate::server::reply::internal_error;

/// How many lapsed tasks one sweep takes over at most; the next sweep
/// takes the rest.
const TAKEOVER_BATCH: usize = 100;

/// How this server holds leases: its id and the length of a lease.
#[derive(Debug, Clone)]
pub(crate) struct Leases {
    holder: String,
    length: Duration,
}

impl Leases {
    /// Leases of `length` for a server with a fresh random id.
    pub fn new(length: Duration) -> Self {
        Leases {
            holder: crate::util::random_id::<12>(),
            length,
        }
    }

    fn lease(&self, now: SystemTime) -> Lease {
        Lease::new(&self.holder, now, self.length)
    }

    /// Takes the lease on task `id`, then renews it every third of its
    /// length; returns only when another server holds it (this one was cut
    /// off from the store for longer than a lease, and the task was taken
    /// over), so that the runner drops the handler. A renewal that fails
    /// is tried again at the next one.
    pub async fn keep(&self, store: &dyn TaskStore, id: &str) {
        let renewal = self.length / 3;
        loop {
            let now = SystemTime::now();
            match store.hold(id, &self.lease(now), now).await {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => tracing::warn!(task = id, error = %e, "could not renew the task's lease"),
            }
            tokio::time::sleep(renewal).await;
        }
    }

    /// Claims the running tasks whose lease lapsed and fails each with
    /// `-32603 Internal error`: the handler's state died with its server.
    /// Returns how many this server took over.
    pub async fn take_over_lapsed(&self, store: &dyn TaskStore, limits: &TaskLimits) -> usize {
        let now = SystemTime::now();
        let lapsed = match store.lapsed(now, TAKEOVER_BATCH).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "could not look for tasks whose lease lapsed");
                return 0;
            }
        };
        let mut taken = 0;
        for id in lapsed {
            match store.hold(&id, &self.lease(now), now).await {
                Ok(true) => {}
                // Another server claimed it first, or it just ended.
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(task = id, error = %e, "could not claim a task whose lease lapsed");
                    continue;
                }
            }
            let cause = format!("task {id}: the server running it stopped renewing its lease");
            let change = TaskChange::Fail(internal_error("(task takeover)", &cause));
            match store.apply(&id, change, limits).await {
                Ok(_) => taken += 1,
                Err(e) => tracing::warn!(task = id, error = %e, "could not fail a task taken over"),
            }
        }
        taken
    }
}
