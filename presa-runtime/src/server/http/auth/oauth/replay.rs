//! Where used DPoP proofs are remembered, so that each is taken once
//! (rule 11 of `dpop`), and how the cache in memory stays bounded.
//!
//! 1. A proof is remembered until its lifetime ends ([`DpopProofId::forget_after`]):
//!    from then on rule 8 refuses it as too old, so it need not be.
//! 2. The cache in memory holds a bounded number of proofs
//!    ([`DpopSettings::replay_cache_entries`](super::DpopSettings::replay_cache_entries),
//!    `DEFAULT_REPLAY_ENTRIES` (100,000) by default, about 10 MB).
//! 3. When it is full, the proof due to be forgotten first leaves early,
//!    and from then on every proof no newer than it is refused: it might
//!    be that one again. A proof older than all those remembered is
//!    refused instead. So a full cache never lets a replay through; it
//!    refuses older proofs until proofs expire and make room.
//! 4. Each replica keeps its own cache: a proof replayed to another
//!    replica within its lifetime is taken there once. A [`DpopReplayCache`]
//!    that every replica shares closes that gap.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use crate::util::lock;

/// How many proofs the replay cache in memory holds at most (rule 2).
pub(crate) const DEFAULT_REPLAY_ENTRIES: usize = 100_000;

/// Where used DPoP proofs are remembered, for replicas that share one
/// store ([`DpopSettings::replay_cache`](super::DpopSettings::replay_cache)).
///
/// Each replica of a server keeps its own cache in memory by default, so
/// a proof replayed to another replica within its lifetime is taken there
/// once. A store that every replica reaches closes that gap: with Redis,
/// `SET {proof.key()} 1 NX EXAT {forget_after}` is the whole of it.
#[async_trait]
pub trait DpopReplayCache: Send + Sync + 'static {
    /// Records `proof`; `Ok(true)` the first time it is seen, `Ok(false)`
    /// when it was seen before (a replay, refused). Remember it at least
    /// until [`DpopProofId::forget_after`]. An error refuses the request
    /// with `503`: a proof that cannot be checked is not taken.
    async fn first_use(
        &self,
        proof: &DpopProofId,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>>;
}

/// One proof, as the replay cache remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DpopProofId {
    pub(crate) digest: [u8; 32],
    pub(crate) issued_at: u64,
    pub(crate) forget_after: u64,
}

impl DpopProofId {
    /// The proof's `jti` and `htu`, hashed: the proof's key in a store,
    /// 64 hexadecimal digits.
    pub fn key(&self) -> String {
        self.digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// When the proof says it was made (its `iat`).
    pub fn issued_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.issued_at)
    }

    /// When the proof's lifetime ends: from then on it is refused as too
    /// old, and need not be remembered.
    pub fn forget_after(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.forget_after)
    }
}

/// The replay cache in memory (rules 1 to 3).
pub(crate) struct MemoryReplayCache {
    capacity: usize,
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    /// Each proof remembered, and when it may be forgotten.
    proofs: HashMap<[u8; 32], u64>,
    /// The same, in the order they may be forgotten.
    by_expiry: BTreeSet<(u64, [u8; 32])>,
    /// Proofs whose lifetime ends at or before this are refused: one of
    /// them left the cache early, to make room.
    floor: Option<u64>,
}

impl MemoryReplayCache {
    pub fn new(capacity: usize) -> Self {
        MemoryReplayCache {
            capacity: capacity.max(1),
            seen: Mutex::default(),
        }
    }

    /// Records `proof` at `now`: whether it is used for the first time.
    pub fn first_use_at(&self, proof: &DpopProofId, now: u64) -> bool {
        let mut seen = lock(&self.seen);
        while let Some(&(until, digest)) = seen.by_expiry.first() {
            if until >= now {
                break;
            }
            seen.by_expiry.pop_first();
            seen.proofs.remove(&digest);
        }
        if seen.proofs.contains_key(&proof.digest)
            || seen.floor.is_some_and(|floor| proof.forget_after <= floor)
        {
            return false;
        }
        if seen.proofs.len() >= self.capacity {
            match seen.by_expiry.first().copied() {
                // The proof due to be forgotten first leaves now, and every
                // proof no newer than it is refused from now on.
                Some((until, digest)) if until < proof.forget_after => {
                    seen.by_expiry.pop_first();
                    seen.proofs.remove(&digest);
                    seen.floor = Some(seen.floor.map_or(until, |floor| floor.max(until)));
                }
                // This proof is the oldest: it is refused rather than let
                // a newer one leave.
                _ => return false,
            }
        }
        seen.proofs.insert(proof.digest, proof.forget_after);
        seen.by_expiry.insert((proof.forget_after, proof.digest));
        true
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.seen).proofs.len()
    }
}

#[async_trait]
impl DpopReplayCache for MemoryReplayCache {
    async fn first_use(
        &self,
        proof: &DpopProofId,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
        Ok(self.first_use_at(proof, unix_now()))
    }
}

/// Seconds since the Unix epoch: the clock of proofs' `iat` and of
/// their lifetimes.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proof `n`, made at `issued_at`, living 60 s.
    fn proof(n: u32, issued_at: u64) -> DpopProofId {
        let mut digest = [0u8; 32];
        digest[..4].copy_from_slice(&n.to_be_bytes());
        DpopProofId {
            digest,
            issued_at,
            forget_after: issued_at + 60,
        }
    }

    #[test]
    fn a_proof_is_taken_once_and_forgotten_when_its_lifetime_ends() {
        let cache = MemoryReplayCache::new(10);
        let first = proof(1, 1000);
        assert!(cache.first_use_at(&first, 1000));
        assert!(!cache.first_use_at(&first, 1001));
        assert!(
            !cache.first_use_at(&first, 1060),
            "still within its lifetime"
        );
        assert!(cache.first_use_at(&proof(2, 1000), 1000));
        assert_eq!(cache.len(), 2);
        // Past its lifetime the checker refuses it as too old: the cache
        // lets it go.
        assert!(cache.first_use_at(&proof(3, 1061), 1061));
        assert_eq!(cache.len(), 1);
        assert_eq!(proof(1, 1000).key(), format!("00000001{}", "0".repeat(56)));
    }

    #[test]
    fn a_full_cache_refuses_older_proofs_and_never_takes_one_twice() {
        let cache = MemoryReplayCache::new(3);
        for n in 0..3 {
            assert!(cache.first_use_at(&proof(n, 1000 + u64::from(n)), 1000));
        }
        // Full: a newer proof pushes out the oldest (made at 1000), and
        // from then on proofs made at 1000 or before are refused, that
        // one among them.
        assert!(cache.first_use_at(&proof(3, 1003), 1003));
        assert_eq!(cache.len(), 3);
        assert!(!cache.first_use_at(&proof(0, 1000), 1003), "its replay");
        assert!(
            !cache.first_use_at(&proof(9, 1000), 1003),
            "no newer than it"
        );
        // A proof no newer than all those remembered is refused rather
        // than push out a newer one.
        assert!(!cache.first_use_at(&proof(10, 1001), 1003));
        assert!(cache.first_use_at(&proof(11, 1004), 1004));
        assert!(!cache.first_use_at(&proof(1, 1001), 1004), "pushed out");
    }

    #[test]
    fn a_flood_stays_within_the_bound_and_lets_no_replay_through() {
        let cache = MemoryReplayCache::new(100);
        let mut taken = Vec::new();
        // 10,000 proofs over 100 seconds, each seen at the time it was
        // made, each replayed at once and again a second later.
        for n in 0..10_000u32 {
            let now = 1000 + u64::from(n / 100);
            let fresh = proof(n, now);
            if cache.first_use_at(&fresh, now) {
                taken.push(fresh.clone());
            }
            assert!(!cache.first_use_at(&fresh, now));
            assert!(!cache.first_use_at(&fresh, now + 1));
            assert!(cache.len() <= 100);
        }
        // Some proofs were taken in every second, and none of them twice.
        assert!(taken.len() >= 100, "{}", taken.len());
        for replay in &taken {
            assert!(!cache.first_use_at(replay, 1100));
        }
    }
}
