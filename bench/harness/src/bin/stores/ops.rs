//! The store's own operations, called directly: what a server pays per
//! task operation, without MCP around it.
//!
//! - `create`: a new `working` task with the TTL and poll interval a
//!   server gives by default;
//! - `get`: reading it back;
//! - `apply`: a status message, the smallest change that is written (a
//!   new message each time, since a change that changes nothing is not).
//!
//! Latency is one caller at a time; throughput is [`CALLERS`] callers at
//! once, each on tasks of its own, as concurrent requests on a server
//! are. Every store takes part: in memory, and Redis plain, through TLS
//! and as a cluster node. Each round uses a fresh store (an emptied Redis), and stores
//! alternate round by round, so that drift falls on both.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, ops_per_sec, rounds, scaled};
use presa::server::tasks::store::{TaskChange, TaskLimits, TaskRecord, TaskStore};

use crate::{Bench, StoreKind};

/// Concurrent callers in the throughput figures.
pub const CALLERS: usize = 16;

/// The operations measured, in the order each round runs them: a task
/// must be created before it is read or changed.
const OPS: [Op; 3] = [Op::Create, Op::Get, Op::Apply];

/// One store operation.
#[derive(Debug, Clone, Copy)]
enum Op {
    Create,
    Get,
    Apply,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Get => "get",
            Op::Apply => "apply",
        }
    }
}

/// One round's figures for one store: per operation, µs per call one at a
/// time and calls per second with [`CALLERS`] at once.
struct Round {
    latency: [f64; 3],
    throughput: [f64; 3],
}

/// Runs the store-level part: a warm-up round, then alternating rounds.
pub async fn measure(bench: &Bench, figures: &mut Figures) {
    let (sequential, concurrent) = (scaled(2_000), scaled(4_000));
    let mut samples: [Vec<Round>; 4] = Default::default();
    for round in 0..=rounds(7) {
        for (kind, kept) in StoreKind::ALL.into_iter().zip(samples.iter_mut()) {
            let store = bench.fresh(kind).await;
            let measured = measure_round(store, sequential, concurrent).await;
            if round > 0 {
                kept.push(measured);
            }
        }
    }
    for (kind, kept) in StoreKind::ALL.into_iter().zip(&samples) {
        record(figures, kind, kept);
    }
}

/// One round on `store`: each operation one at a time on `sequential`
/// tasks, then from [`CALLERS`] callers on `concurrent` others.
async fn measure_round(store: Arc<dyn TaskStore>, sequential: usize, concurrent: usize) -> Round {
    let alone = new_ids(sequential);
    let shared: Vec<Vec<String>> = (0..CALLERS)
        .map(|_| new_ids(concurrent / CALLERS))
        .collect();
    let mut round = Round {
        latency: [0.0; 3],
        throughput: [0.0; 3],
    };
    for (i, op) in OPS.into_iter().enumerate() {
        let elapsed = run(Arc::clone(&store), op, alone.clone()).await;
        round.latency[i] = micros_per_op(elapsed, alone.len());
    }
    for (i, op) in OPS.into_iter().enumerate() {
        let elapsed = run_concurrently(&store, op, &shared).await;
        round.throughput[i] = ops_per_sec(elapsed, concurrent / CALLERS * CALLERS);
    }
    round
}

/// Prints and records the medians of `kind`'s rounds.
fn record(figures: &mut Figures, kind: StoreKind, rounds: &[Round]) {
    let name = kind.name();
    for (i, op) in OPS.into_iter().enumerate() {
        let latency: Vec<f64> = rounds.iter().map(|r| r.latency[i]).collect();
        let key = format!("{name}_{}_us", op.name());
        let label = format!("{name} store: {}, one caller, µs", op.name());
        figures.record(&key, &label, median(&latency));
    }
    for (i, op) in OPS.into_iter().enumerate() {
        let throughput: Vec<f64> = rounds.iter().map(|r| r.throughput[i]).collect();
        let key = format!("{name}_{}_per_s", op.name());
        let label = format!("{name} store: {}, {CALLERS} callers, ops/s", op.name());
        figures.record(&key, &label, median(&throughput));
    }
}

/// `op` on each of `ids` in turn; how long it took.
async fn run(store: Arc<dyn TaskStore>, op: Op, ids: Vec<String>) -> Duration {
    let start = Instant::now();
    for (step, id) in ids.into_iter().enumerate() {
        perform(store.as_ref(), op, id, step).await;
    }
    start.elapsed()
}

/// `op` from one caller per list of ids, all at once; how long until the
/// last finished.
async fn run_concurrently(store: &Arc<dyn TaskStore>, op: Op, ids: &[Vec<String>]) -> Duration {
    let start = Instant::now();
    let callers: Vec<_> = ids
        .iter()
        .map(|mine| tokio::spawn(run(Arc::clone(store), op, mine.clone())))
        .collect();
    for caller in callers {
        caller.await.expect("a caller finished");
    }
    start.elapsed()
}

/// One operation on task `id`, checked; `step` makes each status message
/// new.
async fn perform(store: &dyn TaskStore, op: Op, id: String, step: usize) {
    let limits = limits();
    match op {
        Op::Create => store.create(new_task(id), &limits).await.expect("create"),
        Op::Get => {
            let found = store.get(&id).await.expect("get");
            assert!(found.is_some(), "task {id} was created");
        }
        Op::Apply => {
            let change = TaskChange::StatusMessage(Some(format!("step {step}")));
            let changed = store.apply(&id, change, &limits).await.expect("apply");
            assert!(changed.is_some(), "task {id} was created");
        }
    }
}

/// A new `working` task, as the engine makes one with default settings.
pub fn new_task(id: String) -> TaskRecord {
    let ttl = Duration::from_secs(3_600);
    TaskRecord::new(id, None, Some(ttl), Some(Duration::from_millis(20)))
}

/// Limits that no figure reaches, so that nothing is evicted or refused.
pub fn limits() -> TaskLimits {
    TaskLimits::default()
        .max_tasks(10_000_000)
        .max_running_per_subject(10_000_000)
        .max_record_bytes(1 << 20)
        .max_store_bytes(1 << 40)
}

/// `count` task ids never used before in this process, as long as the
/// engine's (24 characters), so that the bytes per task are a server's.
pub fn new_ids(count: usize) -> Vec<String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let first = NEXT.fetch_add(count, Ordering::Relaxed);
    (first..first + count)
        .map(|n| format!("bench-task-{n:013}"))
        .collect()
}
