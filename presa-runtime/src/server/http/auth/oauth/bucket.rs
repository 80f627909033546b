//! A token bucket: how often something costly may happen, with room for a
//! short burst.
//!
//! The rules:
//!
//! 1. the bucket holds at most `capacity` tokens, and starts full;
//! 2. each use takes one token; with none left, the use waits or is
//!    refused, as its caller decides;
//! 3. one token comes back every `refill`, up to the capacity: a bucket
//!    left alone fills again, and a steady stream of uses runs at one per
//!    `refill`;
//! 4. a use that turns out not to count (a success, where only failures
//!    are limited) gives its token back.
//!
//! Time is tokio's, so that tests run it paused. A bucket is a few words
//! and holds no timer: it settles what it has earned when it is asked.

use std::time::Duration;

use tokio::time::Instant;

/// A bucket of `capacity` tokens, one more every `refill` (the rules are
/// in the module docs).
#[derive(Debug, Clone)]
pub(crate) struct TokenBucket {
    capacity: u32,
    refill: Duration,
    tokens: u32,
    /// Since when the next token is being earned.
    since: Instant,
}

impl TokenBucket {
    /// A full bucket. A capacity of 0 counts as 1, so that the thing it
    /// paces can happen at all; a `refill` of zero never runs out.
    pub fn full(capacity: u32, refill: Duration) -> Self {
        let capacity = capacity.max(1);
        TokenBucket {
            capacity,
            refill,
            tokens: capacity,
            since: Instant::now(),
        }
    }

    /// Takes one token at `now`, or says how long until one comes back.
    pub fn take(&mut self, now: Instant) -> Result<(), Duration> {
        self.settle(now);
        if self.tokens == 0 {
            return Err(self.next_at().saturating_duration_since(now));
        }
        if self.tokens == self.capacity {
            // The bucket starts earning again from the first token taken.
            self.since = now;
        }
        self.tokens -= 1;
        Ok(())
    }

    /// When a token will be there, from `now`: `now` itself if one is.
    pub fn ready_at(&mut self, now: Instant) -> Instant {
        self.settle(now);
        if self.tokens > 0 { now } else { self.next_at() }
    }

    /// Gives back a token taken for a use that did not count (rule 4).
    pub fn give_back(&mut self, now: Instant) {
        self.settle(now);
        self.tokens = (self.tokens + 1).min(self.capacity);
    }

    /// Whether the bucket is full at `now`: it holds nothing worth keeping.
    pub fn is_full(&mut self, now: Instant) -> bool {
        self.settle(now);
        self.tokens == self.capacity
    }

    /// When the next token comes back.
    fn next_at(&self) -> Instant {
        self.since + self.refill
    }

    /// Adds the tokens earned since `since` (rule 3).
    fn settle(&mut self, now: Instant) {
        if self.tokens == self.capacity {
            return;
        }
        if self.refill.is_zero() {
            self.tokens = self.capacity;
            return;
        }
        let elapsed = now.saturating_duration_since(self.since);
        let earned = elapsed.as_nanos() / self.refill.as_nanos();
        if earned == 0 {
            return;
        }
        let room = u128::from(self.capacity - self.tokens);
        if earned >= room {
            self.tokens = self.capacity;
        } else {
            // `earned` < `room` <= u32::MAX.
            self.tokens += earned as u32;
            self.since += self.refill * earned as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_then_one_per_refill() {
        let mut bucket = TokenBucket::full(3, Duration::from_secs(10));
        let start = Instant::now();
        for _ in 0..3 {
            bucket.take(start).unwrap();
        }
        assert_eq!(bucket.take(start), Err(Duration::from_secs(10)));
        assert_eq!(bucket.ready_at(start), start + Duration::from_secs(10));
        let later = start + Duration::from_secs(9);
        assert_eq!(bucket.take(later), Err(Duration::from_secs(1)));
        let earned = start + Duration::from_secs(10);
        assert_eq!(bucket.ready_at(earned), earned);
        bucket.take(earned).unwrap();
        assert!(bucket.take(earned).is_err(), "one token, not two");
        // Left alone, it fills up to its capacity and no further.
        let idle = start + Duration::from_secs(3600);
        assert!(bucket.is_full(idle));
        for _ in 0..3 {
            bucket.take(idle).unwrap();
        }
        assert!(bucket.take(idle).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_token_given_back_can_be_taken_again() {
        let mut bucket = TokenBucket::full(1, Duration::from_secs(60));
        let now = Instant::now();
        bucket.take(now).unwrap();
        assert!(bucket.take(now).is_err());
        bucket.give_back(now);
        assert!(bucket.is_full(now));
        bucket.take(now).unwrap();
        bucket.give_back(now);
        bucket.give_back(now);
        assert!(bucket.take(now).is_ok());
        assert!(bucket.take(now).is_err(), "never past its capacity");
    }

    #[tokio::test(start_paused = true)]
    async fn no_capacity_is_one_and_no_refill_never_runs_out() {
        let now = Instant::now();
        let mut one = TokenBucket::full(0, Duration::from_secs(60));
        assert!(one.take(now).is_ok());
        assert!(one.take(now).is_err());
        let mut endless = TokenBucket::full(1, Duration::ZERO);
        for _ in 0..100 {
            endless.take(now).unwrap();
        }
    }
}
