//! One connection to a server: sending requests and waiting for their
//! responses, reading what the server sends, and routing it to whom it is
//! for. The connection knows nothing of eras, except that a legacy
//! server's own requests and session notifications go to its legacy side.
//!
//! Layers, bottom up: ping, routing, reading, requests, legacy.

mod legacy;
mod ping;
mod reading;
mod requests;
mod routing;

pub(crate) use legacy::{SessionStreams, peer};
pub(crate) use requests::{
    AnswerInPlace, Connection, Waiting, answer_in_place, request_line, unanswered_in_place,
};
pub(crate) use routing::{NotificationHandler, Reply, cancelled_request, stream_of};
