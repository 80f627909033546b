//! Two servers in one process sharing one Redis, as two replicas behind a
//! load balancer would: a task started through replica A is read,
//! answered, cancelled and listened to through replica B, each through
//! presa's own client.
//!
//! Each test starts a `redis-server` of its own (and is reported ignored
//! where the build found none, unless `PRESA_REQUIRE_REDIS=1`).
//! Nothing waits on time: the tests wait on the tools' signals and on the
//! protocol's own events, each within a guard that only fails a test that
//! would hang.

#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use presa::client::TaskSubscription;
use presa::client::prelude::*;
use presa::prelude::*;
use presa::wire::{DetailedTask, InputResponses, TaskStatus};
use presa_redis::RedisTaskStore;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;

use redis_server::RedisServer;

/// How long a test may wait for any one event before it fails.
const GUARD: Duration = Duration::from_secs(20);

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// One replica's name, and the signals between a test and the handlers
/// the replica runs.
#[derive(Clone)]
struct Replica {
    name: &'static str,
    /// A handler reached the point the test waits for.
    reached: Arc<Notify>,
    /// The test lets a handler go on.
    release: Arc<Notify>,
    /// A handler was dropped.
    dropped: Arc<Notify>,
}

impl Replica {
    fn named(name: &'static str) -> Self {
        Replica {
            name,
            reached: Arc::default(),
            release: Arc::default(),
            dropped: Arc::default(),
        }
    }
}

/// Signals `dropped` when the handler holding it is dropped.
struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// Builds after a confirmation, saying which replica built.
#[tool(task = "optional")]
async fn build(
    ctx: Context,
    State(replica): State<Replica>,
    target: String,
) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => {
            Ok(format!("built {target} on {}", replica.name))
        }
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Runs until dropped.
#[tool(task = "optional")]
async fn forever(State(replica): State<Replica>) -> String {
    let _dropped = DropSignal(Arc::clone(&replica.dropped));
    replica.reached.notify_one();
    std::future::pending().await
}

/// Reports three steps, each once the test lets it go on.
#[tool(task = "optional")]
async fn steps(ctx: Context, State(replica): State<Replica>) -> &'static str {
    for step in 1..=3 {
        ctx.set_status_message(format!("step {step}")).await;
        replica.reached.notify_one();
        replica.release.notified().await;
    }
    "stepped"
}

/// A replica: a server of its own, with a store of its own on `redis`.
fn replica(redis: &RedisServer, replica: &Replica) -> Server {
    let store = RedisTaskStore::builder(redis.url())
        .prefix("replicas:")
        .build()
        .expect("a valid URL");
    Server::builder(replica.name, "1")
        .tool(BuildTool)
        .tool(ForeverTool)
        .tool(StepsTool)
        .state(replica.clone())
        .tasks(TaskSettings::default())
        .task_store(store)
        .build()
}

/// Replicas A and B on one Redis, and a tasks client of each.
struct Pair {
    _redis: RedisServer,
    a: Replica,
    to_a: Client,
    to_b: Client,
}

fn pair(redis: RedisServer) -> Pair {
    let (a, b) = (Replica::named("A"), Replica::named("B"));
    // The handler declares elicitation; the tests answer with
    // `tasks/update` themselves, so it is never called.
    let client = |server: &Server| {
        Client::builder()
            .tasks(true)
            .on_elicitation(|_| async { ElicitResult::decline() })
            .connect(in_process(server, Caller::anonymous()))
    };
    let to_a = client(&replica(&redis, &a));
    let to_b = client(&replica(&redis, &b));
    Pair {
        _redis: redis,
        a,
        to_a,
        to_b,
    }
}

/// `future`'s output, failing the test if it takes longer than [`GUARD`].
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Starts `tool` through `client` and returns the task's id.
async fn start(client: &Client, tool: &str, arguments: Value) -> String {
    let created = client.call_tool(tool, arguments).await.unwrap();
    created.task().expect("a task").id().to_owned()
}

/// The next state `events` reports.
async fn next(events: &mut TaskSubscription) -> DetailedTask {
    within("a task notification", events.next())
        .await
        .unwrap_or_else(|| panic!("the stream ended: {:?}", events.end()))
}

/// Reads `events` until the task has `status`.
async fn until(events: &mut TaskSubscription, status: TaskStatus) -> DetailedTask {
    loop {
        let task = next(events).await;
        if task.task.status == status {
            return task;
        }
        assert!(!task.task.status.is_terminal(), "ended as {task:?}");
    }
}

/// The text of a completed task's result.
fn text(task: &DetailedTask) -> &str {
    let result = task.result.as_ref().expect("a result");
    result["content"][0]["text"].as_str().expect("text")
}

crate::redis_tests!(
    a_task_started_on_one_replica_is_read_and_answered_through_the_other,
    cancelling_through_one_replica_drops_the_handler_on_the_other,
    a_listener_on_one_replica_sees_the_other_replicas_changes_in_order,
);

async fn a_task_started_on_one_replica_is_read_and_answered_through_the_other(redis: RedisServer) {
    let pair = pair(redis);
    let task = start(&pair.to_a, "build", json!({"target": "all"})).await;
    let mut events = pair.to_b.listen_tasks(vec![task.clone()]).await.unwrap();
    assert_eq!(events.acknowledged(), std::slice::from_ref(&task));
    until(&mut events, TaskStatus::InputRequired).await;

    let read = pair.to_b.get_task(&task).await.unwrap();
    assert_eq!(read.task.status, TaskStatus::InputRequired);
    let asked = read.input_requests.expect("input requests");
    assert!(asked.contains_key("confirm"), "{asked:?}");

    let answer: InputResponses =
        serde_json::from_value(json!({"confirm": {"action": "accept", "content": {"ok": true}}}))
            .unwrap();
    pair.to_b.update_task(&task, answer).await.unwrap();
    let done = until(&mut events, TaskStatus::Completed).await;
    assert_eq!(text(&done), "built all on A");
    let read = pair.to_a.get_task(&task).await.unwrap();
    assert_eq!(text(&read), "built all on A");
}

async fn cancelling_through_one_replica_drops_the_handler_on_the_other(redis: RedisServer) {
    let pair = pair(redis);
    let task = start(&pair.to_a, "forever", json!({})).await;
    within("the handler on A", pair.a.reached.notified()).await;

    pair.to_b.cancel_task(&task).await.unwrap();
    within("A dropping the handler", pair.a.dropped.notified()).await;
    for client in [&pair.to_a, &pair.to_b] {
        let read = client.get_task(&task).await.unwrap();
        assert_eq!(read.task.status, TaskStatus::Cancelled);
    }
}

async fn a_listener_on_one_replica_sees_the_other_replicas_changes_in_order(redis: RedisServer) {
    let pair = pair(redis);
    let task = start(&pair.to_a, "steps", json!({})).await;
    within("step 1 on A", pair.a.reached.notified()).await;
    let mut events = pair.to_b.listen_tasks(vec![task.clone()]).await.unwrap();

    for step in ["step 1", "step 2", "step 3"] {
        let seen = next(&mut events).await;
        assert_eq!(seen.task.status, TaskStatus::Working, "{seen:?}");
        assert_eq!(seen.task.status_message.as_deref(), Some(step));
        pair.a.release.notify_one();
    }
    let done = next(&mut events).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    assert_eq!(text(&done), "stepped");
    assert!(
        within("the end of the stream", events.next())
            .await
            .is_none()
    );
}
