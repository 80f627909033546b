//! The protocol's legacy side: the session a server of 2025-11-25 or
//! earlier opens with `initialize`, kept and opened anew; sending within
//! it; and what a session stream holds.
//!
//! Layers, bottom up: send, handshake, session_stream, session.

mod handshake;
mod send;
mod session;
mod session_stream;

pub(crate) use session::{Fallback, Opening, fall_back, request};
pub(crate) use session_stream::SessionStream;
