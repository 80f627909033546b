//! Newline-delimited JSON over any byte stream (stdio, pipes, sockets).
//!
//! Reading uses `tokio_util`'s `LinesCodec` with a maximum length: a line
//! over the limit is reported once as [`Inbound::Oversized`] and the rest of
//! it is discarded as it arrives, so an oversized message never grows
//! memory beyond the limit. The stream is read by whoever takes the frames
//! ([`Incoming`]), with no task in between, so a consumer that stops taking
//! frames stops the reading at once.
//!
//! Once told to stop ([`StopReading`]), the reader takes nothing more from
//! the stream: the lines already in its buffer are still delivered, a
//! partial last line is dropped, and then the frames end.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::BytesMut;
use futures::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::oneshot;
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::channel::{CHANNEL_CAPACITY, FrameChannel, FrameSender};
use super::inbound::Inbound;
use super::incoming::Incoming;
use super::stop::StopReading;
use super::writing::{Gathering, write_lines};

/// What one read from the stream may take at most: as much as one write
/// batches (`writing`), since what a burst of requests gathers is written
/// before the next read. The buffer is held for the connection's life, so
/// a byte-stream connection weighs this much at least.
const READ_BUFFER: usize = super::writing::WRITE_BATCH;

/// Frames `reader` and `writer` as newline-delimited messages of at most
/// `max_message_size` bytes each. `incoming` reads `reader` as its frames
/// are taken; a sender writes its frame itself while the writer is idle,
/// and a task while it is busy (see `writing`), which closes the writer
/// when every [`FrameSender`] clone is dropped.
pub fn byte_stream<R, W>(reader: R, writer: W, max_message_size: usize) -> FrameChannel
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let stop = StopReading::default();
    let reader = UntilStopped::new(reader, &stop);
    spawn_io(reader, writer, max_message_size, None, stop)
}

/// Like [`byte_stream`], for a `reader` that ends by itself once `stop`
/// is called, and `close` shuts the writer even while senders live.
pub(crate) fn spawn_io<R, W>(
    reader: R,
    writer: W,
    max_message_size: usize,
    close: Option<oneshot::Receiver<()>>,
    stop: StopReading,
) -> FrameChannel
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (sender, writer) = write_lines(writer, CHANNEL_CAPACITY, close);
    let reader = GatheredFirst {
        reader,
        gathering: sender.gathering(),
    };
    let frames = LineFrames::new(reader, max_message_size, stop.clone());
    FrameChannel {
        incoming: Incoming::read(frames, stop.clone()),
        outgoing: FrameSender::stream(sender),
        writer: Some(writer),
        stop_reading: Some(stop),
        in_place: None,
    }
}

/// A reader that ends, as at end of input, once its [`StopReading`] is
/// called: it reads nothing more from the stream under it.
pub(crate) struct UntilStopped<R> {
    reader: R,
    stopped: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl<R> UntilStopped<R> {
    pub(crate) fn new(reader: R, stop: &StopReading) -> Self {
        UntilStopped {
            reader,
            stopped: Box::pin(stop.stopped()),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for UntilStopped<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.stopped.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.reader).poll_read(cx, buf)
    }
}

/// A reader that writes what its connection gathered before each read
/// (rule 6 of `writing`): the frames answering the input read so far
/// leave once it is used up, and before the reader can wait on the peer.
struct GatheredFirst<R> {
    reader: R,
    gathering: Gathering,
}

impl<R: AsyncRead + Unpin> AsyncRead for GatheredFirst<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.gathering.end();
        Pin::new(&mut self.reader).poll_read(cx, buf)
    }
}

/// `LinesCodec`, with an oversized or non-UTF-8 line turned into an item
/// instead of an error: `FramedRead` ends the stream after any error, and
/// one bad line must not end the connection. Once reading was stopped, the
/// end of the stream is no end of input, so a partial last line is no
/// message.
struct FrameCodec {
    lines: LinesCodec,
    limit: usize,
    stop: StopReading,
}

impl FrameCodec {
    fn map(
        &self,
        decoded: Result<Option<String>, LinesCodecError>,
    ) -> Result<Option<Inbound>, LinesCodecError> {
        match decoded {
            Ok(line) => Ok(line.map(Inbound::Frame)),
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                Ok(Some(Inbound::Oversized { limit: self.limit }))
            }
            // The codec consumed the line, so reading goes on after it.
            Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                Ok(Some(Inbound::NotUtf8))
            }
            Err(e) => Err(e),
        }
    }
}

impl Decoder for FrameCodec {
    type Item = Inbound;
    type Error = LinesCodecError;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Inbound>, LinesCodecError> {
        let decoded = self.lines.decode(buf);
        self.map(decoded)
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Inbound>, LinesCodecError> {
        if self.stop.is_stopped() {
            let decoded = self.lines.decode(buf);
            if matches!(decoded, Ok(None)) && !buf.is_empty() {
                tracing::debug!(
                    bytes = buf.len(),
                    "reading stopped inside a line; dropping it"
                );
                buf.clear();
            }
            return self.map(decoded);
        }
        let decoded = self.lines.decode_eof(buf);
        self.map(decoded)
    }
}

/// The frames of a byte stream, read as they are polled: blank lines are
/// skipped, and a failed read ends them.
struct LineFrames<R> {
    frames: FramedRead<R, FrameCodec>,
    ended: bool,
}

impl<R: AsyncRead> LineFrames<R> {
    fn new(reader: R, limit: usize, stop: StopReading) -> Self {
        let codec = FrameCodec {
            lines: LinesCodec::new_with_max_length(limit),
            limit,
            stop,
        };
        LineFrames {
            frames: FramedRead::with_capacity(reader, codec, READ_BUFFER),
            ended: false,
        }
    }
}

impl<R: AsyncRead + Unpin> futures::Stream for LineFrames<R> {
    type Item = Inbound;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Inbound>> {
        while !self.ended {
            match std::task::ready!(self.frames.poll_next_unpin(cx)) {
                Some(Ok(Inbound::Frame(line))) if line.trim().is_empty() => {}
                Some(Ok(inbound)) => return Poll::Ready(Some(inbound)),
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "read failed; closing the connection");
                    self.ended = true;
                }
                None => self.ended = true,
            }
        }
        Poll::Ready(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn oversized_lines_are_reported_and_skipped() {
        let (mut peer, ours) = tokio::io::duplex(64);
        let (r, w) = tokio::io::split(ours);
        let mut channel = byte_stream(r, w, 8);
        peer.write_all(b"0123456789abcdef\nshort\n\n")
            .await
            .unwrap();
        assert_eq!(
            channel.incoming.recv().await,
            Some(Inbound::Oversized { limit: 8 })
        );
        assert_eq!(
            channel.incoming.recv().await,
            Some(Inbound::Frame("short".into()))
        );
        peer.write_all(b"\xff\xfe\nok\n").await.unwrap();
        assert_eq!(channel.incoming.recv().await, Some(Inbound::NotUtf8));
        assert_eq!(
            channel.incoming.recv().await,
            Some(Inbound::Frame("ok".into()))
        );
        channel.outgoing.send("{}".into()).await.unwrap();
        let mut buf = [0u8; 3];
        peer.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"{}\n");
        drop(peer);
        assert_eq!(channel.incoming.recv().await, None);
    }

    /// Frames sent while the connection gathers leave once the lines
    /// already read are taken, before the reader reads again.
    #[tokio::test]
    async fn what_gathered_leaves_before_the_reader_reads_again() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let (r, w) = tokio::io::split(ours);
        let mut channel = byte_stream(r, w, 64);
        peer.write_all(b"one\ntwo\n").await.unwrap();
        let gathering = channel.outgoing.gathering();
        assert_eq!(
            channel.incoming.recv().await,
            Some(Inbound::Frame("one".into()))
        );
        gathering.start();
        channel.outgoing.send("answer".into()).await.unwrap();
        // "two" was read with "one": taking it reads nothing.
        assert_eq!(
            channel.incoming.try_recv(),
            Some(Inbound::Frame("two".into()))
        );
        let mut byte = [0u8; 1];
        assert!(peer.read(&mut byte).now_or_never().is_none());
        // Now the reader must read: what gathered leaves first, in place.
        assert_eq!(channel.incoming.try_recv(), None);
        let mut answer = [0u8; 7];
        let written = peer.read_exact(&mut answer).now_or_never();
        assert!(written.is_some_and(|read| read.is_ok()));
        assert_eq!(&answer, b"answer\n");
    }

    /// Stopped, the reader still delivers the lines it has read, drops the
    /// partial one after them, reads nothing more, and ends.
    #[tokio::test]
    async fn a_stopped_reader_delivers_what_it_read_and_nothing_more() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let (r, w) = tokio::io::split(ours);
        let mut channel = byte_stream(r, w, 64);
        peer.write_all(b"one\ntwo\nthree\nfou").await.unwrap();
        // One read took all of it: the first line is out, the rest waits
        // in the reader's buffer.
        assert_eq!(
            channel.incoming.recv().await,
            Some(Inbound::Frame("one".into()))
        );
        channel.stop_reading.as_ref().unwrap().stop();
        peer.write_all(b"r\nfive\n").await.unwrap();
        let mut rest = Vec::new();
        while let Some(inbound) = channel.incoming.recv().await {
            rest.push(inbound);
        }
        assert_eq!(
            rest,
            [Inbound::Frame("two".into()), Inbound::Frame("three".into())]
        );
    }
}
