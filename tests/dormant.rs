//! Sleeping tasks: a resumable tool's task that waits for input keeps no
//! handler, and its handler runs again, on the same server, when the
//! answers come, exactly as after a takeover.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use common::{Wire, client};
use presa::client::AwaitOptions;
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::{Lease, TaskLimits, TaskStore};
use presa::wire::{DetailedTask, ElicitResult, InputResponse, TaskStatus};
use serde::Deserialize;
use serde_json::json;

/// What the tools tell the test.
#[derive(Clone, Default)]
struct Probe {
    /// Handlers alive now.
    alive: Arc<AtomicUsize>,
    /// What each run saw, in order.
    runs: Arc<Mutex<Vec<String>>>,
}

impl Probe {
    fn alive(&self) -> usize {
        self.alive.load(Ordering::SeqCst)
    }

    fn runs(&self) -> Vec<String> {
        self.runs.lock().unwrap().clone()
    }
}

/// Counts a live handler while it lives.
struct Alive(Arc<AtomicUsize>);

impl Alive {
    fn new(probe: &Probe) -> Self {
        probe.alive.fetch_add(1, Ordering::SeqCst);
        Alive(Arc::clone(&probe.alive))
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Region {
    region: String,
}

/// What a run of `deploy` sees of its call.
fn seen(ctx: &Context, service: &str) -> String {
    let info = ctx.request();
    format!(
        "{service} {} {:?} {:?} {:?} {}",
        info.protocol_version,
        info.client_info.as_ref().map(|i| &i.name),
        info.caller.subject,
        ctx.task_id(),
        serde_json::to_string(&*info.client_capabilities).unwrap(),
    )
}

/// Asks two questions, then deploys; safe to run again from the start.
#[tool(task = "optional", resumable)]
async fn deploy(
    ctx: Context,
    State(probe): State<Probe>,
    service: String,
) -> Result<String, ToolError> {
    let _alive = Alive::new(&probe);
    probe.runs.lock().unwrap().push(seen(&ctx, &service));
    let confirmed = ctx.elicit::<Confirm>("confirm", "Deploy?").await?;
    let region = ctx.elicit::<Region>("region", "Where?").await?;
    match (confirmed.accepted(), region.accepted()) {
        (Some(Confirm { ok: true }), Some(Region { region })) => {
            Ok(format!("deployed {service} to {region}"))
        }
        _ => Err(ToolError::new("not deployed")),
    }
}

/// Asks once; not resumable, so its handler must be kept.
#[tool(task = "optional")]
async fn confirm(
    ctx: Context,
    State(probe): State<Probe>,
    service: String,
) -> Result<String, ToolError> {
    let _alive = Alive::new(&probe);
    let confirmed = ctx
        .elicit::<Confirm>("confirm", format!("Go {service}?"))
        .await?;
    Ok(confirmed.accepted().is_some_and(|c| c.ok).to_string())
}

fn dormant_server(settings: TaskSettings, store: &Arc<InMemoryTaskStore>, probe: &Probe) -> Server {
    Server::builder("dormant", "1")
        .tool(DeployTool)
        .tool(ConfirmTool)
        .state(probe.clone())
        .tasks(settings)
        .task_store(Arc::clone(store))
        .build()
}

/// A client that declares tasks and forms; the tests answer by hand.
fn tasks_client(server: &Server) -> Client {
    let builder = Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) });
    client(builder, server, Wire::InProcess)
}

/// Starts `tool` as a task; its id.
async fn start(client: &Client, tool: &str) -> String {
    let outcome = client
        .call_tool(tool, json!({"service": "api"}))
        .await
        .unwrap();
    outcome.task().expect("a task").id().to_owned()
}

/// Polls until the task waits for `key` and nothing else, and `settled`
/// holds of the probe.
async fn waiting_for(
    client: &Client,
    id: &str,
    key: &str,
    probe: &Probe,
    settled: impl Fn(&Probe) -> bool,
) -> DetailedTask {
    for _ in 0..6_000 {
        let task = client.get_task(id).await.unwrap();
        let asked: Option<Vec<_>> = task
            .input_requests
            .as_ref()
            .map(|r| r.keys().cloned().collect());
        if task.task.status == TaskStatus::InputRequired
            && asked.as_deref() == Some(&[key.to_owned()][..])
            && settled(probe)
        {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the task never waited for {key} alone");
}

async fn answer(client: &Client, id: &str, key: &str, content: serde_json::Value) {
    let answer = InputResponse::Elicit(ElicitResult::accept(content));
    client
        .update_task(id, [(key.to_owned(), answer)].into())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_parked_resumable_task_keeps_no_handler_and_runs_again_when_answered() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = dormant_server(TaskSettings::default(), &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "deploy").await;

    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 0).await;
    assert_eq!(probe.runs().len(), 1);

    answer(&client, &id, "confirm", json!({"ok": true})).await;
    waiting_for(&client, &id, "region", &probe, |p| p.alive() == 0).await;
    assert_eq!(
        probe.runs().len(),
        2,
        "the code before the answered question ran again"
    );

    answer(&client, &id, "region", json!({"region": "eu-west"})).await;
    let result = client
        .await_task(&id, AwaitOptions::default())
        .await
        .expect("the task completes");
    assert_eq!(result.text(), Some("deployed api to eu-west"));
    let runs = probe.runs();
    assert_eq!(runs.len(), 3);
    assert!(
        runs.iter().all(|run| run == &runs[0]),
        "every run saw the same call"
    );
    assert_eq!(probe.alive(), 0);
}

#[tokio::test]
async fn an_answer_to_a_question_not_asked_wakes_nothing() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = dormant_server(TaskSettings::default(), &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "deploy").await;
    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 0).await;

    // An answer to a key nobody asked stores nothing and wakes nothing.
    answer(&client, &id, "region", json!({"region": "eu-west"})).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 0).await;
    assert_eq!(probe.runs().len(), 1);
}

#[tokio::test]
async fn a_sleeping_task_cancelled_never_runs_again() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = dormant_server(TaskSettings::default(), &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "deploy").await;
    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 0).await;

    client.cancel_task(&id).await.unwrap();
    answer(&client, &id, "confirm", json!({"ok": true})).await;
    tokio::time::sleep(Duration::from_millis(20)).await;

    let task = client.get_task(&id).await.unwrap();
    assert_eq!(task.task.status, TaskStatus::Cancelled);
    assert_eq!(probe.runs().len(), 1, "a cancelled task is not run again");
    assert_eq!(probe.alive(), 0);
}

#[tokio::test]
async fn a_tool_that_is_not_resumable_keeps_its_handler_parked() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = dormant_server(TaskSettings::default(), &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "confirm").await;

    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(probe.alive(), 1, "the code before `elicit` runs once");

    answer(&client, &id, "confirm", json!({"ok": true})).await;
    let result = client.await_task(&id, AwaitOptions::default()).await;
    assert_eq!(result.unwrap().text(), Some("true"));
}

#[tokio::test(start_paused = true)]
async fn a_server_that_takes_leases_keeps_the_handler_parked() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let leasing = TaskSettings::default().lease(Duration::from_secs(30));
    let server = dormant_server(leasing, &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "deploy").await;

    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 1).await;
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert_eq!(probe.alive(), 1, "no lease lapses, no takeover");
    assert_eq!(probe.runs().len(), 1);
}

/// A task woken here and the same task taken over by a server whose
/// store holds its record run the handler the same way: the same call,
/// caller and task, the answered question returning at once, and the
/// next one asked.
#[tokio::test(start_paused = true)]
async fn a_woken_task_runs_again_exactly_as_a_task_taken_over() {
    let store = Arc::new(InMemoryTaskStore::new());
    let probe = Probe::default();
    let server = dormant_server(TaskSettings::default(), &store, &probe);
    let client = tasks_client(&server);
    let id = start(&client, "deploy").await;
    waiting_for(&client, &id, "confirm", &probe, |p| p.alive() == 0).await;
    answer(&client, &id, "confirm", json!({"ok": true})).await;
    let woken = waiting_for(&client, &id, "region", &probe, |p| p.alive() == 0).await;
    let woken_run = probe.runs()[1].clone();

    // The same record, on a store whose lease on it lapsed long ago.
    let other_store = Arc::new(InMemoryTaskStore::new());
    let record = store.get(&id).await.unwrap().unwrap();
    let limits = TaskLimits::default();
    other_store
        .create((*record).clone(), &limits)
        .await
        .unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let dead = Lease::new("dead-server", then, Duration::from_secs(30));
    assert!(other_store.hold(&id, &dead, then).await.unwrap());
    let other_probe = Probe::default();
    let leasing = TaskSettings::default().lease(Duration::from_secs(30));
    let replica = dormant_server(leasing, &other_store, &other_probe);
    let other_client = tasks_client(&replica);
    let taken = waiting_for(&other_client, &id, "region", &other_probe, |p| {
        p.runs().len() == 1 && p.alive() == 1
    })
    .await;

    assert_eq!(other_probe.runs(), [woken_run]);
    assert_eq!(taken.input_requests, woken.input_requests);
    assert_eq!(taken.task.status, woken.task.status);
}
