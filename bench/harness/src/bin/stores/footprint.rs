//! What a task costs Redis's memory: the growth of `used_memory` (`INFO
//! memory`) over many tasks, divided by them.
//!
//! `used_memory` is what Redis's allocator holds, so the figure includes
//! everything the store keeps per task besides its record: the keys, the
//! expiry entry, and the indexes by owner and by finish order. It leaves
//! out the allocator's slack that the resident size would add, which
//! `INFO` reports only for the whole server.
//!
//! Two kinds of task, as in the scale section:
//! - finished: completed with the `work` tool's result;
//! - parked: waiting at `input_required` on one form elicitation, the
//!   `ask` tool's.
//!
//! The tasks are made through the store by [`CALLERS`] callers at once,
//! on an emptied server, after a warm-up round that loads the store's
//! scripts (which `FLUSHALL` keeps).

use std::sync::Arc;

use bench_harness::figures::Figures;
use bench_harness::stats::{median, rounds, scaled};
use presa::server::tasks::store::{TaskChange, TaskStore};
use presa::wire::{ElicitRequestParams, InputRequest, InputRequests};
use serde_json::{Map, Value, json};

use crate::ops::{CALLERS, limits, new_ids, new_task};
use crate::redis_server::Shape;
use crate::{Bench, StoreKind};

/// The kinds of task measured.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Finished,
    Parked,
}

impl Kind {
    const BOTH: [Kind; 2] = [Kind::Finished, Kind::Parked];

    fn name(self) -> &'static str {
        match self {
            Kind::Finished => "finished",
            Kind::Parked => "parked",
        }
    }

    /// The change that brings a new task to this kind's state.
    fn change(self) -> TaskChange {
        match self {
            Kind::Finished => TaskChange::Complete(work_result()),
            Kind::Parked => TaskChange::RequestInput(ask_request()),
        }
    }
}

/// Runs the memory part: for each kind, a warm-up round and then median
/// bytes per task over a few rounds (the figure varies little).
pub async fn measure(bench: &Bench, figures: &mut Figures) {
    let tasks = scaled(10_000);
    for kind in Kind::BOTH {
        let mut samples = Vec::new();
        for round in 0..=rounds(3).min(3) {
            let bytes = bytes_per_task(bench, kind, tasks).await;
            if round > 0 {
                samples.push(bytes);
            }
        }
        let name = kind.name();
        let label = format!("redis store: used_memory per {name} task, bytes");
        let key = format!("redis_bytes_per_{name}_task");
        figures.record(&key, &label, median(&samples));
    }
}

/// `tasks` new tasks of `kind` on an emptied server; the growth of its
/// `used_memory` per task.
async fn bytes_per_task(bench: &Bench, kind: Kind, tasks: usize) -> f64 {
    let store = bench.fresh(StoreKind::Redis(Shape::Plain)).await;
    let before = bench.server().used_memory().await;
    let callers: Vec<_> = (0..CALLERS)
        .map(|_| tokio::spawn(make(Arc::clone(&store), kind, new_ids(tasks / CALLERS))))
        .collect();
    for caller in callers {
        caller.await.expect("a caller finished");
    }
    let after = bench.server().used_memory().await;
    after.saturating_sub(before) as f64 / (tasks / CALLERS * CALLERS) as f64
}

/// Creates a task per id and brings it to `kind`'s state.
async fn make(store: Arc<dyn TaskStore>, kind: Kind, ids: Vec<String>) {
    let limits = limits();
    for id in ids {
        store
            .create(new_task(id.clone()), &limits)
            .await
            .expect("create");
        let changed = store.apply(&id, kind.change(), &limits).await;
        assert!(changed.expect("apply").is_some(), "task {id} was created");
    }
}

/// What the benchmark's `work` tool returns.
fn work_result() -> Map<String, Value> {
    let result = json!({"content": [{"type": "text", "text": "done"}]});
    result.as_object().expect("an object").clone()
}

/// What the benchmark's `ask` tool asks: one form with a boolean.
fn ask_request() -> InputRequests {
    let schema = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean", "description": "Whether to go ahead."}},
        "required": ["ok"],
    });
    let form = ElicitRequestParams::Form {
        message: "Go ahead?".to_owned(),
        requested_schema: schema,
    };
    InputRequests::from([("confirm".to_owned(), InputRequest::Elicit(form))])
}
