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

use std::future::Future;
use std::io::{self, Write};
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::SinkExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio_util::io::{CopyToBytes, SinkWriter, StreamReader};
use tokio_util::sync::PollSender;

use super::lines::{UntilStopped, spawn_io};
use super::{FrameChannel, StopReading};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix::{Readiness, Source, delivered, stdin_pipe, stdout_pipe, terminate};
#[cfg(not(unix))]
mod windows;
#[cfg(not(unix))]
use windows::{Readiness, Source, delivered, stdin_pipe, stdout_pipe, terminate};

/// How much one read of stdin takes at most.
const READ_CHUNK: usize = 64 * 1024;

/// This process's stdin and stdout as a frame channel, with messages of at
/// most `max_message_size` bytes each, each on the reactor or on a thread
/// of its own (see the module docs).
///
/// # Panics
///
/// If the operating system refuses to start a thread that one of them
/// needs (or, on Unix, to make the socket pair that wakes the reading
/// one).
pub fn stdio(max_message_size: usize) -> FrameChannel {
    let stop = StopReading::default();
    let reader: Box<dyn AsyncRead + Send + Unpin> = match stdin_pipe() {
        Some(pipe) => Box::new(UntilStopped::new(pipe, &stop)),
        None => Box::new(threaded_reader(io::stdin(), stop.clone())),
    };
    let writer: Box<dyn AsyncWrite + Send + Unpin> = match stdout_pipe() {
        Some(pipe) => Box::new(pipe),
        None => Box::new(threaded_writer(io::stdout())),
    };
    spawn_io(reader, writer, max_message_size, None, stop)
}

/// `source` read on a thread of its own, as an async reader that ends
/// once `stop` is called and what the thread read is delivered.
fn threaded_reader(mut source: impl Source, stop: StopReading) -> impl AsyncRead + Send + Unpin {
    let (chunks, received) = mpsc::channel::<io::Result<Bytes>>(1);
    let mut ready = Readiness::new(&stop);
    let reading = move || {
        let mut buffer = vec![0u8; READ_CHUNK];
        while ready.wait(&source) {
            let chunk = match source.read(&mut buffer) {
                Ok(0) => return,
                Ok(n) => Ok(Bytes::copy_from_slice(&buffer[..n])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = chunk.is_err();
            if chunks.blocking_send(chunk).is_err() || failed {
                return;
            }
        }
    };
    std::thread::Builder::new()
        .name("presa-stdin".into())
        .spawn(reading)
        .expect("the operating system starts a thread");
    StreamReader::new(delivered(received, stop))
}

/// `sink` written on a thread of its own, as an async writer: a write
/// completes once the thread has the bytes, and shutting the writer down
/// completes once the thread has written and flushed them all.
fn threaded_writer(mut sink: impl Write + Send + 'static) -> impl AsyncWrite + Send + Unpin {
    let (chunks, mut received) = mpsc::channel::<Bytes>(1);
    let (finished, done) = oneshot::channel();
    let writing = move || {
        while let Some(chunk) = received.blocking_recv() {
            if sink.write_all(&chunk).and_then(|()| sink.flush()).is_err() {
                break;
            }
        }
        let _ = finished.send(());
    };
    std::thread::Builder::new()
        .name("presa-stdout".into())
        .spawn(writing)
        .expect("the operating system starts a thread");
    let sender = PollSender::new(chunks)
        .sink_map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the writer thread ended"));
    ThreadWriter {
        chunks: SinkWriter::new(CopyToBytes::new(sender)),
        done,
    }
}

/// The async end of a writer thread.
struct ThreadWriter<W> {
    chunks: W,
    /// Resolves when the thread has written everything and ended.
    done: oneshot::Receiver<()>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for ThreadWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.chunks).poll_write(cx, bytes)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.chunks).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(Pin::new(&mut self.chunks).poll_shutdown(cx))?;
        // Ended either way: written out, or the thread gave up on an error.
        Pin::new(&mut self.done).poll(cx).map(|_| Ok(()))
    }
}

/// A server process spawned by a client. Dropping it without
/// [`shutdown`](StdioChild::shutdown) runs the same escalation in the
/// background.
#[derive(Debug)]
pub struct StdioChild {
    child: Option<Child>,
    close_stdin: Option<oneshot::Sender<()>>,
    grace: Duration,
}

impl StdioChild {
    /// Spawns `command` with piped stdin and stdout (stderr is inherited)
    /// and frames its streams.
    pub fn spawn(
        mut command: Command,
        max_message_size: usize,
    ) -> io::Result<(FrameChannel, StdioChild)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(false);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (close_tx, close_rx) = oneshot::channel();
        let stop = StopReading::default();
        let stdout = UntilStopped::new(stdout, &stop);
        let channel = spawn_io(stdout, stdin, max_message_size, Some(close_rx), stop);
        Ok((
            channel,
            StdioChild {
                child: Some(child),
                close_stdin: Some(close_tx),
                grace: Duration::from_secs(2),
            },
        ))
    }

    /// How long each shutdown step waits for the process to exit (default 2 s).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// Closes the server's stdin and waits for it to exit; after the grace
    /// period sends SIGTERM, and after another, SIGKILL. On Windows, after
    /// the grace period, terminates the process (`TerminateProcess`, exit
    /// code 1): there is no SIGTERM step.
    pub async fn shutdown(mut self) -> io::Result<ExitStatus> {
        let child = self
            .child
            .take()
            .expect("the child is present until shutdown");
        escalate(child, self.close_stdin.take(), self.grace).await
    }
}

async fn escalate(
    mut child: Child,
    close_stdin: Option<oneshot::Sender<()>>,
    grace: Duration,
) -> io::Result<ExitStatus> {
    if let Some(close) = close_stdin {
        let _ = close.send(());
    }
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status;
    }
    if terminate(&child)
        && let Ok(status) = tokio::time::timeout(grace, child.wait()).await
    {
        return status;
    }
    // SIGKILL on Unix, TerminateProcess on Windows.
    child.kill().await?;
    child.wait().await
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let close = self.close_stdin.take();
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                let grace = self.grace;
                rt.spawn(async move {
                    let _ = escalate(child, close, grace).await;
                });
            }
            Err(_) => {
                let _ = child.start_kill();
            }
        }
    }
}
