//! Two replicas of one server on one Redis, as behind a load balancer: a
//! task started through one is answered and finished through the other.
//!
//! ```text
//! redis-server --port 6379 &
//! cargo run --example replicas -- redis://127.0.0.1:6379/
//! ```
//!
//! Each replica is a server of its own on an HTTP port of its own, with a
//! [`RedisTaskStore`] on the same Redis (the URL given, or
//! `redis://127.0.0.1:6379/`). A client of replica `a` calls `build`, which
//! becomes a task and asks for confirmation; a client of replica `b` finds
//! the question by reading the task, answers it, and polls the task until
//! it completes. The handler runs on `a` all along, so the result says
//! `built all on a`: the answer reached it through Redis.
//!
//! Each replica holds a lease on the tasks it runs, so that if it died,
//! the other would fail them once the lease lapsed rather than leave them
//! running (see the `jobs` example's `--lease`).
//!
//! Without a Redis at the URL it says so and exits with status 1.

use std::error::Error;
use std::time::Duration;

use presa::client::ClientTransport;
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::TaskStore;
use presa::server::http::StreamableHttp;
use presa::wire::{DetailedTask, InputResponses, TaskStatus};
use presa_redis::RedisTaskStore;
use serde::Deserialize;
use serde_json::json;

/// What every key and channel of this example starts with, in Redis.
const PREFIX: &str = "presa-example-replicas:";

/// The answer `build` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Whether to go ahead with the build.
    ok: bool,
}

/// The name of the replica a handler runs on.
#[derive(Clone)]
struct Replica(&'static str);

/// Builds a target once the user confirms, saying which replica built it.
#[tool(task = "optional")]
async fn build(
    ctx: Context,
    State(replica): State<Replica>,
    #[param(description = "What to build, such as `docs` or `all`")] target: String,
) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => {
            Ok(format!("built {target} on {}", replica.0))
        }
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// The task store of a replica: Redis at `url`, under this example's
/// prefix. It connects on first use.
fn store(url: &str) -> Result<RedisTaskStore, Box<dyn Error>> {
    Ok(RedisTaskStore::builder(url).prefix(PREFIX).build()?)
}

/// Fails, saying so, unless a Redis answers at `url`.
async fn check_reachable(url: &str) -> Result<(), Box<dyn Error>> {
    store(url)?.count().await.map_err(|e| {
        format!("no Redis is reachable at {url} ({e}): start one (`redis-server`), or pass its URL")
    })?;
    Ok(())
}

/// Starts replica `name` on a free local port, and returns its endpoint.
async fn start_replica(name: &'static str, redis: &str) -> Result<String, Box<dyn Error>> {
    let server = Server::builder("replicas", env!("CARGO_PKG_VERSION"))
        .tool(BuildTool)
        .state(Replica(name))
        .tasks(TaskSettings::default().lease(Duration::from_secs(10)))
        .task_store(store(redis)?)
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(StreamableHttp::new(server).serve_on(listener));
    println!("replica {name} serves {url}");
    Ok(url)
}

/// A client of the replica at `url` that declares the Tasks extension, and
/// elicitation: a task's question is asked only of a client that can
/// answer it. This one answers it by hand, with `tasks/update`, so its
/// handler only declines what it is asked otherwise.
fn client(url: &str) -> Result<Client, Box<dyn Error>> {
    Ok(Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::decline() })
        .connect(ClientTransport::http(url)?))
}

/// Reads `task` through `client` at the pace it suggests until its status
/// is `wanted`; fails if it ends otherwise.
async fn poll_until(
    client: &Client,
    task: &str,
    wanted: TaskStatus,
) -> Result<DetailedTask, Box<dyn Error>> {
    loop {
        let read = client.get_task(task).await?;
        if read.task.status == wanted {
            return Ok(read);
        }
        if read.task.status.is_terminal() {
            let error = read.error.map(|e| e.message).unwrap_or_default();
            return Err(format!("task {task} ended {} instead: {error}", read.task.status).into());
        }
        let pause = read.task.poll_interval_ms.unwrap_or(100);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}

async fn run(redis: &str) -> Result<(), Box<dyn Error>> {
    check_reachable(redis).await?;
    let to_a = client(&start_replica("a", redis).await?)?;
    let to_b = client(&start_replica("b", redis).await?)?;

    let created = to_a.call_tool("build", json!({"target": "all"})).await?;
    let task = created.task().ok_or("build answered without a task")?.id();
    println!("started task {task} through a");

    let parked = poll_until(&to_b, task, TaskStatus::InputRequired).await?;
    let asked: Vec<_> = parked
        .input_requests
        .unwrap_or_default()
        .into_keys()
        .collect();
    println!("b reads it: {}, asking for {asked:?}", parked.task.status);
    let confirm = ElicitResult::accept(json!({"ok": true}));
    to_b.update_task(
        task,
        InputResponses::from([("confirm".to_owned(), confirm.into())]),
    )
    .await?;
    println!("answered through b");

    let done = poll_until(&to_b, task, TaskStatus::Completed).await?;
    let result: CallToolResult = serde_json::from_value(done.result.unwrap_or_default().into())?;
    println!(
        "completed, read through b: {}",
        result.text().unwrap_or("(no text)")
    );
    to_a.close().await?;
    to_b.close().await?;
    Ok(())
}

#[tokio::main]
async fn main() {
    let redis = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "redis://127.0.0.1:6379/".into());
    if let Err(e) = run(&redis).await {
        eprintln!("replicas: {e}");
        std::process::exit(1);
    }
}
