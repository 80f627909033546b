//! Memory budgets: how many bytes of what clients send (and make the
//! server produce) may be held at once.
//!
//! Counting messages is not enough: one message may be a few bytes or
//! several megabytes, and its parsed form costs many times its text. A
//! [`Budget`] counts bytes instead. Budgets nest: a connection's budget
//! sits inside the server's, and a [`Charge`] holds bytes at every level
//! from its own up to the server's. The rules, in order:
//!
//! 1. [`Budget::charge`] waits until every level has room for the bytes,
//!    or is empty: a message larger than a whole budget still runs, alone,
//!    so that the message size limit, not the budget, decides what is too
//!    large.
//! 2. [`Budget::try_charge`] is the same without waiting: a transport that
//!    cannot make its peer wait (HTTP) answers "busy" instead, and a
//!    connection starts a request in the step that read it when it fits.
//!    [`Charge::try_grow`] adds to a charge the same way, for bytes that
//!    arrive a piece at a time (an HTTP body): a charge alone on its
//!    levels may grow past them, as rule 1 lets it start past them.
//! 3. [`Budget::force`] never waits and may go over the limit: for memory
//!    that is already allocated and must be kept, such as a response on
//!    its way out. Readers then wait until it has gone.
//! 4. Dropping a [`Charge`] gives its bytes back at every level and wakes
//!    whoever waits (cancellation by drop: a charge cannot be leaked by a
//!    request that is aborted half-way).
//!
//! Levels are always locked inner first, so two charges never wait on each
//! other.

use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::locks::lock;

/// A number of bytes shared by everyone holding a [`Charge`] on it. Cheap
/// to clone; clones are the same budget.
#[derive(Clone)]
pub(crate) struct Budget {
    level: Arc<Level>,
}

/// One level of a budget: its own limit and use, and the level around it.
struct Level {
    limit: usize,
    used: Mutex<usize>,
    freed: Notify,
    outer: Option<Arc<Level>>,
}

/// Bytes held on a budget until dropped.
#[must_use = "a charge gives its bytes back when dropped"]
pub(crate) struct Charge {
    bytes: usize,
    level: Option<Arc<Level>>,
}

/// [`Budget::try_charge`] found no room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exhausted {
    /// The limit of the level that had no room, in bytes.
    pub limit: usize,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Budget {
            level: Arc::new(Level::new(limit, None)),
        }
    }

    /// A budget of `limit` bytes inside this one: a charge on it is a
    /// charge on both.
    pub fn nested(&self, limit: usize) -> Self {
        Budget {
            level: Arc::new(Level::new(limit, Some(Arc::clone(&self.level)))),
        }
    }

    /// The bytes charged on this level now.
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn used(&self) -> usize {
        *lock(&self.level.used)
    }

    /// Charges `bytes`, waiting for room (rule 1).
    pub async fn charge(&self, bytes: usize) -> Charge {
        loop {
            let full = match self.reserve(bytes) {
                Ok(charge) => return charge,
                Err(full) => full,
            };
            let freed = full.freed.notified();
            tokio::pin!(freed);
            // Registered before the second look, so a release in between
            // is not missed.
            freed.as_mut().enable();
            if let Ok(charge) = self.reserve(bytes) {
                return charge;
            }
            freed.await;
        }
    }

    /// Charges `bytes` if there is room now (rule 2).
    pub fn try_charge(&self, bytes: usize) -> Result<Charge, Exhausted> {
        self.reserve(bytes)
            .map_err(|full| Exhausted { limit: full.limit })
    }

    /// A charge of nothing yet on this budget, to grow with
    /// [`Charge::try_grow`] as its bytes arrive (an HTTP body).
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub fn empty_charge(&self) -> Charge {
        Charge {
            bytes: 0,
            level: Some(Arc::clone(&self.level)),
        }
    }

    /// Charges `bytes` whether or not there is room (rule 3).
    pub fn force(&self, bytes: usize) -> Charge {
        self.level.force(bytes);
        Charge {
            bytes,
            level: Some(Arc::clone(&self.level)),
        }
    }

    /// Adds `bytes` at every level, all or none; the level without room
    /// when there is none.
    fn reserve(&self, bytes: usize) -> Result<Charge, &Level> {
        self.level.reserve(bytes, 0)?;
        Ok(Charge {
            bytes,
            level: Some(Arc::clone(&self.level)),
        })
    }
}

impl Level {
    fn new(limit: usize, outer: Option<Arc<Level>>) -> Self {
        Level {
            limit,
            used: Mutex::new(0),
            freed: Notify::new(),
            outer,
        }
    }

    /// Adds `bytes` here and at every level around it, all or none: this
    /// level stays locked while the outer ones are tried (inner first, as
    /// the module says), and counts the bytes only once they all took
    /// them. Nothing is allocated: a charge is taken for every request.
    /// `held` is what the charge that grows already holds at each level:
    /// a level that holds nothing else has room for it (rule 1).
    fn reserve(&self, bytes: usize, held: usize) -> Result<(), &Level> {
        let mut used = lock(&self.used);
        let fits = *used <= held || used.saturating_add(bytes) <= self.limit;
        if !fits {
            return Err(self);
        }
        if let Some(outer) = &self.outer {
            outer.reserve(bytes, held)?;
        }
        *used = used.saturating_add(bytes);
        Ok(())
    }

    /// Adds `bytes` here and at every level around it, room or not
    /// (rule 3), locking in the same order as [`Level::reserve`].
    fn force(&self, bytes: usize) {
        let mut used = lock(&self.used);
        if let Some(outer) = &self.outer {
            outer.force(bytes);
        }
        *used = used.saturating_add(bytes);
    }

    /// This level and every level around it, innermost first.
    fn chain(self: &Arc<Self>) -> impl Iterator<Item = &Arc<Level>> {
        std::iter::successors(Some(self), |level| level.outer.as_ref())
    }

    fn release(&self, bytes: usize) {
        let mut used = lock(&self.used);
        *used = used.saturating_sub(bytes);
        drop(used);
        self.freed.notify_waiters();
    }
}

impl Charge {
    /// A charge of nothing, on no budget.
    pub fn none() -> Self {
        Charge {
            bytes: 0,
            level: None,
        }
    }

    /// The bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds `bytes` to this charge if there is room for them now at every
    /// level (rule 2), or the charge is alone on them (rule 1); otherwise
    /// it stays as it was. A charge on no budget ([`Charge::none`]) counts
    /// nothing, and grows without limit.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub fn try_grow(&mut self, bytes: usize) -> Result<(), Exhausted> {
        if let Some(level) = &self.level {
            level
                .reserve(bytes, self.bytes)
                .map_err(|full| Exhausted { limit: full.limit })?;
        }
        self.bytes = self.bytes.saturating_add(bytes);
        Ok(())
    }

    /// Gives the bytes back at the innermost level and keeps them at the
    /// others: what a request keeps once it outlives its connection.
    pub fn outer(mut self) -> Charge {
        let Some(level) = self.level.take() else {
            return Charge::none();
        };
        level.release(self.bytes);
        Charge {
            bytes: self.bytes,
            level: level.outer.clone(),
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        if let Some(level) = self.level.take() {
            for level in level.chain() {
                level.release(self.bytes);
            }
        }
    }
}

impl std::fmt::Debug for Charge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Charge")
            .field("bytes", &self.bytes)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_count_at_every_level_and_come_back_on_drop() {
        let server = Budget::new(100);
        let connection = server.nested(60);
        let a = connection.try_charge(50).unwrap();
        assert_eq!((connection.used(), server.used()), (50, 50));
        assert_eq!(connection.try_charge(20).unwrap_err().limit, 60);
        let b = server.try_charge(50).unwrap();
        assert_eq!(server.try_charge(1).unwrap_err().limit, 100);
        drop(a);
        assert_eq!((connection.used(), server.used()), (0, 50));
        drop(b);
        assert_eq!(server.used(), 0);
    }

    #[test]
    fn an_empty_level_takes_one_charge_of_any_size() {
        let budget = Budget::new(10);
        let big = budget.try_charge(1000).unwrap();
        assert!(budget.try_charge(1).is_err());
        drop(big);
        assert!(budget.try_charge(1).is_ok());
    }

    #[test]
    fn a_forced_charge_goes_over_and_holds_readers_back() {
        let budget = Budget::new(10);
        let forced = budget.force(25);
        assert_eq!(budget.used(), 25);
        assert!(budget.try_charge(1).is_err());
        drop(forced);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn the_outer_part_of_a_charge_outlives_its_level() {
        let server = Budget::new(100);
        let connection = server.nested(100);
        let kept = connection.try_charge(30).unwrap().outer();
        assert_eq!((connection.used(), server.used()), (0, 30));
        drop(kept);
        assert_eq!(server.used(), 0);
    }

    #[test]
    fn a_charge_grows_while_there_is_room_or_it_is_alone() {
        let server = Budget::new(100);
        let connection = server.nested(60);
        let mut growing = connection.empty_charge();
        growing.try_grow(40).unwrap();
        let other = server.try_charge(50).unwrap();
        assert_eq!(growing.try_grow(20).unwrap_err().limit, 100);
        assert_eq!(growing.bytes(), 40, "a refused growth takes nothing");
        assert_eq!((connection.used(), server.used()), (40, 90));
        drop(other);

        // Alone on its levels, it grows past them, as one charge may start
        // past them.
        growing.try_grow(500).unwrap();
        assert_eq!((connection.used(), server.used()), (540, 540));
        assert!(server.try_charge(1).is_err());
        drop(growing);
        assert_eq!((connection.used(), server.used()), (0, 0));
    }

    #[tokio::test]
    async fn a_waiting_charge_goes_through_once_an_outer_level_frees() {
        let server = Budget::new(10);
        let first = server.nested(10);
        let second = server.nested(10);
        let held = first.try_charge(8).unwrap();
        let waiting = tokio::spawn({
            let second = second.clone();
            async move { second.charge(5).await.bytes() }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(held);
        assert_eq!(waiting.await.unwrap(), 5);
        assert_eq!(server.used(), 0);
    }
}
