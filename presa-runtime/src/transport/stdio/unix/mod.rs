//! The stdio transport on Unix: stdin and stdout that are pipes or
//! sockets are read and written on the reactor (`pipe`); otherwise the
//! reading thread waits with poll(2) for stdin or the stop, so it never
//! sits in a read the stop cannot end. A child is asked to end with
//! SIGTERM before it is killed.
//!
//! Layers, bottom up: pipe, reading, signal.

mod pipe;
mod reading;
mod signal;

pub(super) use pipe::{stdin_pipe, stdout_pipe};
pub(super) use reading::{Readiness, Source, delivered};
pub(super) use signal::terminate;
