//! The legacy side of the HTTP link (2025-11-25 and earlier): the session
//! `initialize` opens, with its session id, its GET stream and its
//! resumable streams.
//!
//! Everything only a legacy server needs lives here. The modern files
//! reach it through few doors: the client's messages handed here first,
//! with the session slot kept here beside the link (`dispatch`), and the
//! link's `OnClose`, built here, which ends the session with `DELETE`
//! (`dispatch`). Dropping the legacy era is dropping this folder and
//! those.
//!
//! Layers, bottom up: session, stream, exchange.

mod exchange;
mod session;
mod stream;

pub(super) use exchange::{forward, on_close};
pub(super) use session::LegacyLink;
