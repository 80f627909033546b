//! Task calls end to end, with each store behind the server: what a client
//! waits, not only what the store spends.
//!
//! Two calls, each through presa's in-process server and client:
//!
//! - **a task's whole life** (`*_task_call_us`): `tools/call ask`, which
//!   answers with a task; the handler asks a question, so the task parks
//!   at `input_required`; the client polls `tasks/get` until it sees the
//!   question, answers it with `tasks/update`, and polls again until the
//!   task is `completed`. Create, park, update, resume, complete and get:
//!   every store operation a task has, as a user sees it.
//! - **a task with no question** (`*_work_call_us`): `tools/call work`,
//!   polled until `completed`: create, complete, get.
//! - **a task's whole life, listened to** (`*_task_call_listen_us`): the
//!   same `tools/call ask`, followed by `Client::await_task` with
//!   `AwaitOptions::listen`: the client opens a `subscriptions/listen`
//!   stream and learns each state from `notifications/tasks`, and answers
//!   the question from its elicitation handler, with no poll.
//!
//! The polling client polls with no pause, so a poll that finds nothing
//! new costs what a `tasks/get` costs, and the figure includes it.
//! `*_polls_per_task` says how many polls a whole life took, on average:
//! two is the least, one to see the question and one to see the result.
//!
//! On Redis, a separate pass counts the round trips of a task's whole life
//! (`presa_redis::round_trips`, the counter the feature `round-trips`
//! keeps): each command, pipeline, script call or subscription counts
//! once. Polls that found nothing new are taken out, at what one
//! `tasks/get` costs, so the count is that of a client that polls exactly
//! twice: once to see the question, once to see the result.

use std::sync::Arc;
use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::presa_server::server_with_store;
use bench_harness::stats::{median, micros_per_op, rounds, scaled};
use bench_harness::wire::ASK_KEY;
use presa::client::{AwaitOptions, Client};
use presa::prelude::*;
use presa::server::tasks::store::TaskStore;
use presa::wire::{ElicitResult, InputResponse, TaskStatus};
use serde_json::json;

use crate::redis_server::Shape;
use crate::{Bench, StoreKind};

/// Tasks whose round trips are counted.
const COUNTED: u64 = 100;

/// Runs the end-to-end part: a warm-up round, then alternating rounds,
/// each on a new server with a fresh store; then the count of round trips.
pub async fn measure(bench: &Bench, figures: &mut Figures) {
    let calls = scaled(300);
    let mut whole: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut polls: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut listened: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut work: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..=rounds(7) {
        for (i, kind) in StoreKind::BOTH.into_iter().enumerate() {
            let client = client_of(bench.fresh(kind).await);
            let (life, life_polls) = whole_lives(&client, calls).await;
            let heard = listened_lives(&client, calls).await;
            let short = work_calls(&client, calls).await;
            if round > 0 {
                whole[i].push(life);
                polls[i].push(life_polls);
                listened[i].push(heard);
                work[i].push(short);
            }
        }
    }
    for (i, kind) in StoreKind::BOTH.into_iter().enumerate() {
        let name = kind.name();
        let label = format!(
            "{name} store: task call, whole life (create, park, update, resume, complete, get), µs"
        );
        figures.record(&format!("{name}_task_call_us"), &label, median(&whole[i]));
        let label = format!("{name} store: polls of tasks/get in that whole life, mean");
        figures.record(&format!("{name}_polls_per_task"), &label, median(&polls[i]));
        let label = format!("{name} store: task call, whole life, listened to, no poll, µs");
        figures.record(
            &format!("{name}_task_call_listen_us"),
            &label,
            median(&listened[i]),
        );
        let label = format!("{name} store: task call with no input to completed, polling, µs");
        figures.record(&format!("{name}_work_call_us"), &label, median(&work[i]));
    }
    count_round_trips(bench, figures).await;
}

/// A client, declaring tasks, of a new benchmark server on `store`.
fn client_of(store: Arc<dyn TaskStore>) -> Client {
    let server = server_with_store(store);
    Client::builder()
        .info("bench", "1")
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(in_process(&server, Caller::anonymous()))
}

/// `calls` task calls of `work`, each polled to completion; µs each.
async fn work_calls(client: &Client, calls: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        let id = start_task(client, "work").await;
        poll_until(client, &id, TaskStatus::Completed).await;
    }
    micros_per_op(start.elapsed(), calls)
}

/// `calls` whole task lives of `ask`: µs each, and polls each.
async fn whole_lives(client: &Client, calls: usize) -> (f64, f64) {
    let start = Instant::now();
    let mut polls = 0;
    for _ in 0..calls {
        let (to_park, to_end) = whole_life(client).await;
        polls += to_park + to_end;
    }
    let took = micros_per_op(start.elapsed(), calls);
    (took, polls as f64 / calls as f64)
}

/// `calls` whole task lives of `ask`, each followed by `await_task`
/// listening for its states; µs each.
async fn listened_lives(client: &Client, calls: usize) -> f64 {
    let listening = AwaitOptions::default().listen(true);
    let start = Instant::now();
    for _ in 0..calls {
        let id = start_task(client, "ask").await;
        let result = client
            .await_task(&id, listening.clone())
            .await
            .expect("the task completes");
        assert!(!result.is_error(), "task {id} failed: {result:?}");
    }
    micros_per_op(start.elapsed(), calls)
}

/// One task's whole life: its polls while it runs towards its question,
/// and while it runs towards its result.
async fn whole_life(client: &Client) -> (u64, u64) {
    let id = start_task(client, "ask").await;
    let to_park = poll_until(client, &id, TaskStatus::InputRequired).await;
    let answer = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    client
        .update_task(&id, [(ASK_KEY.to_owned(), answer)].into())
        .await
        .expect("tasks/update");
    let to_end = poll_until(client, &id, TaskStatus::Completed).await;
    (to_park, to_end)
}

/// Calls `tool` with no arguments, which the benchmark server runs as a
/// task; the task's id.
async fn start_task(client: &Client, tool: &str) -> String {
    let outcome = client.call_tool(tool, json!({})).await.expect("call");
    let task = outcome
        .task()
        .unwrap_or_else(|| panic!("{tool} made no task"));
    task.id().to_owned()
}

/// Polls `tasks/get` of `id` with no pause until it shows `status`; how
/// many polls that took. Any other end is a failure of the benchmark.
async fn poll_until(client: &Client, id: &str, status: TaskStatus) -> u64 {
    let mut polls = 0;
    loop {
        polls += 1;
        let got = client.get_task(id).await.expect("tasks/get");
        match got.task.status {
            seen if seen == status => return polls,
            TaskStatus::Working | TaskStatus::InputRequired => continue,
            other => panic!("task {id} ended {other:?}"),
        }
    }
}

/// Counts the round trips of [`COUNTED`] whole lives on plain Redis, and
/// records them per task and per half (to the question, and from the
/// answer to the result).
async fn count_round_trips(bench: &Bench, figures: &mut Figures) {
    let client = client_of(bench.fresh(StoreKind::Redis(Shape::Plain)).await);
    // The first life connects and loads the scripts: not counted.
    whole_life(&client).await;
    let per_get = {
        let id = start_task(&client, "work").await;
        poll_until(&client, &id, TaskStatus::Completed).await;
        let before = presa_redis::round_trips();
        client.get_task(&id).await.expect("tasks/get");
        presa_redis::round_trips() - before
    };
    let (mut to_park, mut to_end) = (0, 0);
    for _ in 0..COUNTED {
        let start = presa_redis::round_trips();
        let id = start_task(&client, "ask").await;
        let polls = poll_until(&client, &id, TaskStatus::InputRequired).await;
        let parked = presa_redis::round_trips();
        to_park += parked - start - (polls - 1) * per_get;
        let answer = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
        client
            .update_task(&id, [(ASK_KEY.to_owned(), answer)].into())
            .await
            .expect("tasks/update");
        let polls = poll_until(&client, &id, TaskStatus::Completed).await;
        to_end += presa_redis::round_trips() - parked - (polls - 1) * per_get;
    }
    let each = |total: u64| total as f64 / COUNTED as f64;
    figures.record(
        "redis_round_trips_per_task",
        "redis store: round trips in a task's whole life (two polls)",
        each(to_park + to_end),
    );
    figures.record(
        "redis_round_trips_to_park",
        "redis store: round trips from tools/call to seeing input_required",
        each(to_park),
    );
    figures.record(
        "redis_round_trips_to_complete",
        "redis store: round trips from tasks/update to seeing completed",
        each(to_end),
    );
    figures.record(
        "redis_round_trips_per_get",
        "redis store: round trips of one tasks/get",
        per_get as f64,
    );
}
