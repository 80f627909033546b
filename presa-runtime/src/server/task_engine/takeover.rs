//! Taking over the tasks of a server that stopped renewing its leases
//! (the rules are in the `lease` module).
//!
//! The sweeper claims each running task whose lease lapsed. A task of a
//! resumable tool whose record keeps its call is run again here from the
//! start, with the answers the record holds, so every question already
//! answered returns at once; any other task is failed with `-32603
//! Internal error`, since its handler's state died with its server.

use std::time::SystemTime;

use super::runner::{LeaseKeeper, Runners};
use super::store::TaskChange;
use crate::server::request::reply::internal_error;

/// How many lapsed tasks one sweep takes over at most; the next sweep
/// takes the rest.
const TAKEOVER_BATCH: usize = 100;

/// Claims the running tasks whose lease lapsed, and resumes or fails
/// each. Returns how many this server took over.
pub(crate) async fn take_over_lapsed(runners: &Runners, keeper: &LeaseKeeper) -> usize {
    let store = &*runners.store;
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
        match store.hold(&id, &keeper.lease(now), now).await {
            Ok(true) => {}
            // Another server claimed it first, or it just ended.
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!(task = id, error = %e, "could not claim a task whose lease lapsed");
                continue;
            }
        }
        if resumed(runners, &id).await || failed(runners, &id).await {
            taken += 1;
        }
    }
    taken
}

/// Runs the claimed task `id` again, when its tool is resumable.
async fn resumed(runners: &Runners, id: &str) -> bool {
    let record = match runners.store.get(id).await {
        Ok(Some(record)) if record.call.is_some() => record,
        Ok(_) => return false,
        Err(e) => {
            tracing::warn!(task = id, error = %e, "could not read a task taken over");
            return false;
        }
    };
    let resumed = runners.resume(&record);
    if resumed {
        let tool = record.tool.as_deref();
        tracing::info!(task = id, tool, "resuming a task whose server stopped");
    }
    resumed
}

/// Fails the claimed task `id`: its handler died with its server.
async fn failed(runners: &Runners, id: &str) -> bool {
    let cause = format!("task {id}: the server running it stopped renewing its lease");
    let change = TaskChange::Fail(internal_error("(task takeover)", &cause));
    match runners.store.apply(id, change, &runners.rules.limits).await {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(task = id, error = %e, "could not fail a task taken over");
            false
        }
    }
}
