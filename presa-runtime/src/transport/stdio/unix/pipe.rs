//! stdin and stdout on the runtime's own reactor, where they are pipes or
//! sockets: what a host gives the server it spawns.
//!
//! The rules, in order:
//!
//! 1. only a pipe or a socket qualifies: epoll takes nothing else (a file,
//!    `/dev/null`), and a terminal's open file is shared with the shell
//!    that started the server, which a non-blocking flag would break;
//! 2. the stream is made non-blocking (`O_NONBLOCK`) and registered with
//!    the reactor: a read or a write that cannot go on waits for
//!    readiness instead of holding a thread, so a peer that stops reading
//!    or writing blocks nothing and the process still ends when it is
//!    done;
//! 3. the flag stays set. It belongs to the open file description, which
//!    the host does not share (its end of the pipe or socket is another
//!    one), and stdin and stdout may be one socket (`socat EXEC:`), so
//!    that giving it back when one of them is dropped would leave the
//!    other blocking under the reactor;
//! 4. a request then crosses no thread of presa's own: the worker that
//!    wakes on the readable pipe parses it, runs its first step and
//!    writes its answer.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::sys::stat::{SFlag, fstat};
use tokio::net::unix::pipe::{Receiver, Sender};

/// This process's stdin on the reactor, if it qualifies.
pub(crate) fn stdin_pipe() -> Option<Receiver> {
    let fd = non_blocking(io::stdin().as_fd())?;
    Receiver::from_owned_fd_unchecked(fd).ok()
}

/// This process's stdout on the reactor, if it qualifies.
pub(crate) fn stdout_pipe() -> Option<Sender> {
    let fd = non_blocking(io::stdout().as_fd())?;
    Sender::from_owned_fd_unchecked(fd).ok()
}

/// A copy of `stream`, non-blocking, if it is a pipe or a socket (rules 1
/// and 2); `None` leaves it as it was.
fn non_blocking(stream: BorrowedFd<'_>) -> Option<OwnedFd> {
    let kind = SFlag::from_bits_truncate(fstat(stream).ok()?.st_mode) & SFlag::S_IFMT;
    if kind != SFlag::S_IFIFO && kind != SFlag::S_IFSOCK {
        return None;
    }
    let owned = stream.try_clone_to_owned().ok()?;
    let flags = OFlag::from_bits_truncate(fcntl(&owned, FcntlArg::F_GETFL).ok()?);
    fcntl(&owned, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).ok()?;
    Some(owned)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::pin::Pin;
    use std::task::Context;

    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};

    use super::*;

    #[tokio::test]
    async fn a_pipe_is_read_and_written_on_the_reactor() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let fd = non_blocking(reader.as_fd()).expect("a pipe qualifies");
        let mut pipe_in = Receiver::from_owned_fd_unchecked(fd).unwrap();
        let (mut back_reader, back_writer) = std::io::pipe().unwrap();
        let fd = non_blocking(back_writer.as_fd()).expect("a pipe qualifies");
        let mut pipe_out = Sender::from_owned_fd_unchecked(fd).unwrap();

        writer.write_all(b"ping\n").unwrap();
        let mut got = [0u8; 5];
        pipe_in.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping\n");
        pipe_out.write_all(b"pong\n").await.unwrap();
        let mut back = [0u8; 5];
        back_reader.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"pong\n");

        // Non-blocking: a read of the empty pipe is pending, never stuck
        // in the kernel.
        let flags = OFlag::from_bits_truncate(fcntl(&reader, FcntlArg::F_GETFL).unwrap());
        assert!(flags.contains(OFlag::O_NONBLOCK));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut room = [0u8; 4];
        let mut buf = ReadBuf::new(&mut room);
        assert!(
            Pin::new(&mut pipe_in)
                .poll_read(&mut cx, &mut buf)
                .is_pending()
        );
        writer.write_all(b"late").unwrap();
        let mut got = [0u8; 4];
        pipe_in.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"late");
    }

    #[test]
    fn a_socket_qualifies_and_a_file_or_device_does_not() {
        let (socket, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(non_blocking(socket.as_fd()).is_some());
        let dir = std::env::temp_dir().join(format!("presa-pipe-{}", std::process::id()));
        std::fs::write(&dir, b"").unwrap();
        let file = std::fs::File::open(&dir).unwrap();
        assert!(non_blocking(file.as_fd()).is_none());
        std::fs::remove_file(&dir).unwrap();
        let device = std::fs::File::open("/dev/null").unwrap();
        assert!(non_blocking(device.as_fd()).is_none());
    }
}
