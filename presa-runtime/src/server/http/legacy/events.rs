//! Resumable event streams of a legacy HTTP session (2025-11-25).
//!
//! A legacy client may lose the connection of an event stream, or the
//! server may close it to make the client poll (SEP-1699), without the
//! request ending; the client comes back with `GET` and `Last-Event-ID`.
//! So the messages of a stream are kept in a [`StreamLog`], and a
//! connection only reads it, by these rules:
//!
//! 1. every stream of a session has a number: `0` is the standalone
//!    stream (`GET` without `Last-Event-ID`), each request's stream takes
//!    the next; an event's id is `<stream>-<seq>`, unique in the session,
//!    and names the stream it belongs to;
//! 2. a connection starts with a priming event (its id, a `retry` hint
//!    and empty data), then sends each event once, in order; resuming
//!    with `Last-Event-ID` replays the events of that stream after it,
//!    never another stream's;
//! 3. a log keeps at most [`MAX_LOG_BYTES`] of events: past it the oldest
//!    go, and a client that comes back later than that misses them. Each
//!    event is charged to the server's memory budget while it is kept;
//! 4. a request's stream ends after its response; the standalone stream
//!    ends with the session.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::util::{Charge, lock};

/// What one stream's log may hold, in bytes of event data.
pub const MAX_LOG_BYTES: usize = 1 << 20;

/// The messages of one stream, kept for resumption.
pub(super) struct StreamLog {
    number: u64,
    inner: Mutex<LogInner>,
    changed: watch::Sender<()>,
}

#[derive(Default)]
struct LogInner {
    events: VecDeque<Event>,
    /// The sequence number of the last event pushed; events start at 1.
    last: u64,
    bytes: usize,
    done: bool,
    /// The last event some connection sent: where a fresh standalone
    /// stream starts.
    delivered: u64,
}

struct Event {
    seq: u64,
    data: Arc<str>,
    _charge: Charge,
}

impl StreamLog {
    pub fn new(number: u64) -> Arc<Self> {
        Arc::new(StreamLog {
            number,
            inner: Mutex::default(),
            changed: watch::Sender::new(()),
        })
    }

    /// The stream's number.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Adds one message (a JSON line), charged with `charge` while kept
    /// (rule 3).
    pub fn push(&self, data: String, charge: Charge) {
        {
            let mut inner = lock(&self.inner);
            inner.last += 1;
            inner.bytes += data.len();
            let event = Event {
                seq: inner.last,
                data: Arc::from(data),
                _charge: charge,
            };
            inner.events.push_back(event);
            while inner.bytes > MAX_LOG_BYTES && inner.events.len() > 1 {
                if let Some(old) = inner.events.pop_front() {
                    inner.bytes -= old.data.len();
                }
            }
        }
        self.changed.send_replace(());
    }

    /// Marks the stream complete: readers end once they have sent
    /// everything (rule 4).
    pub fn finish(&self) {
        lock(&self.inner).done = true;
        self.changed.send_replace(());
    }

    /// Whether the stream is complete.
    pub fn is_done(&self) -> bool {
        lock(&self.inner).done
    }

    /// Where a fresh connection to the standalone stream starts.
    pub fn delivered(&self) -> u64 {
        lock(&self.inner).delivered
    }

    /// Whether `seq` names an event this stream has had.
    pub fn knows(&self, seq: u64) -> bool {
        seq <= lock(&self.inner).last
    }

    /// The events after `cursor`, and whether the stream is complete.
    fn after(&self, cursor: u64) -> (Vec<(u64, Arc<str>)>, bool) {
        let mut inner = lock(&self.inner);
        let events: Vec<_> = inner
            .events
            .iter()
            .filter(|e| e.seq > cursor)
            .map(|e| (e.seq, Arc::clone(&e.data)))
            .collect();
        if let Some((last, _)) = events.last() {
            inner.delivered = inner.delivered.max(*last);
        }
        (events, inner.done)
    }
}

/// The id of event `seq` of stream `number` (rule 1).
pub(super) fn event_id(number: u64, seq: u64) -> String {
    format!("{number}-{seq}")
}

/// The stream and sequence number a `Last-Event-ID` names.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (number, seq) = id.split_once('-')?;
    Some((number.parse().ok()?, seq.parse().ok()?))
}

/// How a connection reads a log.
pub(super) struct Reading {
    /// Send events after this one.
    pub cursor: u64,
    /// The `retry` hint of the priming event.
    pub retry: Duration,
    /// Close the connection (not the stream) this long after it opened,
    /// so that the client polls (SEP-1699); `None` to keep it open.
    pub close_after: Option<Duration>,
    /// Kept as long as the connection reads (a drop guard).
    pub hold: Option<Hold>,
}

/// Something a connection keeps until it ends.
pub(super) type Hold = Box<dyn std::any::Any + Send>;

/// An SSE body that reads `log` as `reading` says (rule 2).
pub(super) fn sse_body(log: Arc<StreamLog>, reading: Reading) -> Body {
    let priming = format!(
        "id: {}\nretry: {}\ndata: \n\n",
        event_id(log.number, reading.cursor),
        reading.retry.as_millis()
    );
    let deadline = reading.close_after.map(|after| Instant::now() + after);
    let changes = log.changed.subscribe();
    let state = Some((log, changes, reading.cursor, reading.hold));
    let events = futures::stream::unfold(state, move |state| async move {
        let (log, mut changes, cursor, hold) = state?;
        loop {
            changes.borrow_and_update();
            let (events, done) = log.after(cursor);
            if let Some(&(last, _)) = events.last() {
                let chunk = render(log.number, &events);
                let next = Some((log, changes, last, hold));
                return Some((Ok::<_, Infallible>(chunk), next));
            }
            if done {
                return None;
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return None },
                () = until(deadline) => return None,
            }
        }
    });
    let first = futures::stream::once(async move { Ok(Bytes::from(priming)) });
    Body::from_stream(futures::StreamExt::chain(first, events))
}

fn render(number: u64, events: &[(u64, Arc<str>)]) -> Bytes {
    let mut text = String::new();
    for (seq, data) in events {
        text.push_str(&format!("id: {}\ndata: {data}\n\n", event_id(number, *seq)));
    }
    Bytes::from(text)
}

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_name_their_stream() {
        assert_eq!(parse_event_id(&event_id(3, 7)), Some((3, 7)));
        for bad in ["", "3", "x-1", "1-y", "-1-2"] {
            assert_eq!(parse_event_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_log_keeps_its_bytes_bounded_and_reads_after_a_cursor() {
        let log = StreamLog::new(1);
        let big = "x".repeat(MAX_LOG_BYTES / 2 + 1);
        for _ in 0..3 {
            log.push(big.clone(), Charge::none());
        }
        let (events, done) = log.after(0);
        assert_eq!(events.len(), 1, "the oldest went");
        assert_eq!(events[0].0, 3);
        assert!(!done && log.knows(3) && !log.knows(4));
        log.push("y".into(), Charge::none());
        log.finish();
        let (events, done) = log.after(3);
        assert_eq!(events.len(), 1);
        assert!(done);
        assert_eq!(log.delivered(), 4);
    }
}
