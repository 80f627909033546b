//! This process's stdin and stdout as a frame channel, each on the reactor
//! or on a thread of its own.

use std::future::Future;
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use futures::SinkExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio_util::io::{CopyToBytes, SinkWriter, StreamReader};
use tokio_util::sync::PollSender;

#[cfg(unix)]
use super::unix::{Readiness, Source, delivered, stdin_pipe, stdout_pipe};
#[cfg(not(unix))]
use super::windows::{Readiness, Source, delivered, stdin_pipe, stdout_pipe};
use crate::transport::channel::FrameChannel;
use crate::transport::lines::{UntilStopped, spawn_io};
use crate::transport::stop::StopReading;

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
