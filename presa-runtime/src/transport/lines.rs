//! Newline-delimited JSON over any byte stream (stdio, pipes, sockets).
//!
//! Reading uses `tokio_util`'s `LinesCodec` with a maximum length: a line
//! over the limit is reported once as [`Inbound::Oversized`] and the rest of
//! it is discarded as it arrives, so an oversized message never grows
//! memory beyond the limit. At most [`INBOUND_FRAMES`] frames wait between
//! the reader and whoever takes them, so a consumer that stops taking
//! frames stops the reading after a few messages, not a few hundred.

use bytes::BytesMut;
use futures::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};

use super::{CHANNEL_CAPACITY, FrameChannel, FrameSender, Inbound, Outgoing};

/// How many frames read may wait to be taken.
pub const INBOUND_FRAMES: usize = 4;

/// Frames `reader` and `writer` as newline-delimited messages of at most
/// `max_message_size` bytes each. Spawns one reading and one writing task;
/// the writer closes when every [`FrameSender`] clone is dropped.
pub fn byte_stream<R, W>(reader: R, writer: W, max_message_size: usize) -> FrameChannel
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    spawn_io(reader, writer, max_message_size, None)
}

/// Like [`byte_stream`], and `close` shuts the writer even while senders live.
pub(crate) fn spawn_io<R, W>(
    reader: R,
    writer: W,
    max_message_size: usize,
    close: Option<oneshot::Receiver<()>>,
) -> FrameChannel
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (in_tx, incoming) = mpsc::channel(INBOUND_FRAMES);
    let (out_tx, out_rx) = mpsc::channel(CHANNEL_CAPACITY);
    tokio::spawn(read_lines(reader, max_message_size, in_tx));
    let writer = tokio::spawn(write_lines(writer, out_rx, close));
    FrameChannel {
        incoming,
        outgoing: FrameSender::writer(out_tx),
        writer: Some(writer),
    }
}

/// `LinesCodec`, with an oversized or non-UTF-8 line turned into an item
/// instead of an error: `FramedRead` ends the stream after any error, and
/// one bad line must not end the connection.
struct FrameCodec {
    lines: LinesCodec,
    limit: usize,
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
        let decoded = self.lines.decode_eof(buf);
        self.map(decoded)
    }
}

async fn read_lines<R: AsyncRead + Unpin>(reader: R, limit: usize, tx: mpsc::Sender<Inbound>) {
    let codec = FrameCodec {
        lines: LinesCodec::new_with_max_length(limit),
        limit,
    };
    let mut frames = FramedRead::new(reader, codec);
    while let Some(frame) = frames.next().await {
        let inbound = match frame {
            Ok(Inbound::Frame(line)) if line.trim().is_empty() => continue,
            Ok(inbound) => inbound,
            Err(e) => {
                tracing::debug!(error = %e, "read failed; closing the connection");
                break;
            }
        };
        if tx.send(inbound).await.is_err() {
            break;
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Outgoing>,
    close: Option<oneshot::Receiver<()>>,
) {
    let closed = async {
        match close {
            Some(signal) => {
                let _ = signal.await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::pin!(closed);
    loop {
        let frame = tokio::select! {
            frame = rx.recv() => frame,
            () = &mut closed => None,
        };
        // The charge is given back once the frame is written.
        let Some(Outgoing { mut frame, charge }) = frame else {
            break;
        };
        frame.push('\n');
        if writer.write_all(frame.as_bytes()).await.is_err() || writer.flush().await.is_err() {
            break;
        }
        drop(charge);
    }
    let _ = writer.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

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
}
