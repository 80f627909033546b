//! Taking over the tasks of a replica that died, on Redis: a task whose
//! lease lapsed is failed with `-32603`, or run again when its tool is
//! resumable, by exactly one of the replicas that find it.
//!
//! The dead replica is a record written straight into Redis, with a lease
//! that lapsed long ago; the live replicas take short leases, so their
//! sweepers look every 150 ms. The tests wait on the protocol (the task's
//! end, read by polling `tasks/get`), each within a guard that only fails
//! a test that would hang.

#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientError};
use presa::prelude::*;
use presa::server::tasks::store::{
    Lease, ResumableCall, StoredAnswer, StoredCall, TaskLimits, TaskRecord, TaskStore,
};
use presa::wire::{ElicitRequestParams, InputResponse};
use presa_redis::RedisTaskStore;
use serde::Deserialize;
use serde_json::json;

use redis_server::RedisServer;

/// The live replicas' leases: short, so that their sweepers run often.
const LEASE: Duration = Duration::from_millis(300);

/// How long a test may wait for a task's end.
const GUARD: Duration = Duration::from_secs(20);

const PREFIX: &str = "takeover:";

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Region {
    region: String,
}

/// How many times `deploy` ran from its start, on any replica.
#[derive(Clone, Default)]
struct Runs(Arc<AtomicUsize>);

/// Asks two questions, then deploys; safe to run again from the start.
#[tool(task = "optional", resumable)]
async fn deploy(
    ctx: Context,
    State(runs): State<Runs>,
    service: String,
) -> Result<String, ToolError> {
    runs.0.fetch_add(1, Ordering::SeqCst);
    let confirmed = ctx.elicit::<Confirm>("confirm", "Deploy?").await?;
    if !confirmed.accepted().is_some_and(|c| c.ok) {
        return Err(ToolError::new("not confirmed"));
    }
    let region = ctx.elicit::<Region>("region", "Where?").await?;
    let region = region.accepted().map_or("nowhere".into(), |r| r.region);
    Ok(format!("deployed {service} to {region}"))
}

/// Not resumable: its tasks fail when their server dies.
#[tool(task = "optional")]
async fn build(ctx: Context) -> Result<String, ToolError> {
    ctx.elicit::<Confirm>("confirm", "Build?").await?;
    Ok("built".into())
}

fn store(redis: &RedisServer) -> RedisTaskStore {
    RedisTaskStore::builder(redis.url())
        .prefix(PREFIX)
        .build()
        .expect("a valid URL")
}

/// A live replica on `redis`, taking leases.
fn replica(redis: &RedisServer, runs: &Runs) -> Server {
    Server::builder("replica", "1")
        .tool(DeployTool)
        .tool(BuildTool)
        .state(runs.clone())
        .tasks(TaskSettings::default().lease(LEASE))
        .task_store(store(redis))
        .build()
}

/// A client that answers `region` and records every key it is asked.
fn client(server: &Server, asked: &Arc<std::sync::Mutex<Vec<String>>>) -> Client {
    let asked = Arc::clone(asked);
    Client::builder()
        .tasks(true)
        .on_elicitation(move |pending| {
            asked.lock().unwrap().push(pending.key.clone());
            let ElicitRequestParams::Form { message, .. } = pending.params else {
                panic!("a form was expected");
            };
            let content = match message.as_str() {
                "Where?" => json!({"region": "eu-west"}),
                _ => json!({"ok": true}),
            };
            async move { ElicitResult::accept(content) }
        })
        .connect(in_process(server, Caller::anonymous()))
}

/// A task of `tool` that a dead server ran: the user confirmed, and its
/// lease lapsed long ago. A `deploy` task keeps its call.
async fn orphan(store: &RedisTaskStore, id: &str, tool: &str) {
    let hour = Some(Duration::from_secs(3600));
    let mut record = TaskRecord::new(id.into(), None, hour, Some(Duration::from_millis(20)));
    if tool == "deploy" {
        let capabilities = json!({"elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}});
        record = record.with_call(StoredCall::new(&ResumableCall::new(
            tool,
            json!({"service": "api"}).as_object().unwrap().clone(),
            "2026-07-28",
            serde_json::from_value(capabilities).unwrap(),
        )));
    }
    let confirmed = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    record = record.with_answers(
        [("confirm".to_owned(), StoredAnswer::new(&confirmed))]
            .into_iter()
            .collect(),
    );
    let limits = TaskLimits::default()
        .max_tasks(100)
        .max_running_per_subject(100)
        .max_record_bytes(1 << 20)
        .max_store_bytes(1 << 24);
    store.create(record, &limits).await.unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let lease = Lease::new("dead-server", then, LEASE);
    assert!(store.hold(id, &lease, then).await.unwrap());
}

crate::redis_tests!(
    a_resumable_task_is_run_again_once_by_one_of_two_replicas,
    a_task_of_a_tool_that_is_not_resumable_fails_as_an_internal_error,
);

async fn a_resumable_task_is_run_again_once_by_one_of_two_replicas(redis: RedisServer) {
    orphan(&store(&redis), "deploy-task", "deploy").await;
    let runs = Runs::default();
    let asked = Arc::default();
    let (b, c) = (replica(&redis, &runs), replica(&redis, &runs));
    let (to_b, to_c) = (client(&b, &asked), client(&c, &asked));
    // A task request starts each replica's sweeper.
    to_c.get_task("deploy-task").await.unwrap();

    let patience = AwaitOptions::default().timeout(GUARD);
    let result = to_b.await_task("deploy-task", patience).await.unwrap();

    assert_eq!(result.text(), Some("deployed api to eu-west"));
    assert_eq!(
        *asked.lock().unwrap(),
        ["region"],
        "the user is never asked twice"
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 1, "one replica ran it again");
}

async fn a_task_of_a_tool_that_is_not_resumable_fails_as_an_internal_error(redis: RedisServer) {
    orphan(&store(&redis), "build-task", "build").await;
    let runs = Runs::default();
    let b = replica(&redis, &runs);
    let to_b = client(&b, &Arc::default());

    let patience = AwaitOptions::default().timeout(GUARD);
    let outcome = to_b.await_task("build-task", patience).await;

    let Err(ClientError::TaskFailed(error)) = outcome else {
        panic!("the task was not failed: {outcome:?}");
    };
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32603, "Internal error")
    );
}
