//! The stdio transport: newline-delimited JSON on a process's standard
//! streams.
//!
//! The server side reads stdin and writes stdout; only MCP messages go to
//! stdout, logs go to stderr. The client side spawns the server and, on
//! shutdown, closes its stdin, waits, then sends SIGTERM, then SIGKILL; on
//! Windows it closes stdin, waits, then terminates the process.
//!
//! The server's stdin and stdout are never read or written where a
//! blocked call could hold the process. A read of stdin, or a write to a
//! stdout that nobody reads, blocks in the operating system and cannot
//! be cancelled; on tokio's blocking pool it would keep the runtime, and
//! so the process, from ending. So, for each of the two:
//!
//! 1. on Unix, a pipe or a socket (what a host gives the server it
//!    spawns) is made non-blocking and read or written on the reactor
//!    (`unix/pipe`): nothing blocks, and a request crosses no thread of
//!    presa's own on its way in or out;
//! 2. anything else (a terminal, a file, and every stream on Windows) is
//!    read or written on a thread of its own, which simply ends with the
//!    process, so a server whose peer stopped reading still exits once
//!    its drain period is over.
//!
//! When reading stops ([`StopReading`](super::StopReading)), every byte
//! taken from stdin is still delivered, so no request read from the pipe
//! is lost. On the reactor, reading simply stops. On Unix the thread
//! waits for stdin to be readable before it reads, beside a socket that
//! the stop writes to, so it never sits in a read the stop cannot end: it
//! hands over what it holds and returns. Elsewhere (Windows, which cannot
//! wait on a pipe so) it blocks in its read; the stop then delivers the
//! chunks already handed over, and the one it is reading, or holding
//! while the channel is full, is lost.
//!
//! What differs between the two lives in one file for each, behind one
//! `cfg` apiece: `unix` (pipes on the reactor, waiting on stdin with
//! poll(2), and SIGTERM) and `windows` (every target that is not Unix: no
//! stream on the reactor, a blocking read that the stop abandons, and no
//! request to end before the process is terminated). Both offer the same
//! six items: `stdin_pipe`, `stdout_pipe`, `Source`, `Readiness`,
//! `delivered` and `terminate`.
//!
//! On top of them, `streams` frames this process's own stdin and stdout
//! ([`stdio`]), and `child` spawns a server and shuts it down
//! ([`StdioChild`]).
//!
//! Layers, bottom up: unix, windows, streams, child.

mod child;
mod streams;
#[cfg(unix)]
mod unix;
#[cfg(not(unix))]
mod windows;

pub use child::StdioChild;
pub use streams::stdio;
