//! Leases between servers that share a task store: a task whose server
//! stopped renewing its lease is taken over (failed with `-32603`, or run
//! again when its tool is resumable), and a server whose lease was taken
//! drops its handler.
//!
//! The servers share one in-memory store, as replicas share Redis. A dead
//! server is a lease that lapsed in the store. Time is tokio's paused
//! clock; leases are wall-clock times, set far enough apart that the
//! tests never wait for one to lapse.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use common::{Wire, client};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientError};
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::{
    Lease, ResumableCall, StoredAnswer, StoredCall, TaskLimits, TaskRecord, TaskStore,
};
use presa::wire::{ElicitRequestParams, ElicitResult, InputResponse, TaskStatus};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Notify;

const LEASE: Duration = Duration::from_secs(30);

fn limits() -> TaskLimits {
    TaskLimits::default()
        .max_tasks(100)
        .max_running_per_subject(100)
        .max_record_bytes(1 << 20)
        .max_store_bytes(1 << 24)
}

/// Signals between a test and its tools.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    dropped: Arc<Notify>,
    /// How many times `deploy` ran from its start.
    deploys: Arc<AtomicUsize>,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Region {
    region: String,
}

/// Asks two questions, then deploys; safe to run again from the start.
#[tool(task = "optional", resumable)]
async fn deploy(
    ctx: Context,
    State(probe): State<Probe>,
    service: String,
) -> Result<String, ToolError> {
    probe.deploys.fetch_add(1, Ordering::SeqCst);
    let confirmed = ctx.elicit::<Confirm>("confirm", "Deploy?").await?;
    let region = ctx.elicit::<Region>("region", "Where?").await?;
    match (confirmed.accepted(), region.accepted()) {
        (Some(Confirm { ok: true }), Some(Region { region })) => {
            Ok(format!("deployed {service} to {region}"))
        }
        _ => Err(ToolError::new("not deployed")),
    }
}

/// Notifies when the handler holding it is dropped.
struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// Runs until its handler is dropped.
#[tool(task = "required")]
async fn forever(State(probe): State<Probe>) -> String {
    let _dropped = DropSignal(Arc::clone(&probe.dropped));
    probe.started.notify_one();
    std::future::pending().await
}

/// A server on `store` that takes leases.
fn replica(store: &Arc<InMemoryTaskStore>, probe: &Probe) -> Server {
    Server::builder("replica", "1")
        .tool(ForeverTool)
        .tool(DeployTool)
        .state(probe.clone())
        .tasks(TaskSettings::default().lease(LEASE))
        .task_store(Arc::clone(store))
        .build()
}

/// A running task in `store`, whose lease, held by a server that is gone,
/// lapsed long ago.
async fn orphan(store: &InMemoryTaskStore) -> String {
    let id = "orphan-0123456789abcdef".to_owned();
    let hour = Some(Duration::from_secs(3600));
    let record = TaskRecord::new(id.clone(), None, hour, Some(Duration::from_millis(20)));
    store.create(record, &limits()).await.unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let lease = Lease::new("dead-server", then, LEASE);
    assert!(store.hold(&id, &lease, then).await.unwrap());
    id
}

#[tokio::test(start_paused = true)]
async fn a_task_whose_lease_lapsed_is_taken_over_and_fails_as_an_internal_error() {
    let store = Arc::new(InMemoryTaskStore::new());
    let id = orphan(&store).await;
    let server = replica(&store, &Probe::default());
    let client = client(Client::builder().tasks(true), &server, Wire::InProcess);

    let patience = AwaitOptions::default().timeout(10 * LEASE);
    let outcome = client.await_task(&id, patience).await;

    let Err(ClientError::TaskFailed(error)) = outcome else {
        panic!("the task was not failed: {outcome:?}");
    };
    assert_eq!(error.code, -32603);
    assert_eq!(
        error.message, "Internal error",
        "the cause stays in the logs"
    );
    let now = SystemTime::now();
    assert!(store.lapsed(now, 10).await.unwrap().is_empty());
}

/// A replica on `store` running `forever` as a task, once it started: a
/// client of the replica, and the task's id.
async fn running_forever(store: &Arc<InMemoryTaskStore>, probe: &Probe) -> (Client, String) {
    let server = replica(store, probe);
    let client = client(Client::builder().tasks(true), &server, Wire::InProcess);
    let outcome = client.call_tool("forever", json!({})).await.unwrap();
    let id = outcome.task().expect("a task").id().to_owned();
    probe.started.notified().await;
    (client, id)
}

#[tokio::test(start_paused = true)]
async fn a_server_whose_lease_was_taken_drops_its_handler() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let (_client, id) = running_forever(&store, &probe).await;

    // Another server claims the task as if this one had been cut off from
    // the store for an hour.
    let later = SystemTime::now() + Duration::from_secs(3600);
    let other = Lease::new("other-server", later, LEASE);
    assert!(store.hold(&id, &other, later).await.unwrap());

    // At its next renewal, the server finds the lease gone.
    tokio::time::timeout(LEASE, probe.dropped.notified())
        .await
        .expect("the handler is dropped within one renewal");
    let record = store.get(&id).await.unwrap().unwrap();
    assert_eq!(
        record.status(),
        TaskStatus::Working,
        "the task is the other server's to end"
    );
}

#[tokio::test(start_paused = true)]
async fn a_running_task_keeps_its_lease_and_is_not_taken_over() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let (client, id) = running_forever(&store, &probe).await;

    // Many renewals and sweeps later, the task still runs, held by its
    // server: no other server may claim it before the lease lapses.
    tokio::time::sleep(10 * LEASE).await;
    let now = SystemTime::now();
    assert!(store.lapsed(now, 10).await.unwrap().is_empty());
    let other = Lease::new("other-server", now, LEASE);
    assert!(!store.hold(&id, &other, now).await.unwrap());
    assert_eq!(
        client.get_task(&id).await.unwrap().task.status,
        TaskStatus::Working
    );
}

/// A `deploy` task of a server that died after the user confirmed: its
/// record keeps the call and the answer to `confirm`, and its lease lapsed
/// long ago.
async fn half_answered_deploy(store: &InMemoryTaskStore) -> String {
    let id = "deploy-0123456789abcdef".to_owned();
    let hour = Some(Duration::from_secs(3600));
    let mut record = TaskRecord::new(id.clone(), None, hour, Some(Duration::from_millis(20)));
    let capabilities = json!({"elicitation": {"form": {}}, "extensions": {TASKS: {}}});
    record = record.with_call(StoredCall::new(&ResumableCall::new(
        "deploy",
        json!({"service": "api"}).as_object().unwrap().clone(),
        "2026-07-28",
        serde_json::from_value(capabilities).unwrap(),
    )));
    let confirmed = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    record = record.with_answers(
        [("confirm".to_owned(), StoredAnswer::new(&confirmed))]
            .into_iter()
            .collect(),
    );
    store.create(record, &limits()).await.unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    assert!(
        store
            .hold(&id, &Lease::new("dead-server", then, LEASE), then)
            .await
            .unwrap()
    );
    id
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[tokio::test(start_paused = true)]
async fn a_resumable_task_runs_again_and_asks_only_what_was_not_answered() {
    let store = Arc::new(InMemoryTaskStore::new());
    let id = half_answered_deploy(&store).await;
    let probe = Probe::default();
    let server = replica(&store, &probe);
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let answering = Client::builder().tasks(true).on_elicitation({
        let asked = Arc::clone(&asked);
        move |pending| {
            asked.lock().unwrap().push(pending.key.clone());
            let ElicitRequestParams::Form { message, .. } = pending.params else {
                panic!("a form was expected");
            };
            let content = match message.as_str() {
                "Where?" => json!({"region": "eu-west"}),
                _ => json!({"ok": true}),
            };
            async move { ElicitResult::accept(content) }
        }
    });
    let client = client(answering, &server, Wire::InProcess);

    let patience = AwaitOptions::default().timeout(10 * LEASE);
    let result = client
        .await_task(&id, patience)
        .await
        .expect("the task completes");

    assert_eq!(result.text(), Some("deployed api to eu-west"));
    assert_eq!(
        *asked.lock().unwrap(),
        ["region"],
        "the user is never asked twice"
    );
    assert_eq!(
        probe.deploys.load(Ordering::SeqCst),
        1,
        "run again once, here"
    );
}
