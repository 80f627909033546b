//! [`Dormant`]: the tasks of resumable tools whose handler was dropped
//! while they wait for input, to be run again when the answers come.
//!
//! A parked handler is most of what a parked task costs: its tokio task,
//! its future, its `Context`, the watches that would wake it. A resumable
//! tool (`#[tool(resumable)]`) promises that it can run again from the
//! start with the answers its record holds, which is how another server
//! takes it over. So a server need not keep the handler of such a task
//! while nobody has answered: it keeps only the record, and runs the
//! handler again, on this same server and exactly as a takeover would,
//! once the answers are in. The rules, in order:
//!
//! 1. A handler sleeps only when the task is `input_required`, its tool
//!    is resumable (the record keeps its call), the server takes no
//!    leases, and each question it waits for is answered through the
//!    store (a legacy client is asked over the connection instead, and
//!    its answer would find no handler). With leases, a dropped handler
//!    would let its lease lapse, and any server's sweeper would take the
//!    task over: the handler is kept instead.
//! 2. Its questions stay asked: dropping a sleeping handler withdraws
//!    nothing, so the task stays `input_required`.
//! 3. The server that stores the answer leaving nothing outstanding wakes
//!    the task: [`Dormant::wake`] takes it out of the set, so exactly one
//!    caller runs it again. A runner that put its task to sleep looks at
//!    the record once more afterwards, for answers that came while it did.
//! 4. A run again that cannot be built (the call no longer parses) fails
//!    the task with `-32603`, as a takeover does.
//! 5. A task that ends while asleep (`tasks/cancel`, its TTL) leaves the
//!    set: at once on cancel, or at the next sweep after its expiry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::store::TaskRecord;
use crate::util::lock;
use crate::wire::TaskStatus;

/// The tasks asleep on this server, each with when it expires.
#[derive(Default)]
pub(crate) struct Dormant {
    tasks: Mutex<HashMap<Arc<str>, Option<SystemTime>>>,
}

/// What waking a task found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Its handler is to run again: the caller now owns that.
    Run,
    /// Nothing to do: not asleep here, still waiting, or ended (and
    /// forgotten).
    Nothing,
}

impl Dormant {
    /// Puts task `record` to sleep: its handler has been dropped.
    pub fn sleep(&self, record: &TaskRecord) {
        let expiry = record.ttl.map(|ttl| record.created_at + ttl);
        lock(&self.tasks).insert(Arc::clone(&record.id), expiry);
    }

    /// Whether `record`, as it now is, wakes its task: `Run` once, for
    /// the one caller that takes it out of the set, when nothing is
    /// outstanding any more; a task that ended leaves the set.
    pub fn wake(&self, record: &TaskRecord) -> Wake {
        match record.status {
            TaskStatus::InputRequired => Wake::Nothing,
            TaskStatus::Working if lock(&self.tasks).remove(record.id()).is_some() => Wake::Run,
            TaskStatus::Working => Wake::Nothing,
            _ => {
                lock(&self.tasks).remove(record.id());
                Wake::Nothing
            }
        }
    }

    /// Forgets the sleeping tasks that expired by `now`.
    pub fn sweep(&self, now: SystemTime) {
        lock(&self.tasks).retain(|_, expiry| expiry.is_none_or(|at| at > now));
    }

    /// How many tasks sleep here.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        lock(&self.tasks).len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn record(status: TaskStatus, ttl: Option<Duration>) -> TaskRecord {
        let mut record = TaskRecord::new("t".into(), None, ttl, None);
        record.status = status;
        record
    }

    #[test]
    fn only_the_first_waker_of_an_answered_task_runs_it() {
        let dormant = Dormant::default();
        dormant.sleep(&record(TaskStatus::InputRequired, None));
        let waiting = record(TaskStatus::InputRequired, None);
        assert_eq!(dormant.wake(&waiting), Wake::Nothing);
        let answered = record(TaskStatus::Working, None);
        assert_eq!(dormant.wake(&answered), Wake::Run);
        assert_eq!(dormant.wake(&answered), Wake::Nothing);
    }

    #[test]
    fn an_ended_task_is_forgotten() {
        let dormant = Dormant::default();
        dormant.sleep(&record(TaskStatus::InputRequired, None));
        assert_eq!(
            dormant.wake(&record(TaskStatus::Cancelled, None)),
            Wake::Nothing
        );
        assert_eq!(dormant.len(), 0);
    }

    #[test]
    fn an_expired_task_is_swept() {
        let dormant = Dormant::default();
        let parked = record(TaskStatus::InputRequired, Some(Duration::from_secs(60)));
        dormant.sleep(&parked);
        dormant.sweep(parked.created_at + Duration::from_secs(59));
        assert_eq!(dormant.len(), 1);
        dormant.sweep(parked.created_at + Duration::from_secs(60));
        assert_eq!(dormant.len(), 0);
    }
}
