//! Scale: `tasks/get` latency with 1k, 10k and 100k live tasks, and the
//! resident memory each live task costs.
//!
//! Each (framework, kind) pair runs in a process of its own (this binary
//! with `scale-child FRAMEWORK KIND`), so that one measurement's heap is
//! not the next one's baseline. The kinds:
//! - `finished`: `work` tasks, completed, their result a four-byte text so
//!   that the payload stays out of the figure;
//! - `parked`: `ask` tasks, waiting at `input_required` for an answer that
//!   never comes;
//! - `parked_resumable`: the same of `resumable`, presa's tool declared
//!   `resumable`, whose parked task need not keep its handler (presa only:
//!   rmcp has no such tool).
//!
//! The child creates tasks (16 calls in flight) up to each checkpoint,
//! waits for them to settle, and times `tasks/get` on tasks drawn over
//! the whole range. Memory per task is the growth of the resident set from
//! before the first task to the last checkpoint, less the harness's own
//! copy of the task ids, divided by the tasks.
//!
//! rmcp stops at 10k: its `TaskManager` sweeps every task for expiry on
//! each `tasks/get` and each new task, so making 100k tasks takes time
//! quadratic in their number (minutes here). `BENCH_RMCP_100K=1` measures
//! it anyway.

use std::time::{Duration, Instant};

use bench_harness::Framework;
use bench_harness::figures::{FIGURES_PREFIX, Figures};
use bench_harness::memory::resident_bytes;
use bench_harness::stats::{median, micros_per_op};
use futures::StreamExt;
use presa::client::Client;
use serde_json::Value;

use crate::clients::{
    Link, RmcpClient, presa_echo, presa_pair, presa_start_task, presa_task_status, rmcp_echo,
    rmcp_pair, rmcp_start_task, rmcp_task_status,
};

/// Task creations in flight while filling the store.
const CREATORS: usize = 16;

/// The task counts at which `tasks/get` is timed.
const CHECKPOINTS: [(usize, &str); 3] = [(1_000, "1k"), (10_000, "10k"), (100_000, "100k")];

/// What the live tasks are doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Completed, with a tiny result.
    Finished,
    /// Waiting at `input_required`.
    Parked,
    /// Waiting at `input_required`, of a resumable tool.
    ParkedResumable,
}

impl Kind {
    /// Every kind, in measuring order.
    const ALL: [Kind; 3] = [Kind::Finished, Kind::Parked, Kind::ParkedResumable];

    /// The name used in keys and on the command line.
    fn name(self) -> &'static str {
        match self {
            Kind::Finished => "finished",
            Kind::Parked => "parked",
            Kind::ParkedResumable => "parked_resumable",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The tool whose tasks are of this kind.
    fn tool(self) -> &'static str {
        match self {
            Kind::Finished => "work",
            Kind::Parked => "ask",
            Kind::ParkedResumable => "resumable",
        }
    }

    /// The frameworks whose servers have this kind's tool.
    fn frameworks(self) -> &'static [Framework] {
        match self {
            Kind::ParkedResumable => &[Framework::Presa],
            _ => &Framework::BOTH,
        }
    }

    /// The status a settled task of this kind shows.
    fn settled_status(self) -> &'static str {
        match self {
            Kind::Finished => "completed",
            Kind::Parked | Kind::ParkedResumable => "input_required",
        }
    }
}

/// A tasks client of either framework, as the scale figures use it.
trait TaskClient {
    /// Starts `tool` as a task; its id.
    async fn start(&self, tool: &str) -> String;
    /// `tasks/get` of `id`; its status name.
    async fn status(&self, id: &str) -> String;
    /// One plain call, to warm the connection up.
    async fn warm_up(&self);
}

impl TaskClient for Client {
    async fn start(&self, tool: &str) -> String {
        presa_start_task(self, tool).await
    }
    async fn status(&self, id: &str) -> String {
        presa_task_status(self, id).await
    }
    async fn warm_up(&self) {
        presa_echo(self).await
    }
}

impl TaskClient for RmcpClient {
    async fn start(&self, tool: &str) -> String {
        rmcp_start_task(self, tool).await
    }
    async fn status(&self, id: &str) -> String {
        rmcp_task_status(self, id).await
    }
    async fn warm_up(&self) {
        rmcp_echo(self).await
    }
}

/// Runs the scale section: one child process per (kind, framework), in
/// alternation, forwarding their rows and gathering their figures.
pub async fn measure(figures: &mut Figures) -> std::io::Result<()> {
    for kind in Kind::ALL {
        for &framework in kind.frameworks() {
            let output = tokio::process::Command::new(std::env::current_exe()?)
                .args(["scale-child", framework.name(), kind.name()])
                .stderr(std::process::Stdio::inherit())
                .output()
                .await?;
            if !output.status.success() {
                return Err(std::io::Error::other(format!(
                    "scale-child {} {} failed",
                    framework.name(),
                    kind.name()
                )));
            }
            forward(&String::from_utf8_lossy(&output.stdout), figures);
        }
    }
    Ok(())
}

/// Prints a child's rows and records the figures of its `FIGURES` line.
fn forward(stdout: &str, figures: &mut Figures) {
    for line in stdout.lines() {
        let Some(json) = line.strip_prefix(FIGURES_PREFIX) else {
            println!("{line}");
            continue;
        };
        let values: serde_json::Map<String, Value> =
            serde_json::from_str(json).expect("a child's figures are JSON");
        for (key, value) in values {
            figures.insert(&key, value);
        }
    }
}

/// The child: one framework, one kind, every checkpoint.
pub async fn child(framework: Framework, kind: Kind) -> Figures {
    let mut figures = Figures::new();
    let all = std::env::var_os("BENCH_RMCP_100K").is_some();
    let checkpoints = match framework {
        Framework::Presa => &CHECKPOINTS[..],
        Framework::Rmcp if all => &CHECKPOINTS[..],
        _ => &CHECKPOINTS[..2],
    };
    match framework {
        Framework::Presa => {
            let client = presa_pair(Link::InProcess, true);
            fill(&client, framework, kind, checkpoints, &mut figures).await;
        }
        Framework::Rmcp => {
            let client = rmcp_pair(Link::InProcess, true).await;
            fill(&client, framework, kind, checkpoints, &mut figures).await;
        }
        _ => unreachable!("the in-process sections measure presa and rmcp"),
    }
    figures
}

/// Creates tasks up to each checkpoint, timing `tasks/get` at each, then
/// records the memory per task at the last.
async fn fill<C: TaskClient>(
    client: &C,
    framework: Framework,
    kind: Kind,
    checkpoints: &[(usize, &str)],
    figures: &mut Figures,
) {
    let most = checkpoints.last().expect("a checkpoint").0;
    let mut ids: Vec<String> = Vec::with_capacity(most);
    for _ in 0..100 {
        client.warm_up().await;
    }
    let before = resident_bytes();
    let prefix = format!("{}_{}", framework.name(), kind.name());
    for &(count, name) in checkpoints {
        create(client, kind, count - ids.len(), &mut ids).await;
        settle(client, kind, &ids).await;
        let label = format!("{prefix}: tasks/get with {name} live tasks, µs");
        let key = format!("{prefix}_tasks_get_{name}_us");
        figures.record(&key, &label, time_gets(client, &ids).await);
        let label = format!("{prefix}: resident bytes per task at {name} tasks");
        let key = format!(
            "{}_bytes_per_{}_task_at_{name}",
            framework.name(),
            kind.name()
        );
        figures.record(&key, &label, bytes_per_task(before, &ids));
    }
    let key = format!("{}_bytes_per_{}_task", framework.name(), kind.name());
    let label = format!("{prefix}: resident bytes per task, at {most} tasks");
    figures.record(&key, &label, bytes_per_task(before, &ids));
}

/// The growth of the resident set since `before`, less the heap of the
/// harness's copy of `ids`, per task.
fn bytes_per_task(before: u64, ids: &[String]) -> f64 {
    let ids_heap: usize = ids.iter().map(|id| heap_block(id.capacity())).sum();
    let grown = resident_bytes().saturating_sub(before) as f64 - ids_heap as f64;
    grown / ids.len() as f64
}

/// Starts `count` more tasks of `kind`, [`CREATORS`] at a time.
async fn create<C: TaskClient>(client: &C, kind: Kind, count: usize, ids: &mut Vec<String>) {
    let made: Vec<String> = futures::stream::iter(0..count)
        .map(|_| client.start(kind.tool()))
        .buffer_unordered(CREATORS)
        .collect()
        .await;
    ids.extend(made);
}

/// Waits until the tasks show their settled status (checked on the last
/// and on a sample), then a little more for stragglers.
async fn settle<C: TaskClient>(client: &C, kind: Kind, ids: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let sample = ids.iter().rev().step_by(ids.len() / 16 + 1);
    for id in sample {
        loop {
            let status = client.status(id).await;
            if status == kind.settled_status() {
                break;
            }
            assert!(Instant::now() < deadline, "task {id} stuck at {status}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The median over 7 batches (after one to warm up) of the mean `tasks/get` latency, on ids
/// spread over the whole range; microseconds.
async fn time_gets<C: TaskClient>(client: &C, ids: &[String]) -> f64 {
    let mut batches = Vec::new();
    let mut pick = 12_345usize;
    // The first batch wakes the runtime's threads from the settling pause.
    for batch in 0..8 {
        let gets = 400;
        let start = Instant::now();
        for _ in 0..gets {
            pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            std::hint::black_box(client.status(&ids[(pick >> 17) % ids.len()]).await);
        }
        if batch > 0 {
            batches.push(micros_per_op(start.elapsed(), gets));
        }
    }
    median(&batches)
}

/// What the allocator takes for a block of `bytes` (glibc: an 8-byte
/// header, 16-byte alignment, 32 bytes at least).
fn heap_block(bytes: usize) -> usize {
    (bytes + 8).next_multiple_of(16).max(32)
}
