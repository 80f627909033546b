//! Reading a request body: within its size limit, its time and its pace,
//! charged to the server's memory budget as it arrives.
//!
//! A client sends its body at the pace it likes. A body that announces
//! 4 MiB and then sends a byte every few seconds holds its connection, and
//! whatever the server set aside for it, for as long as the client likes.
//! So a body is held to what it has sent, and to a pace. A body is read by
//! these rules, in order, each refusing the request on its own:
//!
//! 1. a body that announces (`Content-Length`) more than the body limit
//!    is refused with `413` before a byte of it is read;
//! 2. each piece is charged to the memory budget as it arrives, so a body
//!    holds what it has sent, never what it announced. When the budget
//!    has no room, the request is refused with `503` and `Retry-After`
//!    (`-31001`); a body alone on the budget is still read, as a message
//!    larger than the budget still runs alone;
//! 3. a body that grows past the limit, with `Content-Length` or without
//!    (chunked), is refused with `413` as soon as it does;
//! 4. a body must be complete within
//!    [`body_timeout`](super::StreamableHttp::body_timeout) (default
//!    [`BODY_TIMEOUT`], 30 s) of when its reading starts. After a grace
//!    period (default [`BODY_RATE_GRACE`], 10 s) it must also keep up
//!    [`min_body_rate`](super::StreamableHttp::min_body_rate) on average
//!    (default [`MIN_BODY_RATE`], 1 KiB per second): `t` seconds in, it
//!    must have sent `(t - grace) * rate` bytes. Each byte that arrives
//!    buys it `1 / rate` seconds more, up to the timeout. A body that
//!    falls behind is refused with `408`;
//! 5. a refused body is not read further. Dropping it tells the HTTP
//!    server to close the connection once the answer is written (hyper
//!    closes a connection whose request body was not read to its end), so
//!    a slow client loses its connection along with its request;
//! 6. a body read whole comes with its charge, which the caller holds
//!    until the body is parsed, and then drops.
//!
//! Reading a body is cancelled by dropping it, as when its client hangs
//! up: the pieces read so far and their charge go with it.

use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::StatusCode;
use axum::response::Response;
use bytes::BytesMut;
use futures::StreamExt;
use tokio::time::Instant;

use super::respond::with_status;
use crate::server::request::reply::{invalid_request, memory_busy};
use crate::util::{Budget, Charge};

/// How long a request body has to arrive whole, by default, from when the
/// server starts to read it.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The average pace, in bytes per second, that a request body must keep
/// up once its grace period is over, by default.
pub const MIN_BODY_RATE: u32 = 1024;

/// How long a request body may take before its pace is checked, by
/// default: a small body sent whole in that time is never too slow.
pub const BODY_RATE_GRACE: Duration = Duration::from_secs(10);

/// What a body may be: its size, its time and its pace (rules 1, 3 and 4).
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimits {
    /// The most bytes a body may have.
    pub max_bytes: usize,
    /// How long it has to arrive whole.
    pub timeout: Duration,
    /// The pace it must keep up after the grace period, in bytes per
    /// second; 0 checks none.
    pub min_rate: u32,
    /// How long it may take before its pace is checked.
    pub grace: Duration,
}

impl BodyLimits {
    /// The defaults, for bodies of at most `max_bytes`.
    pub fn new(max_bytes: usize) -> Self {
        BodyLimits {
            max_bytes,
            timeout: BODY_TIMEOUT,
            min_rate: MIN_BODY_RATE,
            grace: BODY_RATE_GRACE,
        }
    }

    /// When a body that started at `start` and has sent `received` bytes
    /// falls behind (rule 4).
    fn due(&self, start: Instant, received: usize) -> Instant {
        let end = later(start, self.timeout);
        if self.min_rate == 0 {
            return end;
        }
        let earned = Duration::try_from_secs_f64(received as f64 / f64::from(self.min_rate))
            .unwrap_or(Duration::MAX);
        later(start, self.grace.saturating_add(earned)).min(end)
    }
}

/// `start + after`, or as late as a timer can be.
fn later(start: Instant, after: Duration) -> Instant {
    // About thirty years: what tokio itself takes for "never".
    const FAR: Duration = Duration::from_secs(86_400 * 365 * 30);
    start
        .checked_add(after.min(FAR))
        .unwrap_or_else(|| start + FAR)
}

/// A body read whole, and what it holds of the memory budget (rule 6).
pub(super) struct ReadBody {
    pub bytes: Bytes,
    /// Held until the body is parsed.
    pub charge: Charge,
}

/// Why a body was not read whole.
#[derive(Debug)]
pub(super) enum BodyRefusal {
    /// Rules 1 and 3.
    TooLarge { limit: usize },
    /// Rule 2.
    NoRoom,
    /// Rule 4: the body took longer than the timeout.
    TimedOut { timeout: Duration },
    /// Rule 4: the body fell behind the minimum pace.
    TooSlow {
        rate: u32,
        received: usize,
        elapsed: Duration,
    },
    /// The connection failed while the body arrived (a malformed chunk, a
    /// reset).
    Broken(String),
}

impl BodyRefusal {
    /// The answer to the request whose body this refuses.
    pub fn response(&self) -> Response {
        let (status, error) = match self {
            BodyRefusal::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                invalid_request(format!("the body exceeds the {limit}-byte limit")),
            ),
            BodyRefusal::NoRoom => (StatusCode::SERVICE_UNAVAILABLE, memory_busy()),
            BodyRefusal::TimedOut { timeout } => (
                StatusCode::REQUEST_TIMEOUT,
                invalid_request(format!(
                    "the request body did not arrive within {}, the most this server waits \
                     for one; send it again over a faster connection",
                    humantime::format_duration(*timeout)
                )),
            ),
            BodyRefusal::TooSlow {
                rate,
                received,
                elapsed,
            } => (
                StatusCode::REQUEST_TIMEOUT,
                invalid_request(format!(
                    "the request body arrived slower than {rate} bytes per second, the least \
                     this server accepts ({received} bytes in {:.1} s); send it again over a \
                     faster connection",
                    elapsed.as_secs_f64()
                )),
            ),
            BodyRefusal::Broken(error) => (
                StatusCode::BAD_REQUEST,
                invalid_request(format!("the request body could not be read: {error}")),
            ),
        };
        with_status(status, error)
    }
}

/// Reads `body` whole within `limits`, charging it to `budget` as it
/// arrives; otherwise why not (rules 1 to 5).
pub(super) async fn read_body(
    body: Body,
    limits: &BodyLimits,
    budget: &Budget,
) -> Result<ReadBody, BodyRefusal> {
    let too_large = BodyRefusal::TooLarge {
        limit: limits.max_bytes,
    };
    if body.size_hint().lower() > limits.max_bytes as u64 {
        return Err(too_large);
    }
    let start = Instant::now();
    let mut pieces = body.into_data_stream();
    let mut read = Vec::new();
    let mut received = 0usize;
    let mut charge = budget.empty_charge();
    // One timer for the whole body, moved on as its bytes arrive.
    let due = tokio::time::sleep_until(limits.due(start, 0));
    tokio::pin!(due);
    loop {
        let next = tokio::select! {
            // A piece that is there is taken, even at the deadline.
            biased;
            next = pieces.next() => next,
            () = &mut due => return Err(late(limits, start, received)),
        };
        let Some(piece) = next else { break };
        let piece = piece.map_err(|error| BodyRefusal::Broken(error.to_string()))?;
        received = received.saturating_add(piece.len());
        if received > limits.max_bytes {
            return Err(too_large);
        }
        if charge.try_grow(piece.len()).is_err() {
            return Err(BodyRefusal::NoRoom);
        }
        read.push(piece);
        due.as_mut().reset(limits.due(start, received));
    }
    let bytes = match read.len() {
        0 => Bytes::new(),
        1 => read.swap_remove(0),
        _ => {
            let mut whole = BytesMut::with_capacity(received);
            for piece in read {
                whole.extend_from_slice(&piece);
            }
            whole.freeze()
        }
    };
    Ok(ReadBody { bytes, charge })
}

/// Why a body that started at `start` and sent `received` bytes is late.
fn late(limits: &BodyLimits, start: Instant, received: usize) -> BodyRefusal {
    let elapsed = start.elapsed();
    if elapsed >= limits.timeout {
        BodyRefusal::TimedOut {
            timeout: limits.timeout,
        }
    } else {
        BodyRefusal::TooSlow {
            rate: limits.min_rate,
            received,
            elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};

    use axum::body::HttpBody;
    use futures::stream;
    use hyper::body::{Frame, SizeHint};

    use super::*;

    const LIMITS: BodyLimits = BodyLimits {
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(30),
        min_rate: 1024,
        grace: Duration::from_secs(10),
    };

    /// A body of `piece`-byte pieces, one every `every`, for ever; it
    /// counts on `polled` each time it is asked for a piece.
    fn paced(piece: usize, every: Duration, polled: Arc<AtomicUsize>) -> Body {
        let pieces = stream::unfold(0u64, move |sent| {
            let polled = Arc::clone(&polled);
            async move {
                polled.fetch_add(1, Ordering::SeqCst);
                if sent > 0 {
                    tokio::time::sleep(every).await;
                }
                Some((
                    Ok::<_, std::io::Error>(Bytes::from(vec![b' '; piece])),
                    sent + 1,
                ))
            }
        });
        Body::from_stream(pieces)
    }

    /// `paced`, ending after `count` pieces.
    fn paced_for(piece: usize, every: Duration, count: usize) -> Body {
        let pieces = stream::iter(0..count).then(move |n| async move {
            if n > 0 {
                tokio::time::sleep(every).await;
            }
            Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; piece]))
        });
        Body::from_stream(pieces)
    }

    /// A body that sends `first` bytes, then nothing, and never ends.
    fn stalled(first: usize) -> Body {
        let piece =
            stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(vec![b' '; first])) });
        Body::from_stream(piece.chain(stream::pending()))
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_keeps_its_pace_is_read_whole_and_charged() {
        let budget = Budget::new(1 << 20);
        // 2 KiB a second for 20 s: past the grace period, above the pace.
        let body = paced_for(2048, Duration::from_secs(1), 21);
        let read = read_body(body, &LIMITS, &budget).await.unwrap();
        assert_eq!(read.bytes.len(), 21 * 2048);
        assert_eq!(budget.used(), 21 * 2048, "the body holds what it sent");
        drop(read.charge);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_falls_behind_is_refused_when_the_rule_says() {
        let budget = Budget::new(1 << 20);
        let start = Instant::now();
        // 2048 bytes buy 2 s past the 10 s grace period.
        let refused = read_body(stalled(2048), &LIMITS, &budget)
            .await
            .err()
            .unwrap();
        assert_eq!(start.elapsed(), Duration::from_secs(12));
        assert!(
            matches!(
                refused,
                BodyRefusal::TooSlow {
                    rate: 1024,
                    received: 2048,
                    ..
                }
            ),
            "{refused:?}"
        );
        assert_eq!(refused.response().status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(budget.used(), 0, "a refused body holds nothing");

        // A byte every 2 s: behind once the grace period is over.
        let start = Instant::now();
        let trickle = paced(1, Duration::from_secs(2), Arc::default());
        let refused = read_body(trickle, &LIMITS, &budget).await.err().unwrap();
        assert!(
            matches!(refused, BodyRefusal::TooSlow { .. }),
            "{refused:?}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(11),
            "{:?}",
            start.elapsed()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_keeps_its_pace_but_never_ends_times_out() {
        let budget = Budget::new(1 << 30);
        let start = Instant::now();
        let endless = paced(4096, Duration::from_secs(1), Arc::default());
        let refused = read_body(endless, &LIMITS, &budget).await.err().unwrap();
        assert_eq!(start.elapsed(), LIMITS.timeout);
        assert!(
            matches!(refused, BodyRefusal::TimedOut { .. }),
            "{refused:?}"
        );
        let message = refused.response();
        assert_eq!(message.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(budget.used(), 0);

        // With no pace to keep, only the timeout holds.
        let lax = BodyLimits {
            min_rate: 0,
            ..LIMITS
        };
        let start = Instant::now();
        let refused = read_body(stalled(1), &lax, &budget).await.err().unwrap();
        assert_eq!(start.elapsed(), LIMITS.timeout);
        assert!(
            matches!(refused, BodyRefusal::TimedOut { .. }),
            "{refused:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_chunked_body_is_refused_as_soon_as_it_grows_past_the_limit() {
        let budget = Budget::new(1 << 20);
        let limits = BodyLimits {
            max_bytes: 1000,
            ..LIMITS
        };
        let polled = Arc::new(AtomicUsize::new(0));
        let endless = paced(100, Duration::from_millis(10), Arc::clone(&polled));
        let refused = read_body(endless, &limits, &budget).await.err().unwrap();
        assert!(
            matches!(refused, BodyRefusal::TooLarge { limit: 1000 }),
            "{refused:?}"
        );
        assert_eq!(refused.response().status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(polled.load(Ordering::SeqCst), 11, "read no further");
        assert_eq!(budget.used(), 0);
    }

    /// A body that announces `announced` bytes and fails the test if read.
    struct Announcing(u64);

    impl HttpBody for Announcing {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            panic!("a body announced past the limit is not read")
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.0)
        }
    }

    #[tokio::test]
    async fn a_body_announced_past_the_limit_is_refused_unread() {
        let budget = Budget::new(1 << 20);
        let body = Body::new(Announcing(LIMITS.max_bytes as u64 + 1));
        let refused = read_body(body, &LIMITS, &budget).await.err().unwrap();
        assert!(
            matches!(refused, BodyRefusal::TooLarge { .. }),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn each_piece_is_charged_as_it_arrives_while_there_is_room() {
        let budget = Budget::new(1000);
        let other = budget.try_charge(500).unwrap();
        // 4 MiB announced, 200 bytes sent: what is held is what was sent.
        let (pieces, sent) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let (asked, mut asking) = tokio::sync::mpsc::unbounded_channel::<()>();
        let body = stream::unfold((sent, asked), |(mut sent, asked)| async move {
            let _ = asked.send(());
            let piece = sent.recv().await?;
            Some((Ok::<_, std::io::Error>(piece), (sent, asked)))
        });
        let reading = tokio::spawn({
            let budget = budget.clone();
            async move { read_body(Body::from_stream(body), &LIMITS, &budget).await }
        });
        asking.recv().await.unwrap();
        pieces.send(Bytes::from(vec![b' '; 200])).unwrap();
        asking.recv().await.unwrap();
        assert_eq!(budget.used(), 700, "the piece read, and no more");
        pieces.send(Bytes::from(vec![b' '; 200])).unwrap();
        asking.recv().await.unwrap();
        pieces.send(Bytes::from(vec![b' '; 200])).unwrap();
        let refused = reading.await.unwrap().err().unwrap();
        assert!(matches!(refused, BodyRefusal::NoRoom), "{refused:?}");
        let reply = refused.response();
        assert_eq!(reply.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            reply
                .headers()
                .contains_key(axum::http::header::RETRY_AFTER)
        );
        assert_eq!(budget.used(), 500, "the refused body gave its bytes back");
        drop(other);
    }

    #[tokio::test]
    async fn a_body_alone_on_the_budget_may_be_larger_than_it() {
        let budget = Budget::new(100);
        let body = paced_for(100, Duration::ZERO, 10);
        let read = read_body(body, &LIMITS, &budget).await.unwrap();
        assert_eq!(read.bytes.len(), 1000);
    }

    #[tokio::test]
    async fn a_broken_body_is_a_bad_request() {
        let budget = Budget::new(1 << 20);
        let broken = stream::iter([
            Ok(Bytes::from_static(b"{")),
            Err(std::io::Error::other("connection reset")),
        ]);
        let refused = read_body(Body::from_stream(broken), &LIMITS, &budget)
            .await
            .err()
            .unwrap();
        assert!(matches!(&refused, BodyRefusal::Broken(e) if e.contains("connection reset")));
        assert_eq!(refused.response().status(), StatusCode::BAD_REQUEST);
        assert_eq!(budget.used(), 0);
    }
}
