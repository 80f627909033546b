//! Writing frames to a byte stream: in place by the sender while the
//! stream is idle, by a writer task while it is busy.
//!
//! A task that writes every frame costs a hand-over per frame: the task
//! must be woken, perhaps on another thread, before the frame moves, and
//! on a sequence of requests and answers that wake-up is most of the time
//! a round trip takes. A sender that finds the stream idle can write the
//! frame itself, at once. The rules, in order:
//!
//! 1. frames leave in the order they were sent: a sender writes in place
//!    only while the stream is idle (nothing queued, no write under way),
//!    and whether it is changes only under one lock, which queueing takes
//!    too;
//! 2. a write in place never waits: it writes what the stream takes at
//!    once, under that lock, with a waker that wakes nothing. A stream
//!    that would block goes to the writer task, with the rest of the
//!    frame, and the task waits for the stream as a writer must;
//! 3. while the task holds the stream, frames queue behind it, up to the
//!    capacity the stream was made with, then senders wait for room; the
//!    task writes what is queued in batches of up to [`WRITE_BATCH`]
//!    bytes, one write and one flush each, and gives the stream back once
//!    the queue is empty;
//! 4. a frame holds its charge of a memory budget until it is written,
//!    so a peer that does not read holds the charges of what waits for
//!    it;
//! 5. the stream is shut once every sender is gone and everything sent
//!    is written, or at once when the transport's `close` says so (a
//!    frame begun is finished first); a failed write closes it too, and
//!    every later send fails with [`Closed`];
//! 6. while the peer's requests come in a burst, frames sent to an idle
//!    stream gather instead, and leave together, with one write: a write
//!    per frame costs a system call and a wake-up of the peer each, which
//!    under load is most of what sending costs. Whoever reads the stream
//!    starts a gathering ([`Gathering::start`]) when it takes a frame in,
//!    and ends it before it reads again, so what gathered leaves at the
//!    latest when the input already read is used up, and before anyone
//!    waits on the peer; also when it stops reading, and when what
//!    gathered reaches [`WRITE_BATCH`] bytes. A gathering that ends
//!    writes in place, by rule 2, so a peer that sends one request at a
//!    time waits for nothing more than it did.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;

use super::closed::Closed;
use crate::util::{Charge, lock};

/// A write takes the frames queued behind its first only while they keep
/// it under this many bytes: a bound on the copy that batching makes.
pub(crate) const WRITE_BATCH: usize = 64 * 1024;

/// The byte stream, whatever its type.
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// A frame on its way to the stream, with what it holds of a memory budget
/// until it is written (rule 4).
pub(crate) struct Outgoing {
    pub frame: String,
    pub charge: Charge,
}

/// The sending side of a written byte stream; clones share it.
#[derive(Clone)]
pub(crate) struct StreamSender {
    shared: Arc<Shared>,
    queue: mpsc::Sender<Outgoing>,
}

/// What senders and the writer task share.
struct Shared {
    pen: Mutex<Pen>,
    /// Tells the task that the stream was handed to it.
    handed: Notify,
}

/// Who may write the stream (rule 1).
enum Pen {
    /// Nobody: the next sender writes in place.
    Idle(Writer),
    /// The reader is in a burst: frames gather, to be written together
    /// (rule 6).
    Gathering(Writer, Gathered),
    /// A write in place would have blocked: the stream and the rest of
    /// that frame wait for the task, and frames queue behind them.
    Handed(Writer, Rest),
    /// The task writes; frames queue behind.
    Busy,
    /// Shut, or failed: nothing more is written.
    Closed,
}

/// What frames hold of a memory budget until they are written (rule 4):
/// the first's, and the others' (no allocation for a frame alone).
type Charges = (Charge, Vec<Charge>);

/// What is left of the lines a write in place began.
struct Rest {
    line: Vec<u8>,
    written: usize,
    /// Held until the line is written (rule 4).
    _charges: Charges,
}

/// The frames of a gathering (rule 6), each with its line end.
#[derive(Default)]
struct Gathered {
    lines: Vec<u8>,
    charges: Vec<Charge>,
}

impl Gathered {
    fn push(&mut self, outgoing: Outgoing) {
        self.lines.extend_from_slice(outgoing.frame.as_bytes());
        self.lines.push(b'\n');
        self.charges.push(outgoing.charge);
    }

    /// The gathered lines as the rest of a write not yet begun.
    fn into_rest(self) -> Option<Rest> {
        (!self.lines.is_empty()).then(|| Rest {
            line: self.lines,
            written: 0,
            _charges: (Charge::none(), self.charges),
        })
    }
}

impl std::fmt::Debug for StreamSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamSender")
    }
}

/// Writes frames to `writer`, each with its line end, as the module docs
/// say: the senders, and the task that writes while the stream is busy
/// and shuts it at the end (rule 5), or once `close` fires. Up to
/// `capacity` frames wait behind a busy stream (rule 3).
pub(crate) fn write_lines<W>(
    writer: W,
    capacity: usize,
    close: Option<oneshot::Receiver<()>>,
) -> (StreamSender, JoinHandle<()>)
where
    W: AsyncWrite + Send + Unpin + 'static,
{
    let shared = Arc::new(Shared {
        pen: Mutex::new(Pen::Idle(Box::new(writer))),
        handed: Notify::new(),
    });
    let (queue, queued) = mpsc::channel(capacity);
    let task = tokio::spawn(write_behind(Arc::clone(&shared), queued, close));
    (StreamSender { shared, queue }, task)
}

impl StreamSender {
    /// Sends `frame`: in place when the stream is idle, queued behind it
    /// otherwise, waiting while the queue is full.
    pub async fn send(&self, frame: String, charge: Charge) -> Result<(), Closed> {
        let mut outgoing = Outgoing { frame, charge };
        loop {
            match self.try_send(outgoing) {
                Err(SendNow::Full(back)) => outgoing = back,
                sent => return sent.map_err(|_| Closed),
            }
            let permit = self.queue.reserve().await.map_err(|_| Closed)?;
            // The stream may have gone idle while this sender waited.
            let mut pen = lock(&self.shared.pen);
            match &mut *pen {
                Pen::Idle(_) | Pen::Gathering(..) => drop(permit),
                Pen::Handed(..) | Pen::Busy => {
                    permit.send(outgoing);
                    return Ok(());
                }
                Pen::Closed => return Err(Closed),
            }
        }
    }

    /// Sends `outgoing` without waiting: in place when the stream is
    /// idle, queued when the queue has room; handed back when it is full.
    pub fn try_send(&self, outgoing: Outgoing) -> Result<(), SendNow> {
        let mut pen = lock(&self.shared.pen);
        let written = match std::mem::replace(&mut *pen, Pen::Busy) {
            Pen::Idle(writer) => {
                let line = outgoing.into_rest();
                self.shared.write_now(&mut pen, writer, line, Pen::Idle)
            }
            Pen::Gathering(writer, mut gathered) => {
                gathered.push(outgoing);
                if gathered.lines.len() < WRITE_BATCH {
                    *pen = Pen::Gathering(writer, gathered);
                    return Ok(());
                }
                let gather_on = |writer| Pen::Gathering(writer, Gathered::default());
                self.shared
                    .write_gathered(&mut pen, writer, gathered, gather_on)
            }
            queued @ (Pen::Handed(..) | Pen::Busy) => {
                *pen = queued;
                return match self.queue.try_send(outgoing) {
                    Ok(()) => Ok(()),
                    Err(mpsc::error::TrySendError::Full(back)) => Err(SendNow::Full(back)),
                    Err(mpsc::error::TrySendError::Closed(_)) => Err(SendNow::Closed),
                };
            }
            Pen::Closed => {
                *pen = Pen::Closed;
                Err(Closed)
            }
        };
        written.map_err(|Closed| SendNow::Closed)
    }

    /// A gathering of the frames sent to this stream, begun by
    /// [`Gathering::start`] (rule 6).
    pub(crate) fn gathering(&self) -> Gathering {
        Gathering {
            shared: Some(Arc::clone(&self.shared)),
        }
    }
}

/// The frames sent while the peer's requests come in a burst, written
/// together (rule 6). Dropping it ends the gathering, as
/// [`end`](Self::end) does, so that nothing gathered is left behind by a
/// reader that is gone.
pub(crate) struct Gathering {
    /// `None` for frames that go to no byte stream: nothing gathers.
    shared: Option<Arc<Shared>>,
}

impl Gathering {
    /// A gathering that gathers nothing, for frames that go to no byte
    /// stream.
    pub(crate) fn none() -> Self {
        Gathering { shared: None }
    }

    /// Frames sent from now on gather, if the stream is idle; a stream
    /// being written by the task batches them already (rule 3).
    pub(crate) fn start(&self) {
        let Some(shared) = &self.shared else {
            return;
        };
        let mut pen = lock(&shared.pen);
        *pen = match std::mem::replace(&mut *pen, Pen::Busy) {
            Pen::Idle(writer) => Pen::Gathering(writer, Gathered::default()),
            other => other,
        };
    }

    /// Writes what gathered, in place (rule 2), and lets frames be
    /// written as they are sent again.
    pub(crate) fn end(&self) {
        let Some(shared) = &self.shared else {
            return;
        };
        let mut pen = lock(&shared.pen);
        match std::mem::replace(&mut *pen, Pen::Busy) {
            Pen::Gathering(writer, gathered) => {
                // A failed write closed the stream; the next send says so.
                let _ = shared.write_gathered(&mut pen, writer, gathered, Pen::Idle);
            }
            other => *pen = other,
        }
    }
}

impl Drop for Gathering {
    fn drop(&mut self) {
        self.end();
    }
}

impl Shared {
    /// Writes what `gathered` holds with `writer`, in place, as
    /// [`write_now`](Self::write_now) does; with nothing gathered, the pen
    /// becomes `then(writer)` at once.
    fn write_gathered(
        &self,
        pen: &mut Pen,
        writer: Writer,
        gathered: Gathered,
        then: impl FnOnce(Writer) -> Pen,
    ) -> Result<(), Closed> {
        match gathered.into_rest() {
            Some(rest) => self.write_now(pen, writer, rest, then),
            None => {
                *pen = then(writer);
                Ok(())
            }
        }
    }

    /// Writes `rest` with `writer` as far as it goes without waiting
    /// (rule 2), then sets the pen, taken from it by the caller under its
    /// lock: `then(writer)` once all is written; handed to the task with
    /// what is left when the stream would block; closed, and `Closed`,
    /// when the write failed.
    fn write_now(
        &self,
        pen: &mut Pen,
        mut writer: Writer,
        rest: Rest,
        then: impl FnOnce(Writer) -> Pen,
    ) -> Result<(), Closed> {
        match write_in_place(&mut writer, rest) {
            InPlace::Written => *pen = then(writer),
            InPlace::Blocked(rest) => {
                *pen = Pen::Handed(writer, rest);
                // Under the lock: a frame queued after this finds the
                // task told already.
                self.handed.notify_one();
            }
            InPlace::Failed => {
                *pen = Pen::Closed;
                return Err(Closed);
            }
        }
        Ok(())
    }
}

impl Outgoing {
    /// The frame with its line end, as the rest of a write not yet begun.
    fn into_rest(self) -> Rest {
        let mut line = self.frame.into_bytes();
        line.push(b'\n');
        Rest {
            line,
            written: 0,
            _charges: (self.charge, Vec::new()),
        }
    }
}

/// Why a frame was not sent at once.
pub(crate) enum SendNow {
    /// The queue is full; the frame is handed back.
    Full(Outgoing),
    /// The stream is closed.
    Closed,
}

/// How a write in place went.
enum InPlace {
    Written,
    /// The stream would block: what is left of the line.
    Blocked(Rest),
    Failed,
}

/// Writes `line` on from where it was left, as far as the stream takes
/// it without waiting (rule 2), and flushes it.
fn write_in_place(writer: &mut Writer, line: Rest) -> InPlace {
    let Rest {
        line,
        mut written,
        _charges,
    } = line;
    let mut cx = Context::from_waker(std::task::Waker::noop());
    while written < line.len() {
        match Pin::new(&mut *writer).poll_write(&mut cx, &line[written..]) {
            Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => return InPlace::Failed,
            Poll::Ready(Ok(n)) => written += n,
            Poll::Pending => {
                return InPlace::Blocked(Rest {
                    line,
                    written,
                    _charges,
                });
            }
        }
    }
    match Pin::new(&mut *writer).poll_flush(&mut cx) {
        Poll::Ready(Ok(())) => InPlace::Written,
        Poll::Ready(Err(_)) => InPlace::Failed,
        // Written, not yet flushed: the task flushes.
        Poll::Pending => InPlace::Blocked(Rest {
            written: line.len(),
            line,
            _charges,
        }),
    }
}

/// The writer task: waits while the stream is idle, writes while senders
/// hand it the stream (rule 3), and shuts it at the end (rule 5).
async fn write_behind(
    shared: Arc<Shared>,
    mut queued: mpsc::Receiver<Outgoing>,
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
        let first = tokio::select! {
            biased;
            () = shared.handed.notified() => None,
            frame = queued.recv() => match frame {
                Some(frame) => Some(frame),
                // Every sender is gone, and the queue is empty.
                None => break,
            },
            () = &mut closed => break,
        };
        let Some((mut writer, rest)) = take(&shared) else {
            return;
        };
        let rest_written = match rest {
            Some(rest) => write_rest(&mut writer, rest).await,
            None => Ok(()),
        };
        let drained = match rest_written {
            Ok(()) => drain(&shared, writer, &mut queued, first).await,
            Err(e) => Err(e),
        };
        if let Err(e) = drained {
            tracing::debug!(error = %e, "write failed; closing the connection");
            *lock(&shared.pen) = Pen::Closed;
            return;
        }
    }
    // The end: what was begun is finished, then the stream is shut.
    if let Some((mut writer, rest)) = take(&shared) {
        *lock(&shared.pen) = Pen::Closed;
        if let Some(rest) = rest {
            let _ = write_rest(&mut writer, rest).await;
        }
        let _ = writer.shutdown().await;
    }
}

/// Takes the stream from the pen, with the rest of a frame begun in place;
/// `None` once it is closed.
fn take(shared: &Shared) -> Option<(Writer, Option<Rest>)> {
    let mut pen = lock(&shared.pen);
    match std::mem::replace(&mut *pen, Pen::Busy) {
        Pen::Idle(writer) => Some((writer, None)),
        Pen::Gathering(writer, gathered) => Some((writer, gathered.into_rest())),
        Pen::Handed(writer, rest) => Some((writer, Some(rest))),
        Pen::Busy | Pen::Closed => {
            *pen = Pen::Closed;
            None
        }
    }
}

/// Finishes a frame a write in place began.
async fn write_rest(writer: &mut Writer, rest: Rest) -> std::io::Result<()> {
    writer.write_all(&rest.line[rest.written..]).await?;
    writer.flush().await
}

/// Writes `next` and what is queued, batch by batch, and gives the stream
/// back once the queue is empty. Both under the pen's lock, which senders
/// take to queue: no frame can be queued between the last look and the
/// stream going idle, to be overtaken by a write in place (rule 1).
async fn drain(
    shared: &Shared,
    mut writer: Writer,
    queued: &mut mpsc::Receiver<Outgoing>,
    mut next: Option<Outgoing>,
) -> std::io::Result<()> {
    loop {
        let first = match next.take() {
            Some(frame) => frame,
            None => {
                let mut pen = lock(&shared.pen);
                match queued.try_recv() {
                    Ok(frame) => frame,
                    Err(_) => {
                        *pen = Pen::Idle(writer);
                        return Ok(());
                    }
                }
            }
        };
        let (batch, left) = Batch::after(first, queued);
        next = left;
        writer.write_all(batch.lines.as_bytes()).await?;
        writer.flush().await?;
        // The charges are given back once the frames are written.
        drop(batch);
    }
}

/// Frames written with one write: the first, and those already queued
/// behind it that keep the batch under [`WRITE_BATCH`] bytes, each with
/// its line end.
struct Batch {
    lines: String,
    /// Held until the frames are written (rule 4).
    _charges: Charges,
}

impl Batch {
    /// `first`, in its own buffer, and what `queued` holds at once after
    /// it while it fits: under load, one write and one flush carry many
    /// frames, and the copy batching makes stays under [`WRITE_BATCH`].
    /// Also the frame taken that did not fit, to write next.
    fn after(first: Outgoing, queued: &mut mpsc::Receiver<Outgoing>) -> (Batch, Option<Outgoing>) {
        let Outgoing {
            frame: mut lines,
            charge,
        } = first;
        lines.push('\n');
        let mut rest = Vec::new();
        let mut left = None;
        while lines.len() < WRITE_BATCH
            && let Ok(frame) = queued.try_recv()
        {
            if lines.len() + frame.frame.len() >= WRITE_BATCH {
                left = Some(frame);
                break;
            }
            lines.push_str(&frame.frame);
            lines.push('\n');
            rest.push(frame.charge);
        }
        let batch = Batch {
            lines,
            _charges: (charge, rest),
        };
        (batch, left)
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;
    use tokio::io::{AsyncReadExt, DuplexStream};

    use super::*;

    /// The queue behind a busy stream, in these tests.
    const CAPACITY: usize = 4;

    fn send(sender: &StreamSender, frame: &str) -> Result<(), Closed> {
        sender
            .send(frame.to_owned(), Charge::none())
            .now_or_never()
            .expect("a send that needs no wait")
    }

    /// Reads exactly `expected` from `peer`.
    async fn read(peer: &mut DuplexStream, expected: &str) {
        let mut read = vec![0u8; expected.len()];
        peer.read_exact(&mut read).await.unwrap();
        assert_eq!(String::from_utf8(read).unwrap(), expected);
    }

    /// One poll of the sender writes the frame: no task ran for it.
    #[tokio::test]
    async fn a_frame_to_an_idle_stream_is_written_in_place() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        send(&sender, "one").unwrap();
        send(&sender, "two").unwrap();
        let mut now = [0u8; 8];
        let read = peer.read(&mut now).now_or_never().unwrap().unwrap();
        assert_eq!(&now[..read], b"one\ntwo\n");
    }

    /// A stream that takes only part of a frame goes to the task with the
    /// rest; frames sent meanwhile queue behind it, and leave in order;
    /// once they are written, the stream is idle again.
    #[tokio::test]
    async fn a_stream_that_would_block_is_written_by_the_task_in_order() {
        let (mut peer, ours) = tokio::io::duplex(8);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        send(&sender, "0123456789").unwrap();
        assert!(matches!(*lock(&sender.shared.pen), Pen::Handed(..)));
        send(&sender, "b").unwrap();
        send(&sender, "c").unwrap();
        read(&mut peer, "0123456789\nb\nc\n").await;
        // On this runtime's one thread, the task ran on to its end once
        // it had written the last byte.
        assert!(matches!(*lock(&sender.shared.pen), Pen::Idle(_)));
        send(&sender, "d").unwrap();
        read(&mut peer, "d\n").await;
    }

    /// Frames queued behind a busy stream are written in order, each on
    /// its line, whether they share a write or one is too big to.
    #[tokio::test]
    async fn queued_frames_are_batched_in_order() {
        let (mut peer, ours) = tokio::io::duplex(16);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        let frames = [
            "more than the pipe holds".to_owned(),
            "a".into(),
            "x".repeat(WRITE_BATCH),
            "b".into(),
            "c".into(),
        ];
        for frame in &frames {
            send(&sender, frame).unwrap();
        }
        let expected: String = frames.iter().map(|frame| format!("{frame}\n")).collect();
        read(&mut peer, &expected).await;
    }

    /// A sender waits for room in a full queue, and its frame still leaves
    /// after those queued before it.
    #[tokio::test]
    async fn a_full_queue_makes_senders_wait_in_order() {
        let (mut peer, ours) = tokio::io::duplex(1);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        let mut expected = String::new();
        for i in 0..=CAPACITY {
            let frame = format!("{i}");
            expected.push_str(&frame);
            expected.push('\n');
            send(&sender, &frame).unwrap();
        }
        let mut last = sender.send("last".into(), Charge::none()).boxed();
        assert!((&mut last).now_or_never().is_none(), "the queue is full");
        expected.push_str("last\n");
        let (sent, ()) = tokio::join!(last, read(&mut peer, &expected));
        sent.unwrap();
    }

    /// Once every sender is gone, what was sent is written, then the
    /// stream is shut.
    #[tokio::test]
    async fn the_last_sender_gone_the_stream_is_written_and_shut() {
        let (mut peer, ours) = tokio::io::duplex(4);
        let (sender, task) = write_lines(ours, CAPACITY, None);
        send(&sender, "begun").unwrap();
        send(&sender, "queued").unwrap();
        drop(sender);
        let mut all = String::new();
        peer.read_to_string(&mut all).await.unwrap();
        assert_eq!(all, "begun\nqueued\n");
        task.await.unwrap();
    }

    /// `close` shuts the stream while senders live, finishing the frame
    /// begun first; later sends fail.
    #[tokio::test]
    async fn close_shuts_the_stream_while_senders_live() {
        let (mut peer, ours) = tokio::io::duplex(4);
        let (close, closed) = oneshot::channel();
        let (sender, task) = write_lines(ours, CAPACITY, Some(closed));
        send(&sender, "begun").unwrap();
        read(&mut peer, "begun\n").await;
        close.send(()).unwrap();
        task.await.unwrap();
        let mut rest = Vec::new();
        peer.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
        assert_eq!(send(&sender, "late"), Err(Closed));
    }

    /// Whether `peer` has anything to read at once.
    fn nothing_to_read(peer: &mut DuplexStream) -> bool {
        let mut byte = [0u8; 1];
        peer.read(&mut byte).now_or_never().is_none()
    }

    /// Frames sent while gathering leave together when it ends, in the
    /// order sent, and the stream is idle again.
    #[tokio::test]
    async fn gathered_frames_leave_together_when_the_gathering_ends() {
        let (mut peer, ours) = tokio::io::duplex(1024);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        let gathering = sender.gathering();
        gathering.start();
        send(&sender, "one").unwrap();
        send(&sender, "two").unwrap();
        assert!(nothing_to_read(&mut peer));
        gathering.end();
        let mut now = [0u8; 16];
        let count = peer.read(&mut now).now_or_never().unwrap().unwrap();
        assert_eq!(&now[..count], b"one\ntwo\n");
        assert!(matches!(*lock(&sender.shared.pen), Pen::Idle(_)));
        send(&sender, "three").unwrap();
        read(&mut peer, "three\n").await;
    }

    /// What gathers is written once it reaches the batch size, and the
    /// gathering goes on; a dropped gathering writes what it holds.
    #[tokio::test]
    async fn a_full_or_dropped_gathering_is_written() {
        let (mut peer, ours) = tokio::io::duplex(4 * WRITE_BATCH);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        let gathering = sender.gathering();
        gathering.start();
        let big = "x".repeat(WRITE_BATCH);
        send(&sender, &big).unwrap();
        read(&mut peer, &format!("{big}\n")).await;
        send(&sender, "small").unwrap();
        assert!(nothing_to_read(&mut peer));
        drop(gathering);
        read(&mut peer, "small\n").await;
    }

    /// A gathering the stream cannot take at once goes to the task with
    /// what is left, and frames sent after it queue behind, in order.
    #[tokio::test]
    async fn a_gathering_that_would_block_goes_to_the_task_in_order() {
        let (mut peer, ours) = tokio::io::duplex(4);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        let gathering = sender.gathering();
        gathering.start();
        send(&sender, "0123456789").unwrap();
        send(&sender, "b").unwrap();
        gathering.end();
        assert!(matches!(*lock(&sender.shared.pen), Pen::Handed(..)));
        send(&sender, "c").unwrap();
        read(&mut peer, "0123456789\nb\nc\n").await;
    }

    /// A gathering started while the task writes gathers nothing: frames
    /// queue behind the task, which batches them already.
    #[tokio::test]
    async fn a_busy_stream_does_not_gather() {
        let (mut peer, ours) = tokio::io::duplex(4);
        let (sender, _task) = write_lines(ours, CAPACITY, None);
        send(&sender, "0123456789").unwrap();
        let gathering = sender.gathering();
        gathering.start();
        assert!(matches!(*lock(&sender.shared.pen), Pen::Handed(..)));
        send(&sender, "b").unwrap();
        read(&mut peer, "0123456789\nb\n").await;
    }

    /// A write that fails closes the stream for every sender.
    #[tokio::test]
    async fn a_failed_write_closes_the_stream() {
        let (peer, ours) = tokio::io::duplex(64);
        let (sender, task) = write_lines(ours, CAPACITY, None);
        drop(peer);
        assert_eq!(send(&sender, "lost"), Err(Closed));
        assert_eq!(send(&sender.clone(), "lost too"), Err(Closed));
        drop(sender);
        task.await.unwrap();
    }
}
