//! What the reading thread needs on Unix: a source it can wait on, and a
//! wait that the stop ends, so the thread never sits in a read the stop
//! cannot end.

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

use bytes::Bytes;
use futures::Stream;
use tokio::sync::mpsc;

use crate::transport::stop::StopReading;

/// What the reading thread can read: also something to wait on.
pub(crate) trait Source: Read + AsFd + Send + 'static {}
impl<T: Read + AsFd + Send + 'static> Source for T {}

/// Lets the reading thread wait until stdin is readable or reading has
/// stopped, whichever comes first.
pub(crate) struct Readiness {
    stop: StopReading,
    /// Readable once the stop has written to its other end.
    woken: UnixStream,
}

impl Readiness {
    pub(crate) fn new(stop: &StopReading) -> Self {
        let (mut wake, woken) =
            UnixStream::pair().expect("the operating system makes a socket pair");
        let stopped = stop.stopped();
        tokio::spawn(async move {
            stopped.await;
            // One byte into an empty socket never blocks.
            let _ = wake.write_all(&[1]);
        });
        Readiness {
            stop: stop.clone(),
            woken,
        }
    }

    /// Waits until `source` has something to read (or an error, or its
    /// end, which the read then reports); `false` once reading stopped.
    pub(crate) fn wait(&mut self, source: &impl AsFd) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        loop {
            if self.stop.is_stopped() {
                return false;
            }
            let mut fds = [
                PollFd::new(source.as_fd(), PollFlags::POLLIN),
                PollFd::new(self.woken.as_fd(), PollFlags::POLLIN),
            ];
            match poll(&mut fds, PollTimeout::NONE) {
                Err(nix::errno::Errno::EINTR) => continue,
                // Let the read report what is wrong.
                Err(_) => return true,
                Ok(_) if fds[1].any() == Some(true) => return false,
                Ok(_) => return fds[0].revents().is_some_and(|r| !r.is_empty()),
            }
        }
    }
}

/// The chunks the reading thread hands over, to their end: the thread
/// itself returns once reading stops, so nothing here watches the stop.
pub(crate) fn delivered(
    mut received: mpsc::Receiver<io::Result<Bytes>>,
    _stop: StopReading,
) -> impl Stream<Item = io::Result<Bytes>> + Send + Unpin {
    futures::stream::poll_fn(move |cx| received.poll_recv(cx))
}
