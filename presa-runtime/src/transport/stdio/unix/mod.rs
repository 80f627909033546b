//! The stdio transport on Unix: stdin and stdout that are pipes or
//! sockets are read and written on the reactor (`pipe`); otherwise the
//! reading thread waits with poll(2) for stdin or the stop, so it never
//! sits in a read the stop cannot end. A child is asked to end with
//! SIGTERM before it is killed.

mod pipe;

pub(super) use pipe::{stdin_pipe, stdout_pipe};

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

use bytes::Bytes;
use futures::Stream;
use tokio::process::Child;
use tokio::sync::mpsc;

use crate::transport::StopReading;

/// What the reading thread can read: also something to wait on.
pub(super) trait Source: Read + AsFd + Send + 'static {}
impl<T: Read + AsFd + Send + 'static> Source for T {}

/// Lets the reading thread wait until stdin is readable or reading has
/// stopped, whichever comes first.
pub(super) struct Readiness {
    stop: StopReading,
    /// Readable once the stop has written to its other end.
    woken: UnixStream,
}

impl Readiness {
    pub(super) fn new(stop: &StopReading) -> Self {
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
    pub(super) fn wait(&mut self, source: &impl AsFd) -> bool {
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
pub(super) fn delivered(
    mut received: mpsc::Receiver<io::Result<Bytes>>,
    _stop: StopReading,
) -> impl Stream<Item = io::Result<Bytes>> + Send + Unpin {
    futures::stream::poll_fn(move |cx| received.poll_recv(cx))
}

/// Sends the process SIGTERM; `false` if it has already been reaped.
pub(super) fn terminate(child: &Child) -> bool {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let Some(pid) = child.id() else {
        return false;
    };
    let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
    true
}
