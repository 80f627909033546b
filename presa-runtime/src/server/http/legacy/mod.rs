//! The legacy Streamable HTTP transport (2025-03-26 to 2025-11-25) beside
//! the modern one, on the same endpoint: the endpoint asks
//! [`LegacyTransport`] whether it takes each POST, and has it answer every
//! `GET` and `DELETE`.
//!
//! A POST is legacy when it opens a session (`initialize` without the
//! modern `_meta`), or names one (`Mcp-Session-Id`) without the
//! modern `Mcp-Method` header; everything else is modern, as before. `GET` and `DELETE` with a session
//! id are legacy; without one they are `405`, as for a modern client.
//! Whether a POST is legacy is written in its body, so its body is read
//! first, as a modern POST's is: with one of its caller's body slots, and
//! within the body's size, time and pace (see `endpoint`, steps 1 to 4).
//! A legacy request then goes, in order:
//!
//! 1. `initialize` opens a session (see `session`, which says how many
//!    one caller may hold) and is answered with JSON and its
//!    `Mcp-Session-Id`;
//! 2. any other request needs a live session of the same caller: no
//!    `Mcp-Session-Id` is `400`, an unknown, expired or ended one `404`;
//!    an `MCP-Protocol-Version` header other than the session's is `400`;
//! 3. a request takes one of its caller's request slots, as a modern
//!    request does (see `admission`; `503` past the limit), then its room
//!    in the memory budget (`503`), and is answered with an event stream
//!    (see `events`): a priming event, what the request sends, its
//!    response. The request runs on a task of its own, which holds the
//!    slot until it ends: losing the connection does not cancel it (the
//!    client resumes with `GET` and `Last-Event-ID`),
//!    `notifications/cancelled` does;
//! 4. a response from the client goes to the request of the server's that
//!    waits for it, and is accepted with `202`, as are notifications;
//! 5. `GET` without `Last-Event-ID` reads the standalone stream (one
//!    reader at a time: `409` for a second), with it resumes the stream
//!    the id names (`400` for an id the session never gave); either holds
//!    one of the caller's stream slots while it is open (`503` past the
//!    limit);
//! 6. `DELETE` ends the session: `200`, then `404` for its id.
//!
//! # Replicas that share sessions
//!
//! With [`LegacySessions::shared`], the replicas of a server keep their
//! sessions in one store (`server::legacy::shared`), so that a load
//! balancer may send each request of a session to any replica. The rules
//! above hold on every replica, with these, in order:
//!
//! 1. `initialize` stores the session's record; every other request
//!    reads it (one store round trip, which also starts its idle time
//!    again) and is `404` when the record is gone, or is another
//!    caller's. A replica that does not hold the session yet builds it
//!    from the record, and from then on hears the session's channel;
//! 2. `logging/setLevel` and `resources/subscribe` change the record, and
//!    every replica holding the session takes the new one;
//! 3. a request runs on the replica it reached. A question it asks the
//!    client names that replica, so the answer, whichever replica it
//!    reaches, goes back to it (`replica`);
//! 4. `notifications/cancelled` reaches the request on whichever
//!    replica runs it;
//! 5. the standalone stream stays on the replica that holds it, which
//!    hears every replica's messages for it and every replica's list
//!    changes and resource updates. A message sent while no replica holds
//!    it waits on the replica that sent it until one opens it. Two
//!    replicas do not know of each other's reader, so a second reader on
//!    another replica is not refused with `409`, and both read;
//! 6. an event id names its replica. A client that resumes a request's
//!    stream on another replica gets it passed on from the holder, or
//!    the request's error at once when the holder is gone (`relay`). The
//!    standalone stream does not move: resuming it on another replica
//!    opens that replica's afresh, so the client misses what the lost
//!    connection had not yet written;
//! 7. `DELETE` ends the session in the store and on every replica; a
//!    session that expires in the store is `404` on every replica from
//!    its next request. An open standalone stream keeps its session in
//!    use: its holder starts the idle time again every half of it, and
//!    ends the stream when the store no longer has the session;
//! 8. a store that cannot be reached is `503` with `Retry-After`.
//!
//! The limits of rules 1 and 2 above (sessions per server and per
//! caller) count the sessions each replica holds.
//!
//! Layers, bottom up: events, session, relay, replica, transport.

pub(super) mod events;
mod relay;
mod replica;
pub(super) mod session;
mod transport;

pub(crate) use transport::{EndpointParts, LegacyTransport};
pub use transport::{LEGACY_RETRY, LegacySessions};
