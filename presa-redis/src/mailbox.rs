//! A watcher's mailbox: the one [`Event`] it has not read yet, never a
//! queue, so that a watcher that stops reading (a listener whose client
//! stalled) holds one record however often its task changes.
//!
//! A watcher may skip versions but must see the latest ([`TaskWatch`]'s
//! contract), so a new event merges with the unread one. The rules, in
//! order:
//!
//! 1. `Removed` is final: it replaces anything, and nothing replaces it.
//! 2. `Reread` replaces a change, and a change does not replace it: the
//!    read that follows finds that change, or a newer one.
//! 3. Of two changes, the newer version stays.
//!
//! The mailbox closes when its [`Letterbox`] is dropped (the watcher left,
//! or the store is gone); the watcher reads what is left, then `None`.
//!
//! [`TaskWatch`]: presa_runtime::server::tasks::store::TaskWatch

use std::sync::{Arc, Mutex};

use presa_runtime::server::tasks::store::TaskRecord;
use tokio::sync::Notify;

/// What a watcher hears from its task's channel.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    /// A new version, as published.
    Changed(Arc<TaskRecord>),
    /// The task was removed.
    Removed,
    /// Messages may have been lost: read the record again.
    Reread,
}

/// A new mailbox: the side that delivers, and the side that reads.
pub(crate) fn mailbox() -> (Letterbox, Mailbox) {
    let shared = Arc::new(Shared {
        slot: Mutex::new(Slot {
            unread: None,
            closed: false,
        }),
        arrived: Notify::new(),
    });
    (
        Letterbox {
            shared: Arc::clone(&shared),
        },
        Mailbox { shared },
    )
}

/// Delivers into a mailbox; dropping it closes the mailbox.
pub(crate) struct Letterbox {
    shared: Arc<Shared>,
}

/// Reads a mailbox.
pub(crate) struct Mailbox {
    shared: Arc<Shared>,
}

struct Shared {
    slot: Mutex<Slot>,
    arrived: Notify,
}

struct Slot {
    unread: Option<Event>,
    closed: bool,
}

impl Letterbox {
    /// Delivers `event`, merged with the unread one.
    pub(crate) fn deliver(&self, event: Event) {
        let mut slot = lock(&self.shared.slot);
        slot.unread = Some(match slot.unread.take() {
            None => event,
            Some(unread) => merged(unread, event),
        });
        drop(slot);
        self.shared.arrived.notify_one();
    }
}

impl Drop for Letterbox {
    fn drop(&mut self) {
        lock(&self.shared.slot).closed = true;
        self.shared.arrived.notify_one();
    }
}

impl Mailbox {
    /// The unread event, waiting for one; `None` once the mailbox is
    /// closed and empty.
    pub(crate) async fn recv(&mut self) -> Option<Event> {
        loop {
            {
                let mut slot = lock(&self.shared.slot);
                if let Some(event) = slot.unread.take() {
                    return Some(event);
                }
                if slot.closed {
                    return None;
                }
            }
            // A delivery between the check and here left a permit, so
            // this returns at once.
            self.shared.arrived.notified().await;
        }
    }
}

/// What stays of `unread` when `new` arrives.
fn merged(unread: Event, new: Event) -> Event {
    match (unread, new) {
        (Event::Removed, _) | (_, Event::Removed) => Event::Removed,
        (Event::Reread, _) | (_, Event::Reread) => Event::Reread,
        (Event::Changed(old), Event::Changed(new)) => {
            if new.version() >= old.version() {
                Event::Changed(new)
            } else {
                Event::Changed(old)
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use presa_runtime::server::tasks::store::TaskChange;

    use super::*;

    /// The record of task `t` at `version` (each change one version on).
    fn at(version: u64) -> Event {
        let mut record = TaskRecord::new("t".into(), None, None, None);
        while record.version() < version {
            let change = TaskChange::StatusMessage(Some(format!("v{}", record.version())));
            let changed = change.apply(&mut record, usize::MAX).expect("room enough");
            assert!(changed, "a new status message changes the record");
        }
        Event::Changed(Arc::new(record))
    }

    fn version(event: Option<Event>) -> u64 {
        match event {
            Some(Event::Changed(record)) => record.version(),
            other => panic!("a change, not {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_reader_that_fell_behind_gets_the_newest_change_only() {
        let (letterbox, mut mailbox) = mailbox();
        for v in 1..=5 {
            letterbox.deliver(at(v));
        }
        letterbox.deliver(at(2));
        assert_eq!(version(mailbox.recv().await), 5);
        drop(letterbox);
        assert!(mailbox.recv().await.is_none(), "closed and empty");
    }

    #[tokio::test]
    async fn removed_is_final_and_reread_outranks_a_change() {
        let (letterbox, mut mailbox) = mailbox();
        letterbox.deliver(at(1));
        letterbox.deliver(Event::Reread);
        letterbox.deliver(at(3));
        assert!(matches!(mailbox.recv().await, Some(Event::Reread)));
        letterbox.deliver(Event::Removed);
        letterbox.deliver(at(4));
        letterbox.deliver(Event::Reread);
        assert!(matches!(mailbox.recv().await, Some(Event::Removed)));
    }

    #[tokio::test]
    async fn a_waiting_reader_wakes_for_a_delivery_and_for_the_close() {
        let (letterbox, mut mailbox) = mailbox();
        let reader = tokio::spawn(async move {
            let first = mailbox.recv().await.is_some();
            let then = mailbox.recv().await.is_none();
            (first, then)
        });
        tokio::task::yield_now().await;
        letterbox.deliver(Event::Reread);
        tokio::task::yield_now().await;
        drop(letterbox);
        assert_eq!(reader.await.unwrap(), (true, true));
    }
}
