//! [`Versions`]: how the record of a followed task reaches those who
//! watch it.
//!
//! A `tokio::sync::watch` channel would do, but it keeps eight wait lists,
//! made for receivers by the thousand, and weighs some 340 bytes, which
//! every parked task paid: a parked task is followed by its runner and by
//! the input it waits for, two watchers at most in the common case. This
//! channel is the record behind a lock and one [`Notify`], about a
//! quarter of that. Its rules, in order:
//!
//! 1. **It holds only the current version.** A watcher reads the newest
//!    when it gets to it and skips those in between; versions only grow
//!    (every change that changes something bumps one), so "newer" is a
//!    comparison of numbers.
//! 2. **A watcher yields the current version first**, then each newer one
//!    it finds.
//! 3. **No change is missed:** a watcher registers for the next wake-up
//!    before it reads the version, so a change made between the two wakes
//!    it.
//! 4. **Dropping the sender closes the channel:** a watcher still reads
//!    the last version if it had not seen it, then its stream ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use tokio::sync::Notify;

use super::super::store::{TaskRecord, TaskWatch};
use crate::util::lock;

/// The sending side: the in-memory store keeps it in the entry of a
/// followed task, in place of the bare record.
pub(super) struct Versions {
    shared: Arc<Shared>,
}

struct Shared {
    current: Mutex<Arc<TaskRecord>>,
    closed: AtomicBool,
    changed: Notify,
}

impl Versions {
    /// A channel whose current version is `record`.
    pub fn new(record: Arc<TaskRecord>) -> Self {
        Versions {
            shared: Arc::new(Shared {
                current: Mutex::new(record),
                closed: AtomicBool::new(false),
                changed: Notify::new(),
            }),
        }
    }

    /// The current version.
    pub fn current(&self) -> Arc<TaskRecord> {
        Arc::clone(&lock(&self.shared.current))
    }

    /// How many watch the task.
    pub fn watchers(&self) -> usize {
        Arc::strong_count(&self.shared) - 1
    }

    /// Lets `change` edit the current version, and wakes the watchers if
    /// it says it changed something.
    pub fn modify(&self, change: impl FnOnce(&mut Arc<TaskRecord>) -> bool) {
        let changed = change(&mut lock(&self.shared.current));
        if changed {
            self.shared.changed.notify_waiters();
        }
    }

    /// A new watcher (rule 2).
    pub fn watch(&self) -> TaskWatch {
        futures::stream::unfold((Arc::clone(&self.shared), None), next_version).boxed()
    }
}

impl Drop for Versions {
    /// Closes the channel (rule 4).
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.changed.notify_waiters();
    }
}

/// A watcher's state between versions: the channel, and the last version
/// it yielded.
type Watcher = (Arc<Shared>, Option<u64>);

/// A watcher's next version: the first one newer than `seen`, once there
/// is one; `None` once the channel is closed with nothing newer. (A block,
/// not an `async fn`: its state is kept once, where an `async fn` would
/// keep its destructured argument twice.)
#[allow(
    clippy::manual_async_fn,
    reason = "an `async fn` would keep its argument twice"
)]
fn next_version(
    (shared, seen): Watcher,
) -> impl Future<Output = Option<(Arc<TaskRecord>, Watcher)>> {
    async move {
        let record = newer(&shared, seen).await?;
        let version = record.version;
        Some((record, (shared, Some(version))))
    }
}

async fn newer(shared: &Shared, seen: Option<u64>) -> Option<Arc<TaskRecord>> {
    loop {
        // Rule 3: a `Notified` hears every wake-up from its making on.
        let changed = shared.changed.notified();
        let current = Arc::clone(&lock(&shared.current));
        if seen.is_none_or(|seen| current.version > seen) {
            return Some(current);
        }
        if shared.closed.load(Ordering::Acquire) {
            return None;
        }
        changed.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    fn record(version: u64) -> Arc<TaskRecord> {
        let mut record = TaskRecord::new("t".into(), None, None, None);
        record.version = version;
        Arc::new(record)
    }

    fn set(versions: &Versions, version: u64) {
        versions.modify(|current| {
            Arc::make_mut(current).version = version;
            true
        });
    }

    #[test]
    fn a_watcher_reads_the_current_version_then_only_newer_ones() {
        let versions = Versions::new(record(1));
        let mut watch = versions.watch();
        assert_eq!(watch.next().now_or_never().unwrap().unwrap().version, 1);
        assert!(watch.next().now_or_never().is_none(), "nothing newer yet");

        set(&versions, 2);
        set(&versions, 3);

        assert_eq!(
            watch.next().now_or_never().unwrap().unwrap().version,
            3,
            "versions in between are skipped"
        );
        assert!(watch.next().now_or_never().is_none());
    }

    #[test]
    fn a_waiting_watcher_wakes_on_a_change() {
        let versions = Versions::new(record(1));
        let mut watch = versions.watch();
        watch.next().now_or_never();
        let mut next = watch.next();
        assert!((&mut next).now_or_never().is_none(), "it waits");

        set(&versions, 2);

        assert_eq!(next.now_or_never().unwrap().unwrap().version, 2);
    }

    #[test]
    fn a_change_that_changes_nothing_wakes_nobody() {
        let versions = Versions::new(record(1));
        let mut watch = versions.watch();
        watch.next().now_or_never();
        versions.modify(|_| false);
        assert!(watch.next().now_or_never().is_none());
    }

    #[test]
    fn closing_gives_the_last_unseen_version_then_ends_every_watch() {
        let versions = Versions::new(record(1));
        let mut behind = versions.watch();
        let mut caught_up = versions.watch();
        behind.next().now_or_never();
        caught_up.next().now_or_never();
        set(&versions, 2);
        caught_up.next().now_or_never();
        assert_eq!(versions.watchers(), 2);

        drop(versions);

        assert_eq!(behind.next().now_or_never().unwrap().unwrap().version, 2);
        assert!(behind.next().now_or_never().unwrap().is_none());
        assert!(caught_up.next().now_or_never().unwrap().is_none());
    }
}
