//! One connection to a server: sending requests and waiting for their
//! responses, reading what the server sends, and routing it to whom it is
//! for. Once the layer above settled the server's era, the connection
//! holds it (`era`), and what the server sends of its own goes to it: a
//! legacy server's requests and session notifications to its legacy side.
//!
//! Layers, bottom up: ping, routing, legacy, era, delivery, reading, requests.

mod delivery;
mod era;
mod legacy;
mod ping;
mod reading;
mod requests;
mod routing;

pub(crate) use era::ServerEra;
pub(crate) use legacy::{LegacyServer, SessionStreams, asks_for_task};
pub(crate) use requests::{
    AnswerInPlace, Connection, Waiting, answer_in_place, request_line, unanswered_in_place,
};
pub(crate) use routing::{NotificationHandler, Reply, cancelled_request, stream_of};
