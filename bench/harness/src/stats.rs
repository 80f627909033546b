//! Medians of repeated rounds, and the timing helpers every section uses.
//!
//! Each figure is measured in several rounds, alternating frameworks, and
//! reported as the median round: a median ignores the odd round a
//! neighbouring process spoiled, where a mean would smear it over the
//! result.

use std::future::Future;
use std::time::{Duration, Instant};

/// The median of `values` (the mean of the middle two for an even count);
/// `NaN` for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// Microseconds per operation for `ops` operations that took `elapsed`.
pub fn micros_per_op(elapsed: Duration, ops: usize) -> f64 {
    elapsed.as_secs_f64() * 1e6 / ops as f64
}

/// Operations per second for `ops` operations that took `elapsed`.
pub fn ops_per_sec(elapsed: Duration, ops: usize) -> f64 {
    ops as f64 / elapsed.as_secs_f64()
}

/// Runs `ops` awaited calls of `call` one after the other and returns the
/// mean microseconds per call.
pub async fn time_sequential<F, Fut>(ops: usize, mut call: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    let start = Instant::now();
    for _ in 0..ops {
        call().await;
    }
    micros_per_op(start.elapsed(), ops)
}

/// How many rounds a section runs per framework: `BENCH_ROUNDS`, or
/// `default` when unset or unreadable.
pub fn rounds(default: usize) -> usize {
    std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&r: &usize| r > 0)
        .unwrap_or(default)
}

/// `default` operations scaled by `BENCH_SCALE` (a factor, default 1), so
/// that a quick look or a long profile needs no code change.
pub fn scaled(default: usize) -> usize {
    let factor: f64 = std::env::var("BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&f: &f64| f > 0.0)
        .unwrap_or(1.0);
    ((default as f64 * factor) as usize).max(1)
}
