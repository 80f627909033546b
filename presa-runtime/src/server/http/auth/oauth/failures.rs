//! Failed introspections, limited per network the requests come from, so
//! that a flood of made-up opaque tokens from one place cannot take the
//! introspection endpoint from everyone else.
//!
//! A made-up token costs its sender nothing and the authorization server
//! a call. The caches cannot help against tokens that are each new, so
//! what is limited is who sends them. The rules:
//!
//! 1. a request counts against its [`Peer`]: the network of its client's
//!    address ([`ClientAddress`](crate::server::http::ClientAddress): the
//!    socket peer, or the client a trusted proxy names), grouped as the
//!    endpoint's admission groups anonymous callers (each IPv4 address,
//!    each IPv6 `/64`). A request without a
//!    peer address (a router served without `ConnectInfo`, or
//!    [`OAuth::validate`](super::OAuth::validate) called directly) counts
//!    against one shared peer, `Unknown`; the logs say so once, the first
//!    time that shared peer is refused;
//! 2. each peer may have [`MAX_IN_FLIGHT_PER_PEER`] introspections under
//!    way at once, a quarter of all those allowed, so that a few networks
//!    cannot hold every turn;
//! 3. each peer has a bucket of [`FAILURE_BURST`] failures, one more back
//!    every [`FAILURE_REFILL`]. An introspection takes a token from it
//!    before it is sent. A token the authorization server calls active
//!    gives it back, and so does an introspection the authorization server
//!    did not answer: only the caller's own failures count. An
//!    introspection that is given up (its request cancelled) keeps it;
//! 4. past either limit the request is refused with `503` and
//!    `Retry-After`, not `401`: the token may be good, and a `401` would
//!    send a client (perhaps a neighbour behind the same NAT as the
//!    flood) to sign in again for nothing;
//! 5. the table holds at most [`MAX_PEERS`] peers. A peer with nothing
//!    under way and a full bucket holds nothing worth keeping: it leaves
//!    when its last introspection ends, or when room is needed. When no
//!    peer can leave, new ones share one overflow peer.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use super::bucket::TokenBucket;
use crate::util::lock;

/// The most introspections one peer may have under way (rule 2): a
/// quarter of the turns `introspection` has, which checks that it is.
pub(crate) const MAX_IN_FLIGHT_PER_PEER: usize = 4;
/// The failed introspections one peer may have back to back (rule 3).
pub(crate) const FAILURE_BURST: u32 = 10;
/// How often one more failure is allowed once the burst is spent.
pub(crate) const FAILURE_REFILL: Duration = Duration::from_secs(1);
/// The most peers tracked at once (rule 5).
pub(crate) const MAX_PEERS: usize = 10_000;

/// How long a peer over the in-flight limit is told to wait.
const IN_FLIGHT_RETRY: Duration = Duration::from_secs(1);

/// Whom a request's failures count against (rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peer {
    /// One IPv4 address or one IPv6 `/64`.
    Network(IpAddr),
    /// Every request whose peer address is not known.
    Unknown,
    /// New networks, while the table is full of networks it must keep.
    Overflow,
}

impl From<Option<IpAddr>> for Peer {
    fn from(network: Option<IpAddr>) -> Self {
        network.map_or(Peer::Unknown, Peer::Network)
    }
}

/// The limits of one validator, and what each peer holds.
pub(crate) struct FailureLimits {
    peers: Mutex<Peers>,
    /// Whether the logs were told that callers without an address share
    /// one limit.
    warned_shared: AtomicBool,
}

struct Peers {
    table: HashMap<Peer, Held>,
    /// When the table was last swept for peers that may leave.
    swept: Option<Instant>,
}

/// What one peer holds (rules 2 and 3).
struct Held {
    in_flight: usize,
    failures: TokenBucket,
}

impl Held {
    fn idle(&mut self, now: Instant) -> bool {
        self.in_flight == 0 && self.failures.is_full(now)
    }
}

impl FailureLimits {
    pub fn new() -> Self {
        FailureLimits {
            peers: Mutex::new(Peers {
                table: HashMap::new(),
                swept: None,
            }),
            warned_shared: AtomicBool::new(false),
        }
    }

    /// A turn for one introspection by `peer`, or how long until it may
    /// have one (rules 2 to 4).
    pub fn begin(&self, peer: Peer) -> Result<Turn<'_>, Duration> {
        let now = Instant::now();
        let mut peers = lock(&self.peers);
        let peer = peers.room_for(peer, now);
        let held = peers.table.entry(peer).or_insert_with(|| Held {
            in_flight: 0,
            failures: TokenBucket::full(FAILURE_BURST, FAILURE_REFILL),
        });
        let refused = if held.in_flight >= MAX_IN_FLIGHT_PER_PEER {
            Err(IN_FLIGHT_RETRY)
        } else {
            held.failures.take(now)
        };
        if let Err(retry_after) = refused {
            tracing::info!(
                ?peer,
                ?retry_after,
                "refused to introspect a token: its network's limit of failed introspections is spent"
            );
            if peer == Peer::Unknown && !self.warned_shared.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "requests without the peer's address (ConnectInfo) share one limit of failed \
                     introspections; serve the router with \
                     into_make_service_with_connect_info::<SocketAddr>()"
                );
            }
            return Err(retry_after.max(Duration::from_secs(1)));
        }
        held.in_flight += 1;
        Ok(Turn {
            limits: self,
            peer,
            refunded: false,
        })
    }

    /// How many peers the table holds now.
    #[cfg(test)]
    pub fn peers(&self) -> usize {
        lock(&self.peers).table.len()
    }
}

impl Peers {
    /// `peer`, or the overflow peer when the table is full of peers it
    /// must keep (rule 5). A full table is swept once a second at most,
    /// so that a flood of new networks does not sweep it on every request.
    fn room_for(&mut self, peer: Peer, now: Instant) -> Peer {
        if self.table.len() < MAX_PEERS || self.table.contains_key(&peer) {
            return peer;
        }
        if self
            .swept
            .is_none_or(|at| now >= at + Duration::from_secs(1))
        {
            self.swept = Some(now);
            self.table.retain(|_, held| !held.idle(now));
        }
        if self.table.len() < MAX_PEERS {
            peer
        } else {
            Peer::Overflow
        }
    }
}

/// One introspection under way for one peer. Dropping it ends the turn;
/// the failure it was charged stays charged unless [`Turn::refund`] was
/// called, so that an introspection given up counts as a failure.
#[must_use = "the turn ends when this is dropped"]
pub(crate) struct Turn<'a> {
    limits: &'a FailureLimits,
    peer: Peer,
    refunded: bool,
}

impl Turn<'_> {
    /// The introspection did not fail by the caller's fault: its charge is
    /// given back (rule 3).
    pub fn refund(mut self) {
        self.refunded = true;
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let now = Instant::now();
        let mut peers = lock(&self.limits.peers);
        let Some(held) = peers.table.get_mut(&self.peer) else {
            return;
        };
        held.in_flight = held.in_flight.saturating_sub(1);
        if self.refunded {
            held.failures.give_back(now);
        }
        if held.idle(now) {
            peers.table.remove(&self.peer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(last: u8) -> Peer {
        Peer::Network(IpAddr::from([192, 0, 2, last]))
    }

    #[tokio::test(start_paused = true)]
    async fn failures_are_limited_per_peer_and_successes_cost_nothing() {
        let limits = FailureLimits::new();
        for _ in 0..FAILURE_BURST {
            drop(limits.begin(network(1)).unwrap());
        }
        let refused = limits.begin(network(1)).err().unwrap();
        assert_eq!(refused, FAILURE_REFILL.max(Duration::from_secs(1)));
        // Another network is not touched.
        let other = limits.begin(network(2)).unwrap();
        other.refund();
        // One more failure a refill later, and no more.
        tokio::time::advance(FAILURE_REFILL).await;
        drop(limits.begin(network(1)).unwrap());
        assert!(limits.begin(network(1)).is_err());

        // Successes give their charge back.
        let fresh = network(3);
        for _ in 0..100 {
            limits.begin(fresh).unwrap().refund();
        }
        assert_eq!(limits.peers(), 1, "only the network with failures stays");
    }

    #[tokio::test(start_paused = true)]
    async fn one_peer_holds_at_most_a_quarter_of_the_turns() {
        let limits = FailureLimits::new();
        let held: Vec<_> = (0..MAX_IN_FLIGHT_PER_PEER)
            .map(|_| limits.begin(Peer::Unknown).unwrap())
            .collect();
        assert_eq!(
            limits.begin(Peer::Unknown).err(),
            Some(Duration::from_secs(1))
        );
        assert!(limits.begin(network(1)).is_ok());
        drop(held);
        assert!(limits.begin(Peer::Unknown).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn the_table_is_bounded_and_keeps_the_peers_that_failed() {
        let limits = FailureLimits::new();
        let many = |n: usize| Peer::Network(IpAddr::from((n as u32).to_be_bytes()));
        // A full table of peers that each failed once.
        for n in 0..MAX_PEERS {
            drop(limits.begin(many(n)).unwrap());
        }
        assert_eq!(limits.peers(), MAX_PEERS);
        // A new peer shares the overflow peer's limit, and the table does
        // not grow past its bound.
        for n in 0..FAILURE_BURST as usize {
            drop(limits.begin(many(MAX_PEERS + n)).unwrap());
        }
        assert!(limits.begin(many(2 * MAX_PEERS)).is_err());
        assert_eq!(limits.peers(), MAX_PEERS + 1);
        // Once their buckets are full again, they may leave for new ones.
        tokio::time::advance(FAILURE_REFILL * FAILURE_BURST).await;
        drop(limits.begin(many(3 * MAX_PEERS)).unwrap());
        assert_eq!(limits.peers(), 1);
    }
}
