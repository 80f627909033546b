//! Passing a stream on from the replica that holds it to the replica a
//! client reconnected to.
//!
//! A legacy client that lost a request's event stream comes back with
//! `GET` and `Last-Event-ID`, and a load balancer without affinity may
//! send it to another replica than the one running the request. The
//! event id names that replica and the request (rule 1 of `events`), so
//! the replica the client reached, by these rules, in order:
//!
//! 1. listens on a fresh relay channel, then asks the holder, on the
//!    holder's own channel, to pass the stream on from after that event;
//! 2. when nobody hears the ask, the holder is gone, and its request with
//!    it: the client gets the request's error response at once ("the
//!    replica that ran this request stopped"), so it can send the request
//!    again instead of waiting for an answer that cannot come;
//! 3. otherwise it waits at most [`RELAY_ANSWER`] for the holder to say
//!    whether it has the stream: `Unknown` is `400`, as for an unknown
//!    event id on one replica, and no answer is `503` with `Retry-After`;
//! 4. the holder then publishes each event after the client's, in order,
//!    and `End` once the stream is complete; the client's replica writes
//!    them as they come, under the holder's event ids, so a later
//!    reconnection names the holder again;
//! 5. the relay ends when the client goes: its replica stops listening,
//!    and the holder, whose next event (or a keep-alive every
//!    [`RELAY_KEEPALIVE`]) then reaches nobody, stops passing it on.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::task::AbortHandle;

use super::events::{StreamLog, StreamName, follow};
use super::session::HttpSessions;
use crate::server::legacy::shared::note::{
    RelayNote, ReplicaNote, decode, encode, relay_channel, replica_channel,
};
use crate::server::legacy::shared::{SessionStoreError, SharedSessions};
use crate::util::Budget;

/// How long a replica waits for another to say whether it holds a stream
/// (rule 3).
pub(super) const RELAY_ANSWER: Duration = Duration::from_secs(10);

/// How often a replica passing a stream on checks that someone still
/// reads it, while the stream is quiet (rule 5).
pub(super) const RELAY_KEEPALIVE: Duration = Duration::from_secs(15);

/// What became of an ask to pass a stream on.
pub(super) enum Relayed {
    /// The stream, as it comes, and the guard that stops the relay.
    Passing(Arc<StreamLog>, RelayGuard),
    /// The replica that held the stream is gone (rule 2).
    HolderGone,
    /// The holder has no such stream (rule 3).
    Unknown,
    /// The holder did not answer in time (rule 3).
    NoAnswer,
    /// The store could not be reached.
    Unavailable(SessionStoreError),
}

/// The drop guard of a relay on the client's side: dropping it (the
/// client went) stops listening, which stops the holder (rule 5).
pub(super) struct RelayGuard(AbortHandle);

impl Drop for RelayGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Asks `holder` to pass on stream `name` of `session` after event
/// `after` (rules 1 to 4). Kept events are charged to `budget`.
pub(super) async fn relay(
    shared: &SharedSessions,
    session: &str,
    name: &StreamName,
    holder: &str,
    after: u64,
    budget: Budget,
) -> Relayed {
    let to = relay_channel();
    let mut heard = match shared.store().listen(&to).await {
        Ok(heard) => heard,
        Err(error) => return Relayed::Unavailable(error),
    };
    let ask = ReplicaNote::Replay {
        session: session.to_owned(),
        stream: name.number,
        after,
        to,
    };
    match shared
        .store()
        .publish(&replica_channel(holder), encode(&ask))
        .await
    {
        Ok(0) => return Relayed::HolderGone,
        Ok(_) => {}
        Err(error) => return Relayed::Unavailable(error),
    }
    let first = tokio::time::timeout(RELAY_ANSWER, heard.next()).await;
    match first.ok().flatten().and_then(|bytes| decode(&bytes)) {
        Some(RelayNote::Found) => {}
        Some(RelayNote::Unknown) => return Relayed::Unknown,
        _ => return Relayed::NoAnswer,
    }
    let log = StreamLog::mirror(name.clone(), after);
    let writing = Arc::clone(&log);
    let task = tokio::spawn(async move {
        while let Some(bytes) = heard.next().await {
            match decode(&bytes) {
                Some(RelayNote::Event { seq, line }) => {
                    let charge = budget.force(line.len());
                    writing.push_at(seq, line, charge);
                }
                Some(RelayNote::End) => break,
                _ => {}
            }
        }
        writing.finish();
    });
    Relayed::Passing(log, RelayGuard(task.abort_handle()))
}

/// The holder's side: passes stream `stream` of `session` on, after event
/// `after`, on channel `to` (rules 3 to 5), on a task of its own.
pub(super) fn pass_on(
    sessions: &HttpSessions,
    shared: SharedSessions,
    session: &str,
    stream: u64,
    after: u64,
    to: String,
) {
    let log = sessions
        .find(session)
        .and_then(|session| session.log(stream))
        .filter(|log| log.knows(after));
    tokio::spawn(async move {
        let Some(log) = log else {
            shared.tell(&to, &RelayNote::Unknown).await;
            return;
        };
        if shared.tell(&to, &RelayNote::Found).await == 0 {
            return;
        }
        let mut events = pin!(follow(log, after));
        let mut keepalive = tokio::time::interval(RELAY_KEEPALIVE);
        keepalive.reset();
        loop {
            tokio::select! {
                batch = events.next() => {
                    let Some(batch) = batch else { break };
                    for (seq, line) in batch {
                        let event = RelayNote::Event { seq, line: line.to_string() };
                        if shared.tell(&to, &event).await == 0 {
                            return;
                        }
                    }
                }
                _ = keepalive.tick() => {
                    if shared.tell(&to, &RelayNote::Found).await == 0 {
                        return;
                    }
                }
            }
        }
        shared.tell(&to, &RelayNote::End).await;
    });
}
