//! Who reads what the server sends: a request that waits for its response
//! reads it itself, and the connection's reader task reads the rest of
//! the time.
//!
//! A response that a task of its own reads reaches its request by one more
//! wake-up, from that task to the request's; where the server answers
//! fast, that hop is much of a call's time, the more so as it often moves
//! the request to another of the runtime's threads. So, in order:
//!
//! 1. between polls the frames sit in one slot; whoever reads takes them
//!    out for the length of one poll and puts them back before the poll
//!    returns, its waker registered on them: a frame that comes wakes its
//!    reader and no one else;
//! 2. a request that waits for its response ([`Reading::response`])
//!    reads whenever the frames are in the slot, delivering what comes to
//!    whom it is for, until its own response is among it;
//! 3. answered, timed out or dropped (each [`RequestReads`] a guard), the
//!    request hands the reading back to the reader task by registering
//!    that task's waker, delivering first what is there already: handing
//!    back wakes no one;
//! 4. the reader task reads whenever no request does. While one does, it
//!    checks every [`WATCH`], and takes the reading from a request that
//!    was not polled once since the last check: a request future kept but
//!    no longer polled holds up the other requests' responses, the
//!    server's requests and its notifications for two checks at most;
//! 5. when the frames end (the server closed its output), the routing
//!    tables close, every waiter wakes with [`ClientError::Closed`], and
//!    the reader task ends.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::sync::oneshot::{self, error::TryRecvError};
use tokio::time::{Instant, Sleep};

use super::delivery::Delivery;
use super::routing::Reply;
use crate::client::error::ClientError;
use crate::transport::Incoming;
use crate::util::lock;

/// How often the reader task checks a request that reads (rule 4).
pub(crate) const WATCH: Duration = Duration::from_millis(10);

/// The reading of one connection's frames, shared by its reader task and
/// its requests.
pub(crate) struct Reading {
    slot: Mutex<Slot>,
    delivery: Delivery,
}

/// Whose turn it is to read, and what the turns share.
struct Slot {
    turn: Turn,
    /// How many polls requests began: the reader task's stall check
    /// compares it (rule 4).
    request_polls: u64,
    /// The number the next request that reads is known by.
    next_request: u64,
    /// The reader task's waker, once it ran, until the frames end.
    reader_task: Option<Waker>,
}

/// Who reads, and where the frames are between polls (rule 1). Each
/// reader's frames are `None` while one poll holds them.
enum Turn {
    /// The reader task reads (rule 4). Its frames are `None` while its
    /// poll, or a request handing the reading back, holds them.
    ReaderTask { frames: Option<Incoming> },
    /// The request known by `number` reads (rule 2). Its frames are `None`
    /// while its poll holds them.
    Request {
        number: u64,
        frames: Option<Incoming>,
        /// The reader task's next check of this request (rule 4). The
        /// request that takes the reading sets it, with the reader task's
        /// waker, so that taking the reading wakes no one. It is `None`
        /// until the reader task first ran.
        check: Option<StallCheck>,
    },
    /// The frames ended (rule 5): no one reads again.
    Ended,
}

impl Turn {
    /// Puts `incoming` back after a poll (rule 1), in the frames of
    /// whoever reads now. Once the frames ended there is no place for
    /// them: they come back, to be dropped.
    fn put_back(&mut self, incoming: Incoming) -> Option<Incoming> {
        match self {
            Turn::ReaderTask { frames } | Turn::Request { frames, .. } => {
                *frames = Some(incoming);
                None
            }
            Turn::Ended => Some(incoming),
        }
    }
}

impl Reading {
    /// The reading of `incoming`, each frame delivered through
    /// `delivery`; nothing is read until the reader task
    /// ([`run`](Self::run)) or a request polls.
    pub(crate) fn new(incoming: Incoming, delivery: Delivery) -> Arc<Self> {
        Arc::new(Reading {
            slot: Mutex::new(Slot {
                turn: Turn::ReaderTask {
                    frames: Some(incoming),
                },
                request_polls: 0,
                next_request: 0,
                reader_task: None,
            }),
            delivery,
        })
    }

    /// The reader task: reads while no request does, and checks one that
    /// does (rule 4), until the frames end.
    pub(crate) async fn run(self: Arc<Self>) {
        poll_fn(|cx| self.poll_reader_task(cx)).await;
    }

    /// Waits for `reply`, the response to a request, reading meanwhile
    /// (rule 2).
    pub(crate) async fn response(&self, mut reply: oneshot::Receiver<Reply>) -> Reply {
        let mut reads = RequestReads {
            reading: self,
            number: None,
        };
        poll_fn(|cx| reads.poll(cx, &mut reply)).await
    }

    /// One poll of the reader task.
    fn poll_reader_task(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut guard = lock(&self.slot);
        let slot = &mut *guard;
        if let Turn::Ended = slot.turn {
            return Poll::Ready(());
        }
        if !slot
            .reader_task
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            slot.reader_task = Some(cx.waker().clone());
        }
        let polls = slot.request_polls;
        let incoming = match &mut slot.turn {
            Turn::ReaderTask { frames } => frames.take(),
            Turn::Request { frames, check, .. } => {
                let polling = frames.is_none();
                match check {
                    Some(check) => {
                        if check.keeps_reading(cx, polls, polling) {
                            return Poll::Pending;
                        }
                    }
                    None => {
                        *check = Some(StallCheck::new(polls, cx.waker()));
                        return Poll::Pending;
                    }
                }
                // The request stalled: the reading is this task's again.
                let incoming = frames.take();
                slot.turn = Turn::ReaderTask { frames: None };
                incoming
            }
            Turn::Ended => return Poll::Ready(()),
        };
        let Some(incoming) = incoming else {
            // A request that is handing the reading back holds the frames:
            // it registers this task's waker as it puts them back.
            return Poll::Pending;
        };
        drop(guard);
        self.read(self.taken(incoming), cx).map(drop)
    }

    /// `incoming`, out of the slot until the guard is dropped.
    fn taken(&self, incoming: Incoming) -> Taken<'_> {
        Taken {
            slot: &self.slot,
            incoming: Some(incoming),
        }
    }

    /// Reads the frames with `cx`'s waker until none is there, then puts
    /// them back; `Ready` once they ended (rule 5).
    fn read(&self, mut taken: Taken<'_>, cx: &mut Context<'_>) -> Poll<Ended> {
        loop {
            match taken.frames().poll_recv(cx) {
                Poll::Ready(Some(inbound)) => self.delivery.inbound(inbound),
                Poll::Ready(None) => return Poll::Ready(self.end(taken)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// The frames ended: the tables close and the reader task ends.
    fn end(&self, taken: Taken<'_>) -> Ended {
        let reader_task = {
            let mut slot = lock(&self.slot);
            slot.turn = Turn::Ended;
            slot.reader_task.take()
        };
        // Finds the turn ended, and drops the frames.
        drop(taken);
        self.delivery.ended();
        if let Some(waker) = reader_task {
            waker.wake();
        }
        Ended
    }
}

/// The frames have ended.
struct Ended;

/// Frames taken out of the slot for one poll (rule 1). Dropped, they go
/// back, also when a delivery panics (a user's notification handler): a
/// panic loses no frame, and whoever reads next finds them.
struct Taken<'a> {
    slot: &'a Mutex<Slot>,
    /// `Some` until the guard is dropped.
    incoming: Option<Incoming>,
}

impl Taken<'_> {
    fn frames(&mut self) -> &mut Incoming {
        self.incoming
            .as_mut()
            .expect("only dropping a Taken takes its frames out")
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(incoming) = self.incoming.take() {
            // Frames that ended are dropped here, once the lock is free.
            let _ended = lock(self.slot).turn.put_back(incoming);
        }
    }
}

/// The reader task's check of a request that reads: whether it is still
/// polled, or stalled and loses the reading (rule 4).
struct StallCheck {
    timer: Pin<Box<Sleep>>,
    /// The requests' poll count at the last check.
    seen: u64,
}

impl StallCheck {
    /// A check a [`WATCH`] from now, the count at `polls`, that wakes
    /// `reader_task` when due.
    fn new(polls: u64, reader_task: &Waker) -> Self {
        let mut check = StallCheck {
            timer: Box::pin(tokio::time::sleep(WATCH)),
            seen: polls,
        };
        // Registers the timer; a check due at once is a bug, not a hang.
        let _ = check
            .timer
            .as_mut()
            .poll(&mut Context::from_waker(reader_task));
        check
    }

    /// Whether the request keeps the reading: the check is not due, or the
    /// request was polled since the last one, or is `polling` now (the
    /// next check is then set).
    fn keeps_reading(&mut self, cx: &mut Context<'_>, polls: u64, polling: bool) -> bool {
        if self.timer.as_mut().poll(cx).is_pending() {
            return true;
        }
        if polls == self.seen && !polling {
            return false;
        }
        self.seen = polls;
        self.timer.as_mut().reset(Instant::now() + WATCH);
        // Registers the timer again; a check due at once is a bug, not a hang.
        let _ = self.timer.as_mut().poll(cx);
        true
    }
}

/// A request that waits for its response, and may read meanwhile. Dropped
/// while it is the reader, it hands the reading back (rule 3).
struct RequestReads<'a> {
    reading: &'a Reading,
    /// The number it reads by, once it took the reading.
    number: Option<u64>,
}

impl<'a> RequestReads<'a> {
    /// One poll: the response, if delivered; otherwise reads while the
    /// frames are in the slot (rule 2).
    fn poll(&mut self, cx: &mut Context<'_>, reply: &mut oneshot::Receiver<Reply>) -> Poll<Reply> {
        if let Poll::Ready(delivered) = Pin::new(&mut *reply).poll(cx) {
            self.hand_back();
            return Poll::Ready(delivered.unwrap_or(Err(ClientError::Closed)));
        }
        let Some(mut taken) = self.take() else {
            // Someone else is polling the frames, or they ended: whoever
            // reads this request's response delivers it to `reply`.
            return Poll::Pending;
        };
        loop {
            match taken.frames().poll_recv(cx) {
                Poll::Ready(Some(inbound)) => {
                    self.reading.delivery.inbound(inbound);
                    match reply.try_recv() {
                        Ok(delivered) => {
                            self.hand_back_holding(taken);
                            return Poll::Ready(delivered);
                        }
                        Err(TryRecvError::Closed) => {
                            self.hand_back_holding(taken);
                            return Poll::Ready(Err(ClientError::Closed));
                        }
                        Err(TryRecvError::Empty) => {}
                    }
                }
                Poll::Ready(None) => {
                    self.number = None;
                    self.reading.end(taken);
                    return Poll::Ready(Err(ClientError::Closed));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// The frames, for one poll, if they are in the slot; this request is
    /// then their reader, and the reader task's stall check of it is set
    /// if none is (rule 4).
    fn take(&mut self) -> Option<Taken<'a>> {
        let mut guard = lock(&self.reading.slot);
        let slot = &mut *guard;
        let (incoming, check) = match &mut slot.turn {
            Turn::ReaderTask { frames } => (frames.take()?, None),
            // Another request reads, between two of its polls: this one
            // takes the reading over, and the check goes on.
            Turn::Request { frames, check, .. } => (frames.take()?, check.take()),
            Turn::Ended => return None,
        };
        let number = *self.number.get_or_insert_with(|| {
            slot.next_request += 1;
            slot.next_request
        });
        slot.request_polls += 1;
        let check = check.or_else(|| {
            let reader_task = slot.reader_task.as_ref()?;
            Some(StallCheck::new(slot.request_polls, reader_task))
        });
        slot.turn = Turn::Request {
            number,
            frames: None,
            check,
        };
        Some(self.reading.taken(incoming))
    }

    /// Hands the reading back, if this request is still the reader.
    fn hand_back(&mut self) {
        let Some(number) = self.number.take() else {
            return;
        };
        let incoming = match &mut lock(&self.reading.slot).turn {
            Turn::Request {
                number: reader,
                frames,
                ..
            } if *reader == number => frames.take(),
            // Another reads, or the frames ended.
            _ => None,
        };
        // A request's frames are out of the slot only while its own poll
        // holds them, and this request is not in such a poll: `incoming`
        // is `Some` whenever it still read.
        if let Some(incoming) = incoming {
            self.hand_back_holding(self.reading.taken(incoming));
        }
    }

    /// Hands the reading back with the frames in hand (rule 3): the reader
    /// task's waker registered on them, what is there already delivered.
    fn hand_back_holding(&mut self, taken: Taken<'_>) {
        self.number = None;
        let reader_task = {
            let mut slot = lock(&self.reading.slot);
            // This request holds the frames, so the turn is its own: no
            // one else takes frames out of the slot, or ends them.
            slot.turn = Turn::ReaderTask { frames: None };
            slot.reader_task.clone()
        };
        match reader_task {
            Some(waker) => {
                let _ = self.reading.read(taken, &mut Context::from_waker(&waker));
            }
            // The reader task has not run yet: it reads when it first does.
            None => drop(taken),
        }
    }
}

impl Drop for RequestReads<'_> {
    fn drop(&mut self) {
        self.hand_back();
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use tokio::sync::mpsc;
    use tokio::time::Instant;

    use super::*;
    use crate::client::connection::ping::PingOnly;
    use crate::client::connection::routing::{NotificationHandler, Routes};
    use crate::transport::{FrameChannel, FrameSender};
    use crate::wire::{Notification, RequestId};

    /// A reading of frames the test sends through `server`, whose
    /// notifications come out of `notified`.
    struct Frames {
        reading: Arc<Reading>,
        routes: Arc<Routes>,
        server: FrameSender,
        notified: mpsc::UnboundedReceiver<Notification>,
    }

    fn frames() -> Frames {
        let (notify, notified) = mpsc::unbounded_channel();
        let handler: NotificationHandler = Arc::new(move |n| {
            let _ = notify.send(n);
        });
        Frames {
            notified,
            ..frames_handled_by(handler)
        }
    }

    /// [`frames`] whose notifications go to `handler` instead.
    fn frames_handled_by(handler: NotificationHandler) -> Frames {
        let (client, server) = FrameChannel::pair();
        let routes = Routes::open();
        let delivery = Delivery {
            routes: Arc::clone(&routes),
            era: Arc::default(),
            ping: Arc::new(PingOnly::new(client.outgoing)),
            on_notification: Some(handler),
        };
        Frames {
            reading: Reading::new(client.incoming, delivery),
            routes,
            server: server.outgoing,
            notified: mpsc::unbounded_channel().1,
        }
    }

    impl Frames {
        /// Request `id`'s wait for its response.
        fn request(&self, id: i64) -> oneshot::Receiver<Reply> {
            self.routes.await_response(&RequestId::from(id))
        }

        fn respond(&self, id: i64) {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"n":{id}}}}}"#);
            self.server.send_detached(line);
        }

        fn notify(&self) {
            let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;
            self.server.send_detached(line.to_owned());
        }
    }

    fn answered(reply: Reply, id: i64) {
        let response = reply.expect("a response");
        assert_eq!(response.id, Some(RequestId::from(id)));
    }

    #[tokio::test]
    async fn a_request_reads_its_own_response_with_no_reader_task() {
        let frames = frames();
        let reply = frames.request(1);
        frames.respond(1);
        answered(frames.reading.response(reply).await, 1);
    }

    #[tokio::test]
    async fn a_request_that_reads_delivers_what_comes_for_others() {
        let mut frames = frames();
        let (first, mut second) = (frames.request(1), frames.request(2));
        frames.respond(2);
        frames.notify();
        frames.respond(1);
        answered(frames.reading.response(first).await, 1);
        answered(second.try_recv().expect("delivered"), 2);
        assert!(frames.notified.try_recv().is_ok());
    }

    /// [`frames`], its reader task running.
    async fn frames_with_reader_task() -> Frames {
        let frames = frames();
        tokio::spawn(Arc::clone(&frames.reading).run());
        tokio::task::yield_now().await;
        frames
    }

    /// Polls `waiting` once, which must wait.
    fn polled_once<F: Future>(waiting: Pin<&mut F>) {
        let mut cx = Context::from_waker(Waker::noop());
        assert!(waiting.poll(&mut cx).is_pending());
    }

    /// Waits for the next notification, and says how long it took.
    async fn next_notification(notified: &mut mpsc::UnboundedReceiver<Notification>) -> Duration {
        let start = Instant::now();
        notified.recv().await.expect("a notification");
        start.elapsed()
    }

    #[tokio::test(start_paused = true)]
    async fn an_answered_request_hands_the_reading_back_at_once() {
        let mut frames = frames_with_reader_task().await;
        let reply = frames.request(1);
        frames.respond(1);
        answered(frames.reading.response(reply).await, 1);
        frames.notify();
        assert!(next_notification(&mut frames.notified).await < WATCH);
    }

    #[tokio::test(start_paused = true)]
    async fn a_dropped_request_hands_the_reading_back_at_once() {
        let mut frames = frames_with_reader_task().await;
        let reply = frames.request(1);
        let mut waiting = Box::pin(frames.reading.response(reply));
        polled_once(waiting.as_mut());
        drop(waiting);
        frames.notify();
        assert!(next_notification(&mut frames.notified).await < WATCH);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_no_longer_polled_loses_the_reading_at_a_look() {
        let mut frames = frames_with_reader_task().await;
        let reply = frames.request(1);
        let mut waiting = pin!(frames.reading.response(reply));
        polled_once(waiting.as_mut());
        frames.notify();
        let waited = next_notification(&mut frames.notified).await;
        assert!(waited >= WATCH && waited <= 2 * WATCH, "{waited:?}");
        frames.respond(1);
        answered(waiting.await, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_delivery_that_panics_loses_no_frame() {
        let frames = frames_handled_by(Arc::new(|_| panic!("a notification handler that panics")));
        let reading = Arc::clone(&frames.reading);
        let first = frames.request(1);
        frames.notify();
        let panicked = tokio::spawn(async move { reading.response(first).await }).await;
        assert!(panicked.is_err_and(|e| e.is_panic()));
        let second = frames.request(2);
        frames.respond(2);
        let reply = tokio::time::timeout(WATCH, frames.reading.response(second)).await;
        answered(reply.expect("the frames were put back"), 2);
    }

    #[tokio::test]
    async fn when_the_frames_end_a_reading_request_is_closed_and_the_reader_task_ends() {
        let frames = frames();
        let reader_task = tokio::spawn(Arc::clone(&frames.reading).run());
        let reply = frames.request(1);
        let Frames {
            reading, server, ..
        } = frames;
        let waiting = tokio::spawn(async move { reading.response(reply).await });
        drop(server);
        assert!(matches!(
            waiting.await.expect("no panic"),
            Err(ClientError::Closed)
        ));
        reader_task.await.expect("the reader task ends");
    }

    #[test]
    fn a_request_polled_while_another_reads_waits_for_its_delivery() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let frames = frames();
            let (first, second) = (frames.request(1), frames.request(2));
            let mut first = pin!(frames.reading.response(first));
            let mut second = pin!(frames.reading.response(second));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(first.as_mut().poll(&mut cx).is_pending());
            // The second takes the reading over: the first's next poll
            // finds the frames in the slot again and reads too.
            assert!(second.as_mut().poll(&mut cx).is_pending());
            frames.respond(1);
            frames.respond(2);
            match second.as_mut().poll(&mut cx) {
                Poll::Ready(reply) => answered(reply, 2),
                Poll::Pending => panic!("the second read both responses"),
            }
            match first.as_mut().poll(&mut cx) {
                Poll::Ready(reply) => answered(reply, 1),
                Poll::Pending => panic!("the first's response was delivered"),
            }
        });
    }
}
