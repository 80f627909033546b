//! [`Lease`]: which server runs a task's handler, so that a task whose
//! server died is not left running for ever.
//!
//! With a store that several servers share, the handler of a task runs on
//! the one server that created it, and nowhere else. If that server dies,
//! nothing would end the task: clients would see it `working` (or waiting
//! for an answer nobody reads) until its TTL. Leases close that gap:
//!
//! 1. With [`TaskSettings::lease`](super::TaskSettings::lease) set, the
//!    server takes a lease on each task it runs as it starts the handler,
//!    and renews it every third of the lease while the handler runs.
//! 2. Every server's sweeper looks for running tasks whose lease lapsed
//!    ([`TaskStore::lapsed`](super::TaskStore::lapsed)) and claims them
//!    with [`TaskStore::hold`](super::store::TaskStore::hold). Claiming is atomic, so one server wins.
//! 3. The winner fails the task with `-32603 Internal error`, as for any
//!    internal error: the handler's state is gone with its server.
//! 4. A server that finds its lease taken when it renews (it was cut off
//!    from the store for longer than the lease) drops its handler: the
//!    task is someone else's now.
//!
//! Leases are kept beside the record, not in it: a renewal is no change a
//! client could see, so it wakes no watcher and sends no notification.
//! Times are wall-clock times of the servers, which must agree to well
//! within a lease.

use std::time::{Duration, SystemTime};

/// A server's claim on running a task's handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The server that holds it: a random id each engine draws.
    pub holder: String,
    /// When it lapses unless renewed.
    pub until: SystemTime,
}

impl Lease {
    /// A lease for `holder` lasting `length` from `now`.
    pub fn new(holder: &str, now: SystemTime, length: Duration) -> Lease {
        Lease {
            holder: holder.to_owned(),
            until: now + length,
        }
    }

    /// Whether it has lapsed at `now`.
    pub fn lapsed(&self, now: SystemTime) -> bool {
        self.until <= now
    }

    /// The rule every store applies in
    /// [`TaskStore::hold`](super::store::TaskStore::hold): `holder` may
    /// take or renew the lease of a running task unless another server
    /// holds one that has not lapsed at `now`.
    pub fn may_hold(current: Option<&Lease>, holder: &str, now: SystemTime) -> bool {
        current.is_none_or(|lease| lease.holder == holder || lease.lapsed(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn a_live_lease_is_only_its_holders() {
        let now = SystemTime::UNIX_EPOCH + MINUTE;
        let lease = Lease::new("a", now, MINUTE);
        assert!(Lease::may_hold(None, "b", now));
        assert!(Lease::may_hold(Some(&lease), "a", now));
        assert!(!Lease::may_hold(Some(&lease), "b", now));
    }

    #[test]
    fn a_lapsed_lease_may_be_taken_by_anyone() {
        let now = SystemTime::UNIX_EPOCH + MINUTE;
        let lease = Lease::new("a", now, MINUTE);
        let later = now + MINUTE;
        assert!(lease.lapsed(later));
        assert!(Lease::may_hold(Some(&lease), "b", later));
    }
}
