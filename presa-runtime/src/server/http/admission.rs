//! Per-subject admission: what one caller may hold of the endpoint at
//! once, so that one caller cannot starve the others.
//!
//! A stdio connection is one caller, and it caps itself (64 listen streams,
//! `max_in_flight` requests). Over HTTP every request is its own connection,
//! so the caps go with the caller instead: every request is counted against
//! its [`Account`], by these rules:
//!
//! 1. the account is the caller's subject; an anonymous caller's is the
//!    network it comes from (below);
//! 2. a POST takes one of the account's [`MAX_BODY_READS_PER_SUBJECT`]
//!    body slots while its body is read, before a byte of the body is
//!    charged to the memory budget, and gives it back once the body is in
//!    (see `body`, which bounds how long that takes). The request in the
//!    body then takes the slot its method needs: a `subscriptions/listen`
//!    stream, or a legacy session's `GET` stream, one of the account's
//!    [`MAX_LISTEN_STREAMS_PER_SUBJECT`] stream slots; any other request
//!    one of its [`MAX_REQUESTS_PER_SUBJECT`] request slots. Past any of
//!    them, the request is refused with `-31001` (`503` with
//!    `Retry-After`), saying which limit and how to free room, before it
//!    is charged to the memory budget or run: a refused request holds
//!    nothing;
//! 3. a slot is an [`Admitted`] guard, held by the answer until it is out
//!    (a modern request's response, a legacy request's task, a `GET`
//!    stream's connection; a body slot, by the read of the body); dropping
//!    it gives the slot back, whatever ends the request: its end, the
//!    client hanging up, a cancellation;
//! 4. an account's entry goes once it holds nothing, so the table holds no
//!    more entries than there are requests in flight.
//!
//! # Why a body has a slot of its own
//!
//! The body is read before anything else about the request is known, and
//! a body that arrives slowly holds its connection and its bytes all that
//! time. Without a per-subject bound on bodies being read, one caller
//! could open hundreds of slow ones and fill the memory budget that every
//! caller shares. The body cannot take a request slot instead, for two
//! reasons: which slot a request needs (a stream or a request) is written
//! in its body; and a caller whose requests all run must still be able to
//! send what ends them, such as a legacy client's answer to the server's
//! question, or its `notifications/cancelled`. So the body takes a slot of
//! its own kind, held only while its bytes arrive, and handed back before
//! the request takes its slot: a request never holds both at once.
//!
//! # Anonymous callers
//!
//! Anonymous callers have no subject to tell them apart, and counting them
//! all as one would let one anonymous client shut out every other. So an
//! anonymous caller is counted by the address it connects from, the one
//! thing about it that it cannot multiply as cheaply as connections: each
//! IPv4 address, and each IPv6 `/64` (what one host is usually given, and
//! may pick any address in), gets the limits of one subject. Clients behind
//! one proxy or NAT share its address, and with it one quota.
//!
//! The address is the request's [`ClientAddress`] (see `forwarded`): the
//! socket peer's, or, behind a proxy named in
//! [`trusted_proxies`](super::StreamableHttp::trusted_proxies), the client
//! that proxy names. So clients behind one trusted proxy each get their
//! own quota, and a header sent by anyone else cannot move a client to
//! another quota. The peer comes from axum's `ConnectInfo`:
//! [`StreamableHttp::serve`](super::StreamableHttp::serve) provides it; an
//! application that mounts the router itself provides it by serving with
//! `into_make_service_with_connect_info::<SocketAddr>()`. Without it, the
//! endpoint cannot tell anonymous callers apart: they share one quota, as
//! one subject, and the endpoint says so once in the logs. Authenticating
//! callers is the way to give each its own.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::request::Parts;

use super::forwarded::ClientAddress;
use crate::server::caller::Caller;
use crate::server::request::reply::{too_many_bodies, too_many_requests, too_many_streams};
use crate::telemetry::metrics;
use crate::util::lock;
use crate::wire::ErrorObject;

/// How many listen streams (and legacy `GET` streams) one subject may hold
/// open at once over HTTP, by default: what a stdio connection may hold.
pub const MAX_LISTEN_STREAMS_PER_SUBJECT: usize = 64;

/// How many requests one subject may have in progress at once over HTTP,
/// by default.
pub const MAX_REQUESTS_PER_SUBJECT: usize = 256;

/// How many request bodies one subject may be sending at once over HTTP,
/// by default. With the default body limit (4 MiB), one subject's bodies
/// hold at most 64 MiB of the memory budget while they arrive.
pub const MAX_BODY_READS_PER_SUBJECT: usize = 16;

/// Whom a request is counted against (rule 1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Account {
    /// An authenticated subject.
    Subject(String),
    /// Anonymous callers from one IPv4 address or one IPv6 `/64`.
    Network(IpAddr),
    /// Anonymous callers whose address the endpoint does not know.
    Anonymous,
}

impl Account {
    /// Who a refusal speaks to, as the subject of its sentence.
    pub fn who(&self) -> &'static str {
        match self {
            Account::Subject(_) => "you",
            Account::Network(_) => "callers from your address",
            Account::Anonymous => "anonymous callers",
        }
    }
}

/// The network an address counts as: itself for IPv4 (an IPv4-mapped IPv6
/// address is its IPv4 address), its `/64` for IPv6.
fn network(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        v4 => v4,
    }
}

/// The network of the client a request comes from, when the endpoint
/// knows its address ([`ClientAddress`]): what the OAuth resource server
/// limits failed introspections by.
#[cfg(feature = "oauth")]
pub(crate) fn client_network(parts: &Parts) -> Option<IpAddr> {
    ClientAddress::of(parts).map(network)
}

/// What a request takes of its account (rule 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A stream the client holds open for the server to write to.
    Stream,
    /// A request in progress.
    Request,
    /// A request body being read.
    Body,
}

/// What one account holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Held {
    streams: usize,
    requests: usize,
    bodies: usize,
}

impl Held {
    fn count(self, slot: Slot) -> usize {
        match slot {
            Slot::Stream => self.streams,
            Slot::Request => self.requests,
            Slot::Body => self.bodies,
        }
    }

    fn count_mut(&mut self, slot: Slot) -> &mut usize {
        match slot {
            Slot::Stream => &mut self.streams,
            Slot::Request => &mut self.requests,
            Slot::Body => &mut self.bodies,
        }
    }
}

type Table = Arc<Mutex<HashMap<Account, Held>>>;

/// The per-subject limits of one endpoint, and what each account holds.
pub(super) struct Admission {
    /// The most streams one account may hold.
    pub max_streams: usize,
    /// The most requests one account may have in progress.
    pub max_requests: usize,
    /// The most bodies one account may be sending at once.
    pub max_bodies: usize,
    table: Table,
    /// Whether the logs were told that anonymous callers share one quota.
    warned_shared: AtomicBool,
}

impl Admission {
    pub fn new() -> Self {
        Admission {
            max_streams: MAX_LISTEN_STREAMS_PER_SUBJECT,
            max_requests: MAX_REQUESTS_PER_SUBJECT,
            max_bodies: MAX_BODY_READS_PER_SUBJECT,
            table: Arc::default(),
            warned_shared: AtomicBool::new(false),
        }
    }

    /// The account of `caller`, whose request came with `parts` (rule 1).
    pub fn account(&self, caller: &Caller, parts: &Parts) -> Account {
        if let Some(subject) = caller.principal() {
            return Account::Subject(subject);
        }
        match ClientAddress::of(parts) {
            Some(client) => Account::Network(network(client)),
            None => {
                if !self.warned_shared.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "anonymous requests come without the peer's address (ConnectInfo), so \
                         they share one per-subject quota; serve the router with \
                         into_make_service_with_connect_info::<SocketAddr>()"
                    );
                }
                Account::Anonymous
            }
        }
    }

    /// One `slot` of `account`, or the `-31001` that refuses it (rule 2).
    pub fn admit(&self, account: &Account, slot: Slot) -> Result<Admitted, ErrorObject> {
        let limit = match slot {
            Slot::Stream => self.max_streams,
            Slot::Request => self.max_requests,
            Slot::Body => self.max_bodies,
        };
        let mut table = lock(&self.table);
        let held = table.get(account).copied().unwrap_or_default();
        if held.count(slot) >= limit {
            tracing::warn!(
                ?account,
                ?slot,
                limit,
                "refused a request past its caller's limit"
            );
            let who = account.who();
            return Err(match slot {
                Slot::Stream => {
                    metrics::refused("subject_streams");
                    too_many_streams(who, limit)
                }
                Slot::Request => {
                    metrics::refused("subject_requests");
                    too_many_requests(who, limit)
                }
                Slot::Body => {
                    metrics::refused("subject_bodies");
                    too_many_bodies(who, limit)
                }
            });
        }
        *table.entry(account.clone()).or_default().count_mut(slot) += 1;
        Ok(Admitted {
            table: Arc::clone(&self.table),
            account: account.clone(),
            slot,
        })
    }

    /// How many accounts hold something now.
    #[cfg(test)]
    pub(super) fn accounts(&self) -> usize {
        lock(&self.table).len()
    }
}

/// One slot of one account, given back when dropped (rules 3 and 4).
#[must_use = "the slot is given back when this is dropped"]
pub(super) struct Admitted {
    table: Table,
    account: Account,
    slot: Slot,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut table = lock(&self.table);
        if let Some(held) = table.get_mut(&self.account) {
            let count = held.count_mut(self.slot);
            *count = count.saturating_sub(1);
            if *held == Held::default() {
                table.remove(&self.account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use axum::extract::ConnectInfo;

    use super::*;

    fn parts(peer: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder().body(()).unwrap();
        if let Some(peer) = peer {
            let peer: SocketAddr = peer.parse().unwrap();
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        request.into_parts().0
    }

    #[test]
    fn each_account_has_its_own_slots_and_its_entry_goes_with_them() {
        let mut admission = Admission::new();
        admission.max_streams = 2;
        admission.max_requests = 1;
        let alice = Account::Subject("alice".into());
        let bob = Account::Subject("bob".into());
        let first = admission.admit(&alice, Slot::Stream).unwrap();
        let second = admission.admit(&alice, Slot::Stream).unwrap();
        let refused = admission.admit(&alice, Slot::Stream).err().unwrap();
        assert_eq!(refused.code, crate::wire::codes::SERVER_BUSY);
        assert!(
            refused.message.contains("you already hold 2 open streams"),
            "{}",
            refused.message
        );
        let request = admission.admit(&alice, Slot::Request).unwrap();
        let refused = admission.admit(&alice, Slot::Request).err().unwrap();
        assert!(
            refused.message.contains("1 request in progress"),
            "{}",
            refused.message
        );
        let bobs = admission.admit(&bob, Slot::Stream).unwrap();
        assert_eq!(admission.accounts(), 2);

        drop(first);
        let again = admission.admit(&alice, Slot::Stream).unwrap();
        drop((second, again, request, bobs));
        assert_eq!(admission.accounts(), 0, "no entry outlives its slots");
    }

    #[test]
    fn a_body_slot_is_a_kind_of_its_own() {
        let mut admission = Admission::new();
        admission.max_bodies = 1;
        admission.max_requests = 1;
        let alice = Account::Network("192.0.2.7".parse().unwrap());
        let reading = admission.admit(&alice, Slot::Body).unwrap();
        let refused = admission.admit(&alice, Slot::Body).err().unwrap();
        assert_eq!(refused.code, crate::wire::codes::SERVER_BUSY);
        assert_eq!(
            refused.message,
            "Server busy: callers from your address are already sending 1 request body, the \
             most one caller may send at once; finish sending one, then retry"
        );
        let running = admission.admit(&alice, Slot::Request).unwrap();
        drop((reading, running));
        assert_eq!(admission.accounts(), 0);
    }

    #[test]
    fn a_refusal_takes_nothing() {
        let mut admission = Admission::new();
        admission.max_requests = 1;
        let alice = Account::Subject("alice".into());
        let held = admission.admit(&alice, Slot::Request).unwrap();
        for _ in 0..10 {
            assert!(admission.admit(&alice, Slot::Request).is_err());
        }
        drop(held);
        assert_eq!(admission.accounts(), 0);
        let _held = admission.admit(&alice, Slot::Request).unwrap();
    }

    #[test]
    fn anonymous_callers_count_by_their_network() {
        let admission = Admission::new();
        let anonymous = Caller::anonymous();
        let account = |peer| admission.account(&anonymous, &parts(peer));
        assert_eq!(
            account(Some("192.0.2.7:4000")),
            Account::Network("192.0.2.7".parse().unwrap())
        );
        assert_eq!(
            account(Some("[::ffff:192.0.2.7]:4000")),
            account(Some("192.0.2.7:5000")),
            "an IPv4-mapped address is its IPv4 address"
        );
        assert_eq!(
            account(Some("[2001:db8:1:2:aaaa::1]:4000")),
            account(Some("[2001:db8:1:2:bbbb::9]:4000")),
            "one IPv6 /64 is one host"
        );
        assert_ne!(
            account(Some("[2001:db8:1:2::1]:4000")),
            account(Some("[2001:db8:1:3::1]:4000"))
        );
        assert_eq!(account(None), Account::Anonymous);
        let alice = admission.account(&Caller::subject("alice"), &parts(Some("192.0.2.7:1")));
        assert_eq!(alice, Account::Subject("alice".into()), "a subject wins");
    }
}
