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
//!    and names the stream it belongs to. When replicas share the
//!    session, it is `<replica>.<stream>.<request>-<seq>`: it also names
//!    the replica that holds the stream and, for a request's stream, the
//!    request's id (base64url of its JSON), so that another replica can
//!    pass the stream on, or fail the request if that replica is gone;
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
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::{Stream, StreamExt};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::util::{Charge, lock};
use crate::wire::RequestId;

/// What one stream's log may hold, in bytes of event data.
pub const MAX_LOG_BYTES: usize = 1 << 20;

/// What an event id names besides the event (rule 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StreamName {
    /// The stream's number in its session, on its replica.
    pub number: u64,
    /// Where the stream runs, when replicas share the session.
    pub shared: Option<SharedStream>,
}

/// Where a stream of a shared session runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SharedStream {
    /// The replica that holds the stream.
    pub replica: Arc<str>,
    /// The request the stream answers; `None` for the standalone stream.
    pub request: Option<RequestId>,
}

/// The messages of one stream, kept for resumption.
pub(super) struct StreamLog {
    name: StreamName,
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
    /// An empty log of the stream `name`.
    pub fn new(name: StreamName) -> Arc<Self> {
        Self::mirror(name, 0)
    }

    /// An empty log of another replica's stream `name`, whose events
    /// after `after` this one passes on ([`StreamLog::push_at`]).
    pub fn mirror(name: StreamName, after: u64) -> Arc<Self> {
        Arc::new(StreamLog {
            name,
            inner: Mutex::new(LogInner {
                last: after,
                delivered: after,
                ..LogInner::default()
            }),
            changed: watch::Sender::new(()),
        })
    }

    /// The stream's number.
    pub fn number(&self) -> u64 {
        self.name.number
    }

    /// What the stream's event ids name.
    pub fn name(&self) -> &StreamName {
        &self.name
    }

    /// Adds event `seq` of the stream another replica holds, unless it is
    /// not after the last one (a repeat).
    pub fn push_at(&self, seq: u64, data: String, charge: Charge) {
        {
            let mut inner = lock(&self.inner);
            if seq <= inner.last {
                return;
            }
            inner.last = seq - 1;
        }
        self.push(data, charge);
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

    /// The events no connection has sent yet, which now count as sent.
    pub fn take_undelivered(&self) -> Vec<Arc<str>> {
        let delivered = self.delivered();
        let (events, _) = self.after(delivered);
        events.into_iter().map(|(_, data)| data).collect()
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

/// The id of event `seq` of stream `name` (rule 1).
pub(super) fn event_id(name: &StreamName, seq: u64) -> String {
    match &name.shared {
        None => format!("{}-{seq}", name.number),
        Some(shared) => {
            let request = shared.request.as_ref().map_or_else(String::new, |id| {
                URL_SAFE_NO_PAD.encode(serde_json::to_vec(id).unwrap_or_default())
            });
            format!("{}.{}.{request}-{seq}", shared.replica, name.number)
        }
    }
}

/// The stream and sequence number a `Last-Event-ID` names.
pub(super) fn parse_event_id(id: &str) -> Option<(StreamName, u64)> {
    let (name, seq) = id.rsplit_once('-')?;
    let seq = seq.parse().ok()?;
    let mut parts = name.split('.');
    let name = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(number), None, None, None) => StreamName {
            number: number.parse().ok()?,
            shared: None,
        },
        (Some(replica), Some(number), Some(request), None) if !replica.is_empty() => {
            let request = match request {
                "" => None,
                encoded => {
                    let json = URL_SAFE_NO_PAD.decode(encoded).ok()?;
                    Some(serde_json::from_slice(&json).ok()?)
                }
            };
            StreamName {
                number: number.parse().ok()?,
                shared: Some(SharedStream {
                    replica: Arc::from(replica),
                    request,
                }),
            }
        }
        _ => return None,
    };
    Some((name, seq))
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
        event_id(&log.name, reading.cursor),
        reading.retry.as_millis()
    );
    let deadline = reading.close_after.map(|after| Instant::now() + after);
    let name = log.name.clone();
    let hold = reading.hold;
    let events = follow(log, reading.cursor)
        .map(move |events| {
            // The connection keeps what it holds while it reads.
            let _held = &hold;
            Ok::<_, Infallible>(render(&name, &events))
        })
        .take_until(until(deadline));
    let first = futures::stream::once(async move { Ok(Bytes::from(priming)) });
    Body::from_stream(first.chain(events))
}

/// The events of `log` after `cursor`, a batch at a time as they come,
/// until the stream is complete.
pub(super) fn follow(
    log: Arc<StreamLog>,
    cursor: u64,
) -> impl Stream<Item = Vec<(u64, Arc<str>)>> + Send {
    let changes = log.changed.subscribe();
    futures::stream::unfold(Some((log, changes, cursor)), |state| async move {
        let (log, mut changes, cursor) = state?;
        loop {
            changes.borrow_and_update();
            let (events, done) = log.after(cursor);
            if let Some(&(last, _)) = events.last() {
                return Some((events, Some((log, changes, last))));
            }
            if done || changes.changed().await.is_err() {
                return None;
            }
        }
    })
}

fn render(name: &StreamName, events: &[(u64, Arc<str>)]) -> Bytes {
    let mut text = String::new();
    for (seq, data) in events {
        text.push_str(&format!("id: {}\ndata: {data}\n\n", event_id(name, *seq)));
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

    fn local(number: u64) -> StreamName {
        StreamName {
            number,
            shared: None,
        }
    }

    #[test]
    fn event_ids_name_their_stream() {
        assert_eq!(event_id(&local(3), 7), "3-7");
        assert_eq!(parse_event_id("3-7"), Some((local(3), 7)));
        for request in [
            None,
            Some(RequestId::Number(-4)),
            Some(RequestId::String("a.b-c".into())),
        ] {
            let name = StreamName {
                number: 2,
                shared: Some(SharedStream {
                    replica: Arc::from("r-_x"),
                    request,
                }),
            };
            assert_eq!(parse_event_id(&event_id(&name, 9)), Some((name, 9)));
        }
        for bad in [
            "", "3", "x-1", "1-y", "-1-2", ".1.-1", "r.1-1", "r.1.!-1", "r.x.-1",
        ] {
            assert_eq!(parse_event_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_mirror_takes_events_after_its_start_once() {
        let log = StreamLog::mirror(local(1), 5);
        log.push_at(6, "a".into(), Charge::none());
        log.push_at(6, "again".into(), Charge::none());
        log.push_at(8, "c".into(), Charge::none());
        let (events, _) = log.after(5);
        let seqs: Vec<u64> = events.iter().map(|(seq, _)| *seq).collect();
        assert_eq!(seqs, [6, 8]);
        assert!(log.knows(8) && !log.knows(9));
    }

    #[test]
    fn a_log_keeps_its_bytes_bounded_and_reads_after_a_cursor() {
        let log = StreamLog::new(local(1));
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
