//! The protocol's legacy side: the session a server of 2025-11-25 or
//! earlier opens with `initialize`, kept and opened anew; sending within
//! it; what a session stream holds; and each tool's task support.
//!
//! Layers, bottom up: send, tool_tasks, handshake, session_stream, session.

mod handshake;
mod send;
mod session;
mod session_stream;
mod tool_tasks;

pub(crate) use session::{Fallback, LegacySession, fall_back};
pub(crate) use session_stream::SessionStream;
pub(crate) use tool_tasks::asks_for_task;
