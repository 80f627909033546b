//! A task call end to end, with each store behind the server: what a
//! client waits, not only what the store spends.
//!
//! presa's in-process client calls `work` (which answers with a task),
//! then polls `tasks/get` with no pause until the task is `completed`, as
//! the lifecycle section does. Between the two, the engine creates the
//! task, runs the handler, and stores its result: three store operations
//! and a read per poll, so the figure shows how much of a call the store
//! is.

use std::sync::Arc;
use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::presa_server::server_with_store;
use bench_harness::stats::{median, micros_per_op, rounds, scaled};
use presa::client::Client;
use presa::prelude::*;
use presa::server::tasks::store::TaskStore;
use presa::wire::TaskStatus;
use serde_json::json;

use crate::{Bench, StoreKind};

/// Runs the end-to-end part: a warm-up round, then alternating rounds,
/// each on a new server with a fresh store.
pub async fn measure(bench: &Bench, figures: &mut Figures) {
    let calls = scaled(300);
    let mut samples: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..=rounds(7) {
        for (kind, kept) in StoreKind::BOTH.into_iter().zip(samples.iter_mut()) {
            let client = client_of(bench.fresh(kind).await);
            let micros = task_calls(&client, calls).await;
            if round > 0 {
                kept.push(micros);
            }
        }
    }
    for (kind, kept) in StoreKind::BOTH.into_iter().zip(&samples) {
        let name = kind.name();
        let label = format!("{name} store: task call to completed, polling, µs");
        figures.record(&format!("{name}_task_call_us"), &label, median(kept));
    }
}

/// A client, declaring tasks, of a new benchmark server on `store`.
fn client_of(store: Arc<dyn TaskStore>) -> Client {
    let server = server_with_store(store);
    Client::builder()
        .info("bench", "1")
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()))
}

/// `calls` task calls of `work`, each polled to completion; µs each.
async fn task_calls(client: &Client, calls: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        let outcome = client.call_tool("work", json!({})).await.expect("call");
        let id = outcome.task().expect("work made a task").id().to_owned();
        loop {
            let got = client.get_task(&id).await.expect("tasks/get");
            match got.task.status {
                TaskStatus::Completed => break,
                TaskStatus::Working => continue,
                other => panic!("task {id} ended {other:?}"),
            }
        }
    }
    micros_per_op(start.elapsed(), calls)
}
