//! The task lifecycle in process: from `tools/call work`, which answers
//! with a task, to observing the task `completed`.
//!
//! Two ways to observe it:
//! - polling: `tasks/get` again and again, with no pause, until the status
//!   is final (a client would pause for `pollIntervalMs`; without the
//!   pause the figure is the frameworks' cost, not the interval);
//! - listening: presa's `await_task` with `listen(true)`, which opens a
//!   `subscriptions/listen` stream for the task and waits for the
//!   `notifications/tasks` that says it completed. rmcp 3.11 does not route
//!   task notifications through `subscriptions/listen` (its server refuses
//!   them: its `SubscriptionFilter` has no `taskIds`), so there is no rmcp
//!   figure for it.

use std::time::Instant;

use bench_harness::figures::Figures;
use bench_harness::stats::{median, micros_per_op, rounds, scaled};
use presa::client::AwaitOptions;
use presa::client::Client;

use crate::clients::{
    Link, RmcpClient, is_terminal, presa_pair, presa_start_task, presa_task_status, rmcp_pair,
    rmcp_start_task, rmcp_task_status,
};

/// Runs the lifecycle section: warm-up, then alternating rounds, each on
/// new servers, so that the tasks of earlier rounds do not weigh on later
/// ones (the scale section measures that).
pub async fn measure(figures: &mut Figures) {
    let tasks = scaled(500);
    let (mut presa_poll, mut rmcp_poll, mut presa_listen) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=rounds(7) {
        let presa = presa_pair(Link::InProcess, true);
        let rmcp = rmcp_pair(Link::InProcess, true).await;
        let samples = [
            presa_polling(&presa, tasks).await,
            rmcp_polling(&rmcp, tasks).await,
            presa_listening(&presa, tasks).await,
        ];
        if round > 0 {
            presa_poll.push(samples[0]);
            rmcp_poll.push(samples[1]);
            presa_listen.push(samples[2]);
        }
    }
    let label = "presa: task call to completed, polling tasks/get, µs";
    figures.record("presa_poll_completion_us", label, median(&presa_poll));
    let label = "rmcp: task call to completed, polling tasks/get, µs";
    figures.record("rmcp_poll_completion_us", label, median(&rmcp_poll));
    let label = "presa: task call to completed, subscriptions/listen, µs";
    figures.record("presa_listen_completion_us", label, median(&presa_listen));
}

/// `tasks` task calls, each polled to completion; microseconds each.
async fn presa_polling(client: &Client, tasks: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..tasks {
        let id = presa_start_task(client, "work").await;
        while !is_terminal(&presa_task_status(client, &id).await) {}
    }
    micros_per_op(start.elapsed(), tasks)
}

/// `tasks` task calls, each polled to completion; microseconds each.
async fn rmcp_polling(client: &RmcpClient, tasks: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..tasks {
        let id = rmcp_start_task(client, "work").await;
        while !is_terminal(&rmcp_task_status(client, &id).await) {}
    }
    micros_per_op(start.elapsed(), tasks)
}

/// `tasks` task calls, each awaited by listening; microseconds each.
async fn presa_listening(client: &Client, tasks: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..tasks {
        let id = presa_start_task(client, "work").await;
        let result = client
            .await_task(&id, AwaitOptions::default().listen(true))
            .await
            .expect("the task completes");
        assert_eq!(result.text(), Some("done"), "presa work answered wrong");
    }
    micros_per_op(start.elapsed(), tasks)
}
