//! The stdio transport on Windows, and on every other target that is not
//! Unix: a pipe cannot be waited on there, so the reading thread blocks in
//! its read, and the stop abandons it, ending the stream with the chunks
//! already handed over. A child gets no request to end before it is
//! terminated. No standard stream is on the reactor here ([`NoPipe`]).

use std::future::Future;
use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::Child;
use tokio::sync::mpsc;

use crate::transport::stop::StopReading;

/// What the reading thread can read.
pub(super) trait Source: Read + Send + 'static {}
impl<T: Read + Send + 'static> Source for T {}

/// The thread cannot be woken here: it reads until the stop closes the
/// channel it hands chunks to.
pub(super) struct Readiness;

impl Readiness {
    pub(super) fn new(_: &StopReading) -> Self {
        Readiness
    }

    /// Always ready: the read itself is where the thread waits.
    pub(super) fn wait(&mut self, _: &impl Read) -> bool {
        true
    }
}

/// The chunks the reading thread hands over, until reading stops. The
/// thread may be blocked in a read for good, so the stop closes the
/// channel: what it already holds is delivered, then the stream ends.
pub(super) fn delivered(
    mut received: mpsc::Receiver<io::Result<Bytes>>,
    stop: StopReading,
) -> impl Stream<Item = io::Result<Bytes>> + Send + Unpin {
    let mut stopped = Box::pin(stop.stopped());
    futures::stream::poll_fn(move |cx| {
        if stopped.as_mut().poll(cx).is_ready() {
            received.close();
        }
        received.poll_recv(cx)
    })
}

/// Windows has no request to end that a console-less child can catch:
/// Ctrl-C reaches only processes on the sender's console, and sending it
/// there would interrupt the client too. So the closed stdin is the only
/// request, and the next step is TerminateProcess.
pub(super) fn terminate(_: &Child) -> bool {
    false
}

/// A standard stream on the reactor: there is none on Windows (tokio reads
/// no pipe without a thread there), so the type has no value and the
/// threads always serve.
pub(super) enum NoPipe {}

/// Never: stdin stays on its thread.
pub(super) fn stdin_pipe() -> Option<NoPipe> {
    None
}

/// Never: stdout stays on its thread.
pub(super) fn stdout_pipe() -> Option<NoPipe> {
    None
}

impl AsyncRead for NoPipe {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match *self {}
    }
}

impl AsyncWrite for NoPipe {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        match *self {}
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match *self {}
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match *self {}
    }
}
