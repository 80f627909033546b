//! Leases between servers that share a task store: a task whose server
//! stopped renewing its lease is taken over (failed with `-32603`), and a
//! server whose lease was taken drops its handler.
//!
//! The servers share one in-memory store, as replicas share Redis. A dead
//! server is a lease that lapsed in the store. Time is tokio's paused
//! clock; leases are wall-clock times, set far enough apart that the
//! tests never wait for one to lapse.

mod common;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::{Wire, client};
use presa::client::{AwaitOptions, ClientError};
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::tasks::{InMemoryTaskStore, Lease, TaskLimits, TaskRecord, TaskStore};
use presa::wire::TaskStatus;
use serde_json::json;
use tokio::sync::Notify;

const LEASE: Duration = Duration::from_secs(30);

const LIMITS: TaskLimits = TaskLimits {
    max_tasks: 100,
    max_running_per_subject: 100,
    max_record_bytes: 1 << 20,
    max_store_bytes: 1 << 24,
};

/// Signals between a test and its tool.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    dropped: Arc<Notify>,
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
    store.create(record, &LIMITS).await.unwrap();
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

#[tokio::test(start_paused = true)]
async fn a_server_whose_lease_was_taken_drops_its_handler() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = replica(&store, &probe);
    let client = client(Client::builder().tasks(true), &server, Wire::InProcess);
    let outcome = client.call_tool("forever", json!({})).await.unwrap();
    let id = outcome.task().expect("a task").id().to_owned();
    probe.started.notified().await;

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
        record.status,
        TaskStatus::Working,
        "the task is the other server's to end"
    );
}

#[tokio::test(start_paused = true)]
async fn a_running_task_keeps_its_lease_and_is_not_taken_over() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = replica(&store, &probe);
    let client = client(Client::builder().tasks(true), &server, Wire::InProcess);
    let outcome = client.call_tool("forever", json!({})).await.unwrap();
    let id = outcome.task().expect("a task").id().to_owned();
    probe.started.notified().await;

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
