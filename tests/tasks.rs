//! The Tasks extension on the wire: policies, the task lifecycle, input
//! inside a task, outcomes, TTL, the task cap, ownership and listening.
//!
//! Every test runs over in-process channels and over stdio framing. Time is
//! tokio's paused clock, so TTLs elapse only when a test advances it.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{RawPeer, WIRES, Wire, connect, error_code};
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::tasks::store::{StoreError, TaskChange, TaskLimits, TaskRecord, TaskWatch};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Name {
    name: String,
}

/// Signals between a test and its tools.
#[derive(Clone, Default)]
struct Probe {
    runs: Arc<AtomicUsize>,
    started: Arc<Notify>,
    release: Arc<Notify>,
    dropped: Arc<Notify>,
}

/// Notifies `dropped` when the handler holding it is dropped.
struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// The seed's tool: builds after a confirmation.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Counts its runs before asking, to show that code before an input
/// request runs once in a task.
#[tool(task = "optional")]
async fn counted(ctx: Context, State(probe): State<Probe>) -> Result<String, ToolError> {
    let run = probe.runs.fetch_add(1, Ordering::SeqCst) + 1;
    ctx.elicit::<Confirm>("confirm", "Go?").await?;
    Ok(format!("run {run}"))
}

/// Asks two questions at once.
#[tool(task = "optional")]
async fn full_name(ctx: Context) -> Result<String, ToolError> {
    let (first, last) = tokio::try_join!(
        ctx.elicit::<Name>("first", "First name?"),
        ctx.elicit::<Name>("last", "Last name?"),
    )?;
    match (first, last) {
        (Elicitation::Accepted(f), Elicitation::Accepted(l)) => {
            Ok(format!("{} {}", f.name, l.name))
        }
        _ => Err(ToolError::new("no name")),
    }
}

/// A tool error.
#[tool(task = "optional")]
async fn refuse() -> Result<String, ToolError> {
    Err(ToolError::new("no such target"))
}

/// A panic carrying a secret.
#[tool(task = "optional")]
async fn explode() -> String {
    panic!("secret-panic-detail")
}

/// An internal error carrying a secret.
#[tool(task = "optional")]
async fn broken() -> Result<String, ToolError> {
    Err(ToolError::internal("secret-internal-detail"))
}

/// Sets a status message, then waits for the test's release.
#[tool(task = "optional")]
async fn compile(ctx: Context, State(probe): State<Probe>) -> &'static str {
    ctx.set_status_message("compiling").await;
    probe.started.notify_one();
    probe.release.notified().await;
    "compiled"
}

/// Runs until cancelled; the probe sees it start and sees it dropped.
#[tool(task = "optional")]
async fn forever(State(probe): State<Probe>) -> String {
    let _dropped = DropSignal(Arc::clone(&probe.dropped));
    probe.started.notify_one();
    std::future::pending().await
}

/// Parks on a question until cancelled.
#[tool(task = "optional")]
async fn ask_forever(ctx: Context, State(probe): State<Probe>) -> Result<String, ToolError> {
    let _dropped = DropSignal(Arc::clone(&probe.dropped));
    ctx.elicit::<Confirm>("confirm", "Really?").await?;
    Ok("answered".into())
}

/// Waits for whichever of two answers comes first, then for the release.
#[tool(task = "optional")]
async fn either(ctx: Context, State(probe): State<Probe>) -> Result<String, ToolError> {
    let a = ctx.elicit::<Confirm>("a", "A?");
    let b = ctx.elicit::<Confirm>("b", "B?");
    let first = tokio::select! {
        answer = a => answer.map(|_| "a"),
        answer = b => answer.map(|_| "b"),
    }?;
    probe.started.notify_one();
    probe.release.notified().await;
    Ok(first.into())
}

/// Reports who called; its progress and log calls go nowhere in a task.
#[tool(task = "optional")]
async fn whoami(ctx: Context) -> String {
    ctx.progress(1.0, None, Some("started".into())).await;
    ctx.log(presa::wire::LoggingLevel::Error, json!("noise"))
        .await;
    let info = ctx.request();
    let client = info.client_info.as_ref().map_or("-", |c| c.name.as_str());
    let subject = info.caller.subject.as_deref().unwrap_or("-");
    let task = ctx.task_id().is_some();
    format!("{subject} {client} {} task={task}", info.protocol_version)
}

/// Lists roots and asks the model, both inside a task.
#[tool(task = "optional")]
async fn survey(ctx: Context) -> Result<String, ToolError> {
    let params = presa::wire::CreateMessageParams::new(
        vec![presa::wire::SamplingMessage::user("Capital of France?")],
        16,
    );
    let (roots, reply) = tokio::try_join!(ctx.list_roots(), ctx.sample("model", params))?;
    Ok(format!(
        "{} roots; {}",
        roots.len(),
        reply.text().unwrap_or_default()
    ))
}

/// Gives up waiting for an answer once, then asks the same question again.
#[tool(task = "optional")]
async fn patient(ctx: Context, State(probe): State<Probe>) -> Result<String, ToolError> {
    let first =
        tokio::time::timeout(Duration::from_secs(5), ctx.elicit::<Confirm>("k", "Ready?")).await;
    assert!(first.is_err(), "nobody answers the first time");
    probe.started.notify_one();
    match ctx.elicit::<Confirm>("k", "Ready?").await? {
        Elicitation::Accepted(Confirm { ok }) => Ok(format!("ready: {ok}")),
        _ => Err(ToolError::new("not ready")),
    }
}

/// Never a task.
#[tool]
async fn plain() -> &'static str {
    "plain"
}

/// Only ever a task.
#[tool(task = "required")]
async fn batch() -> &'static str {
    "batched"
}

/// Big jobs become tasks; small ones run at once.
fn by_size(args: &ResizeArgs, _request: &RequestInfo) -> TaskPolicy {
    if args.pixels >= 1000 {
        TaskPolicy::Required
    } else {
        TaskPolicy::Sync
    }
}

/// Resizes an image.
#[tool(task = by_size)]
async fn resize(pixels: u32) -> String {
    format!("resized {pixels}")
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Background {
    yes: bool,
}

/// Asks whether to run in the background before deciding.
fn ask_mode(_args: &ExportArgs, ctx: &Context) -> Result<TaskPolicy, InputRequired> {
    let answer = ctx
        .elicit::<Background>("background", "Run in the background?")
        .now()?;
    match answer {
        Elicitation::Accepted(Background { yes: true }) => Ok(TaskPolicy::Optional),
        _ => Ok(TaskPolicy::Sync),
    }
}

/// Exports rows, in the background if the user wants.
#[tool(task = ask_mode)]
async fn export(rows: u32) -> String {
    format!("exported {rows}")
}

/// Confirms over MRTR before the task exists, then works as a task.
#[tool(task = "optional", task_start = "explicit")]
async fn deploy(ctx: Context, env: String) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("confirm", format!("Deploy {env}?"))
        .await?;
    if !matches!(answer, Elicitation::Accepted(Confirm { ok: true })) {
        return Err(ToolError::new("not deployed"));
    }
    ctx.start_task().await;
    ctx.set_status_message(format!("deploying {env}")).await;
    Ok(format!("deployed {env}"))
}

fn server_with(settings: TaskSettings, probe: &Probe) -> Server {
    server_configured(settings, probe, |builder| builder)
}

fn server_configured(
    settings: TaskSettings,
    probe: &Probe,
    configure: impl FnOnce(presa::server::ServerBuilder) -> presa::server::ServerBuilder,
) -> Server {
    let builder = Server::builder("tasks", "1")
        .tool(BuildTool)
        .tool(CountedTool)
        .tool(FullNameTool)
        .tool(RefuseTool)
        .tool(ExplodeTool)
        .tool(BrokenTool)
        .tool(CompileTool)
        .tool(ForeverTool)
        .tool(AskForeverTool)
        .tool(PlainTool)
        .tool(BatchTool)
        .tool(ResizeTool)
        .tool(DeployTool)
        .tool(EitherTool)
        .tool(ExportTool)
        .tool(WhoamiTool)
        .tool(SurveyTool)
        .tool(PatientTool)
        .state(probe.clone())
        .tasks(settings);
    configure(builder).build()
}

fn server(probe: &Probe) -> Server {
    server_with(TaskSettings::default(), probe)
}

/// Capabilities of a client with the Tasks extension and form elicitation.
fn with_tasks() -> Value {
    json!({"extensions": {TASKS: {}}, "elicitation": {"form": {}}})
}

/// Capabilities of a client with form elicitation only.
fn without_tasks() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// A raw peer speaking for `subject`.
fn peer_as(server: &Server, subject: Option<&str>, wire: Wire) -> RawPeer {
    let caller = subject.map(Caller::subject).unwrap_or_default();
    RawPeer::new(connect(server, caller, wire))
}

/// Sends a tasks method with the tasks capability.
async fn task_request(peer: &mut RawPeer, id: i64, method: &str, params: Value) -> Value {
    task_request_as(peer, id, method, params, with_tasks()).await
}

async fn task_request_as(
    peer: &mut RawPeer,
    id: i64,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Value {
    params["_meta"] = common::meta(capabilities);
    peer.request(id, method, params).await
}

/// Calls `tool` as a tasks client and returns the new task's id.
async fn start(peer: &mut RawPeer, id: i64, tool: &str, arguments: Value) -> String {
    let r = peer
        .call(
            id,
            with_tasks(),
            json!({"name": tool, "arguments": arguments}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    r["result"]["taskId"].as_str().unwrap().to_owned()
}

async fn get(peer: &mut RawPeer, id: i64, task: &str) -> Value {
    let r = task_request(peer, id, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    r["result"].clone()
}

/// Polls `tasks/get` until the task has `status`, as a client would; each
/// poll is a round trip, which lets the task's runner make progress.
async fn until_status(peer: &mut RawPeer, task: &str, status: &str) -> Value {
    for poll in 0..10_000 {
        let got = get(peer, 10_000 + poll, task).await;
        if got["status"] == status {
            return got;
        }
        assert!(
            got["status"] != "completed"
                && got["status"] != "failed"
                && got["status"] != "cancelled",
            "the task ended {got} while waiting for {status}"
        );
    }
    panic!("task {task} never reached {status}");
}

async fn update(peer: &mut RawPeer, id: i64, task: &str, responses: Value) -> Value {
    task_request(
        peer,
        id,
        "tasks/update",
        json!({"taskId": task, "inputResponses": responses}),
    )
    .await
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

// ---------------------------------------------------------------------------
// Discovery and policies

#[tokio::test]
async fn discover_advertises_the_extension() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = peer
            .request(
                1,
                "server/discover",
                json!({"_meta": common::meta(json!({}))}),
            )
            .await;
        assert_eq!(
            r["result"]["capabilities"]["extensions"][TASKS],
            json!({}),
            "{r}"
        );
    }
}

#[tokio::test]
async fn a_server_without_tasks_neither_advertises_nor_serves_them() {
    let server = Server::builder("plain", "1")
        .tool(PlainTool)
        .tool(BuildTool)
        .build();
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = peer
            .request(
                1,
                "server/discover",
                json!({"_meta": common::meta(json!({}))}),
            )
            .await;
        assert!(
            r["result"]["capabilities"].get("extensions").is_none(),
            "{r}"
        );
        let r = task_request(&mut peer, 2, "tasks/get", json!({"taskId": "x"})).await;
        assert_eq!(error_code(&r), -32601, "{r}");
        // An `optional` tool runs synchronously when the server has no tasks.
        let r = peer
            .call(
                3,
                with_tasks(),
                json!({"name": "build", "arguments": {"target": "a"}}),
            )
            .await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    }
}

#[test]
#[should_panic(expected = "tool `batch` runs only as a task, but tasks are not enabled")]
fn a_required_tool_without_tasks_is_a_configuration_error() {
    Server::builder("broken", "1").tool(BatchTool).build();
}

#[tokio::test]
async fn the_policy_table() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        // sync: synchronous for both kinds of client.
        for (id, caps) in [(1, with_tasks()), (2, without_tasks())] {
            let r = peer.call(id, caps, json!({"name": "plain"})).await;
            assert_eq!(r["result"]["resultType"], "complete", "{wire:?} {r}");
            assert_eq!(r["result"]["content"][0]["text"], "plain");
        }
        // optional: a task for a tasks client, synchronous (here MRTR) otherwise.
        let args = json!({"name": "build", "arguments": {"target": "x"}});
        let r = peer.call(3, with_tasks(), args.clone()).await;
        assert_eq!(r["result"]["resultType"], "task", "{wire:?} {r}");
        let r = peer.call(4, without_tasks(), args).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{wire:?} {r}");
        // required: a task, or -32021 naming the extension.
        let r = peer.call(5, with_tasks(), json!({"name": "batch"})).await;
        assert_eq!(r["result"]["resultType"], "task", "{wire:?} {r}");
        let r = peer
            .call(6, without_tasks(), json!({"name": "batch"}))
            .await;
        assert_eq!(error_code(&r), -32021, "{wire:?} {r}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"extensions": {TASKS: {}}})
        );
    }
}

#[tokio::test]
async fn a_policy_function_decides_per_call() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let small = json!({"name": "resize", "arguments": {"pixels": 10}});
        let big = json!({"name": "resize", "arguments": {"pixels": 5000}});
        let r = peer.call(1, with_tasks(), small.clone()).await;
        assert_eq!(r["result"]["content"][0]["text"], "resized 10", "{r}");
        let r = peer.call(2, without_tasks(), small).await;
        assert_eq!(r["result"]["content"][0]["text"], "resized 10", "{r}");
        let r = peer.call(3, with_tasks(), big.clone()).await;
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "resized 5000");
        let r = peer.call(4, without_tasks(), big).await;
        assert_eq!(error_code(&r), -32021, "{r}");
    }
}

#[tokio::test]
async fn a_policy_function_may_ask_over_mrtr_before_the_task_exists() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let args = json!({"name": "export", "arguments": {"rows": 7}});
        let r = peer.call(1, with_tasks(), args.clone()).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{wire:?} {r}");
        assert_eq!(
            r["result"]["inputRequests"]["background"]["params"]["message"],
            "Run in the background?"
        );
        let state = r["result"]["requestState"].clone();
        for (id, yes, kind) in [(2, true, "task"), (3, false, "complete")] {
            let mut retry = args.clone();
            retry["requestState"] = state.clone();
            retry["inputResponses"] = json!({"background": accept(json!({"yes": yes}))});
            let r = peer.call(id, with_tasks(), retry).await;
            assert_eq!(r["result"]["resultType"], kind, "{wire:?} {r}");
            if yes {
                let task = r["result"]["taskId"].as_str().unwrap().to_owned();
                let done = until_status(&mut peer, &task, "completed").await;
                assert_eq!(done["result"]["content"][0]["text"], "exported 7");
            } else {
                assert_eq!(r["result"]["content"][0]["text"], "exported 7");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Creation and the seed's flow

#[tokio::test]
async fn the_create_task_result_is_flat_and_immediately_readable() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = peer.call(1, with_tasks(), json!({"name": "forever"})).await;
        let created = r["result"].as_object().unwrap();
        let mut keys: Vec<_> = created.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "_meta",
                "createdAt",
                "lastUpdatedAt",
                "pollIntervalMs",
                "resultType",
                "status",
                "taskId",
                "ttlMs"
            ],
            "{r}"
        );
        assert_eq!(created["resultType"], "task");
        assert_eq!(created["status"], "working");
        assert_eq!(created["ttlMs"], 3_600_000);
        assert_eq!(created["pollIntervalMs"], 20);
        for stamp in ["createdAt", "lastUpdatedAt"] {
            let stamp = created[stamp].as_str().unwrap();
            assert!(
                stamp.len() == 24 && stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T',
                "ISO 8601: {stamp}"
            );
        }
        let task = created["taskId"].as_str().unwrap();
        assert!(task.len() >= 22, "at least 128 bits: {task}");
        // Readable at once, with no speculative polling.
        let got = get(&mut peer, 2, task).await;
        assert_eq!(got["taskId"], task);
        assert_eq!(got["status"], "working");
        task_request(&mut peer, 3, "tasks/cancel", json!({"taskId": task})).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_question_asked_again_after_a_timeout_is_listed_again() {
    // Regression: the handler gave up on `k` (a timeout withdrew it) and
    // then asked for `k` again. The task stayed `working` with no
    // `inputRequests`, and `tasks/update` for `k` was ignored, so it parked
    // forever. `inputRequests` must list every request the handler waits for.
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "patient", json!({})).await;
        probe.started.notified().await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        assert_eq!(
            waiting["inputRequests"]["k"]["params"]["message"], "Ready?",
            "{wire:?} {waiting}"
        );
        let ack = update(
            &mut peer,
            2,
            &task,
            json!({"k": accept(json!({"ok": true}))}),
        )
        .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "ready: true",
            "{done}"
        );
    }
}

#[tokio::test]
async fn the_seed_build_parks_at_input_required_and_completes_after_update() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "build", json!({"target": "all"})).await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        assert_eq!(
            waiting["inputRequests"]["confirm"]["method"],
            "elicitation/create"
        );
        assert_eq!(
            waiting["inputRequests"]["confirm"]["params"]["message"],
            "Build all?"
        );
        assert!(waiting.get("result").is_none() && waiting.get("requestState").is_none());
        let ack = update(
            &mut peer,
            2,
            &task,
            json!({"confirm": accept(json!({"ok": true}))}),
        )
        .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "built all",
            "{wire:?}"
        );
        assert!(!done["result"]["isError"].as_bool().unwrap_or(false));
        assert!(done.get("inputRequests").is_none());
    }
}

#[tokio::test]
async fn code_before_an_input_request_runs_once_in_a_task() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        probe.runs.store(0, Ordering::SeqCst);
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "counted", json!({})).await;
        until_status(&mut peer, &task, "input_required").await;
        until_status(&mut peer, &task, "input_required").await;
        update(
            &mut peer,
            2,
            &task,
            json!({"confirm": accept(json!({"ok": true}))}),
        )
        .await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "run 1");
        assert_eq!(probe.runs.load(Ordering::SeqCst), 1, "{wire:?}");
    }
}

#[tokio::test]
async fn parallel_input_requests_are_listed_together_and_answered_in_parts() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "full_name", json!({})).await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        let keys: Vec<_> = waiting["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["first", "last"], "{wire:?}");

        // A partial answer, plus a key that was never asked: the task keeps
        // waiting for the rest, and the unknown key is ignored.
        update(
            &mut peer,
            2,
            &task,
            json!({"first": accept(json!({"name": "Ada"})), "middle": accept(json!({"name": "X"}))}),
        )
        .await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        let keys: Vec<_> = waiting["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["last"], "{waiting}");

        // Answering `first` again changes nothing.
        update(
            &mut peer,
            3,
            &task,
            json!({"first": accept(json!({"name": "Eve"}))}),
        )
        .await;
        update(
            &mut peer,
            4,
            &task,
            json!({"last": accept(json!({"name": "Lovelace"}))}),
        )
        .await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "Ada Lovelace",
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn an_answer_that_does_not_parse_is_asked_again_under_a_fresh_key() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "build", json!({"target": "x"})).await;
        until_status(&mut peer, &task, "input_required").await;
        update(
            &mut peer,
            2,
            &task,
            json!({"confirm": accept(json!({"ok": "yes"}))}),
        )
        .await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        let keys: Vec<_> = waiting["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["confirm~2"], "a key is never reused: {waiting}");
        update(
            &mut peer,
            3,
            &task,
            json!({"confirm~2": accept(json!({"ok": true}))}),
        )
        .await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "built x", "{wire:?}");
    }
}

#[tokio::test]
async fn a_handler_sets_the_status_message() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "compile", json!({})).await;
        probe.started.notified().await;
        let got = get(&mut peer, 2, &task).await;
        assert_eq!(got["status"], "working");
        assert_eq!(got["statusMessage"], "compiling", "{wire:?} {got}");
        probe.release.notify_one();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "compiled");
    }
}

#[tokio::test]
async fn an_explicit_start_asks_over_mrtr_before_the_task_exists() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let args = json!({"name": "deploy", "arguments": {"env": "prod"}});
        let r = peer.call(1, with_tasks(), args.clone()).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{wire:?} {r}");
        let state = r["result"]["requestState"].clone();

        // Declined: no task, a plain tool error.
        let mut retry = args.clone();
        retry["requestState"] = state.clone();
        retry["inputResponses"] = json!({"confirm": accept(json!({"ok": false}))});
        let r = peer.call(2, with_tasks(), retry).await;
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        assert_eq!(r["result"]["isError"], true);

        // Confirmed: the answer to the retry is the task.
        let mut retry = args.clone();
        retry["requestState"] = state;
        retry["inputResponses"] = json!({"confirm": accept(json!({"ok": true}))});
        let r = peer.call(3, with_tasks(), retry).await;
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "deployed prod");
        assert_eq!(done["statusMessage"], "deploying prod");

        // Without the extension the same tool runs synchronously to the end.
        let r = peer.call(4, without_tasks(), args.clone()).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        let mut retry = args;
        retry["requestState"] = r["result"]["requestState"].clone();
        retry["inputResponses"] = json!({"confirm": accept(json!({"ok": true}))});
        let r = peer.call(5, without_tasks(), retry).await;
        assert_eq!(r["result"]["content"][0]["text"], "deployed prod", "{r}");
    }
}

#[tokio::test]
async fn a_request_the_handler_stops_waiting_for_is_withdrawn() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "either", json!({})).await;
        let waiting = until_status(&mut peer, &task, "input_required").await;
        let keys: Vec<_> = waiting["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["a", "b"]);
        update(
            &mut peer,
            2,
            &task,
            json!({"a": accept(json!({"ok": true}))}),
        )
        .await;
        probe.started.notified().await;
        // The handler works on; `b` is no longer outstanding.
        let working = until_status(&mut peer, &task, "working").await;
        assert!(working.get("inputRequests").is_none(), "{working}");
        // An answer to the withdrawn key is ignored.
        update(
            &mut peer,
            3,
            &task,
            json!({"b": accept(json!({"ok": true}))}),
        )
        .await;
        assert_eq!(get(&mut peer, 4, &task).await["status"], "working");
        probe.release.notify_one();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "a", "{wire:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn mrtr_answers_carry_into_a_task_created_on_the_retry() {
    let probe = Probe::default();
    let settings = TaskSettings::default()
        .max_tasks(1)
        .ttl(Some(Duration::from_secs(10)));
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let running = start(&mut peer, 1, "ask_forever", json!({})).await;
        // The store is full: `build` runs synchronously and asks over MRTR.
        let args = json!({"name": "build", "arguments": {"target": "late"}});
        let r = peer.call(2, with_tasks(), args.clone()).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        // A slot frees up; the retry becomes a task that already has its answer.
        task_request_as(
            &mut peer,
            5,
            "tasks/cancel",
            json!({"taskId": running}),
            with_tasks(),
        )
        .await;
        let mut retry = args;
        retry["requestState"] = r["result"]["requestState"].clone();
        retry["inputResponses"] = json!({"confirm": accept(json!({"ok": true}))});
        let r = peer.call(3, with_tasks(), retry).await;
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "built late",
            "{wire:?}"
        );
        tokio::time::advance(Duration::from_secs(10)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_task_keeps_the_callers_identity_but_has_no_progress_or_log_channel() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, Some("alice"), wire);
        let mut meta = common::meta(with_tasks());
        meta["progressToken"] = json!("p1");
        meta["io.modelcontextprotocol/logLevel"] = json!("debug");
        let r = peer
            .request(1, "tools/call", json!({"name": "whoami", "_meta": meta}))
            .await;
        // `request` returns the next message: no notification came first.
        assert_eq!(r["id"], 1, "{r}");
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "alice raw 2026-07-28 task=true",
            "{wire:?}"
        );
        // Nothing was sent outside the responses. (The clock is paused, so
        // this times out only once every task is idle.)
        let stray = peer.recv_within(Duration::from_secs(5)).await;
        assert!(stray.is_none(), "{stray:?}");
    }
}

#[tokio::test]
async fn roots_and_sampling_park_a_task_like_elicitation() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let caps = json!({"extensions": {TASKS: {}}, "roots": {}, "sampling": {}});
        let r = peer.call(1, caps, json!({"name": "survey"})).await;
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let waiting = until_status(&mut peer, &task, "input_required").await;
        assert_eq!(waiting["inputRequests"]["roots"]["method"], "roots/list");
        assert_eq!(
            waiting["inputRequests"]["model"]["method"],
            "sampling/createMessage"
        );
        let answers = json!({
            "roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]},
            "model": {"role": "assistant", "content": {"type": "text", "text": "Paris"},
                      "model": "m"}
        });
        update(&mut peer, 2, &task, answers).await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "2 roots; Paris",
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn an_unlimited_ttl_is_null_on_the_wire() {
    let probe = Probe::default();
    let server = server_with(TaskSettings::default().ttl(None), &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = peer.call(1, with_tasks(), json!({"name": "batch"})).await;
        assert_eq!(r["result"]["ttlMs"], Value::Null, "{r}");
        assert!(r["result"].as_object().unwrap().contains_key("ttlMs"));
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let done = until_status(&mut peer, &task, "completed").await;
        assert!(done.as_object().unwrap().contains_key("ttlMs"));
        assert_eq!(done["ttlMs"], Value::Null);
    }
}

// ---------------------------------------------------------------------------
// Outcomes

#[tokio::test]
async fn a_tool_error_completes_and_a_panic_or_internal_error_fails_without_leaking() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "refuse", json!({})).await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["isError"], true, "{done}");
        assert_eq!(done["result"]["content"][0]["text"], "no such target");
        assert!(done.get("error").is_none());

        for (id, tool) in [(2, "explode"), (3, "broken")] {
            let task = start(&mut peer, id, tool, json!({})).await;
            let failed = until_status(&mut peer, &task, "failed").await;
            assert_eq!(
                failed["error"],
                json!({"code": -32603, "message": "Internal error"}),
                "{wire:?} {failed}"
            );
            assert!(failed.get("result").is_none());
            assert!(!failed.to_string().contains("secret"), "{failed}");
        }
    }
}

#[tokio::test]
async fn input_the_client_cannot_give_fails_the_task_with_32021() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = peer
            .call(
                1,
                json!({"extensions": {TASKS: {}}}),
                json!({"name": "build", "arguments": {"target": "x"}}),
            )
            .await;
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let failed = until_status(&mut peer, &task, "failed").await;
        assert_eq!(failed["error"]["code"], -32021, "{failed}");
        assert_eq!(
            failed["error"]["data"]["requiredCapabilities"]["elicitation"],
            json!({})
        );
    }
}

// ---------------------------------------------------------------------------
// Cancellation

#[tokio::test]
async fn cancelling_a_working_task_drops_its_handler_and_is_idempotent() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "forever", json!({})).await;
        probe.started.notified().await;
        let ack = task_request(&mut peer, 2, "tasks/cancel", json!({"taskId": &task})).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        probe.dropped.notified().await;
        let got = get(&mut peer, 3, &task).await;
        assert_eq!(got["status"], "cancelled", "{wire:?}");
        // Again, on a terminal task: still acknowledged, still cancelled.
        let ack = task_request(&mut peer, 4, "tasks/cancel", json!({"taskId": &task})).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert_eq!(get(&mut peer, 5, &task).await["status"], "cancelled");
    }
}

#[tokio::test]
async fn cancelling_at_input_required_releases_the_waiter() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "ask_forever", json!({})).await;
        until_status(&mut peer, &task, "input_required").await;
        task_request(&mut peer, 2, "tasks/cancel", json!({"taskId": &task})).await;
        probe.dropped.notified().await;
        let got = get(&mut peer, 3, &task).await;
        assert_eq!(got["status"], "cancelled", "{wire:?}");
        assert!(got.get("inputRequests").is_none(), "{got}");
        // A late answer is ignored, and the task stays cancelled.
        let ack = update(
            &mut peer,
            4,
            &task,
            json!({"confirm": accept(json!({"ok": true}))}),
        )
        .await;
        assert_eq!(ack["result"]["resultType"], "complete");
        assert_eq!(get(&mut peer, 5, &task).await["status"], "cancelled");
    }
}

#[tokio::test]
async fn a_completed_task_cannot_be_cancelled() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "batch", json!({})).await;
        until_status(&mut peer, &task, "completed").await;
        let ack = task_request(&mut peer, 2, "tasks/cancel", json!({"taskId": &task})).await;
        assert_eq!(ack["result"]["resultType"], "complete");
        let got = get(&mut peer, 3, &task).await;
        assert_eq!(got["status"], "completed", "{wire:?}");
        assert_eq!(got["result"]["content"][0]["text"], "batched");
    }
}

// ---------------------------------------------------------------------------
// Errors, gating and ownership

#[tokio::test]
async fn tasks_methods_need_the_declaration_before_anything_else() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        for (id, method, params) in [
            (1, "tasks/get", json!({"taskId": "unknown"})),
            (
                2,
                "tasks/update",
                json!({"taskId": "unknown", "inputResponses": {}}),
            ),
            (3, "tasks/cancel", json!({"taskId": "unknown"})),
            (4, "tasks/get", json!({})),
        ] {
            let r = task_request_as(&mut peer, id, method, params, without_tasks()).await;
            assert_eq!(error_code(&r), -32021, "{wire:?} {method} {r}");
            assert_eq!(
                r["error"]["data"]["requiredCapabilities"],
                json!({"extensions": {TASKS: {}}})
            );
        }
    }
}

#[tokio::test]
async fn unknown_tasks_and_malformed_params_are_invalid_params() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        for (id, method, params, message) in [
            (
                1,
                "tasks/get",
                json!({"taskId": "nope"}),
                "Failed to retrieve task: Task not found",
            ),
            (
                2,
                "tasks/update",
                json!({"taskId": "nope", "inputResponses": {}}),
                "Failed to update task: Task not found",
            ),
            (
                3,
                "tasks/cancel",
                json!({"taskId": "nope"}),
                "Failed to cancel task: Task not found",
            ),
            (4, "tasks/get", json!({}), "taskId"),
            (5, "tasks/get", json!({"taskId": 7}), "Invalid params"),
            (
                6,
                "tasks/update",
                json!({"taskId": "nope"}),
                "inputResponses",
            ),
        ] {
            let r = task_request(&mut peer, id, method, params).await;
            assert_eq!(error_code(&r), -32602, "{wire:?} {method} {r}");
            let text = r["error"]["message"].as_str().unwrap();
            assert!(
                text.contains(message),
                "{text:?} should mention {message:?}"
            );
        }
    }
}

#[tokio::test]
async fn another_subject_sees_a_task_exactly_as_an_unknown_one() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut alice = peer_as(&server, Some("alice"), wire);
        let mut bob = peer_as(&server, Some("bob"), wire);
        let mut anonymous = peer_as(&server, None, wire);
        let task = start(&mut alice, 1, "ask_forever", json!({})).await;
        until_status(&mut alice, &task, "input_required").await;
        for peer in [&mut bob, &mut anonymous] {
            for (id, method, params) in [
                (1, "tasks/get", json!({"taskId": &task})),
                (
                    2,
                    "tasks/update",
                    json!({"taskId": &task, "inputResponses": {"confirm": accept(json!({"ok": true}))}}),
                ),
                (3, "tasks/cancel", json!({"taskId": &task})),
            ] {
                let foreign = task_request(peer, id, method, params.clone()).await;
                let mut unknown_params = params;
                unknown_params["taskId"] = json!("no-such-task");
                let unknown = task_request(peer, id + 10, method, unknown_params).await;
                assert_eq!(foreign["error"], unknown["error"], "{wire:?} {method}");
            }
        }
        // Bob's update and cancel did nothing.
        let got = get(&mut alice, 2, &task).await;
        assert_eq!(got["status"], "input_required", "{wire:?} {got}");
        task_request(&mut alice, 3, "tasks/cancel", json!({"taskId": &task})).await;
        probe.dropped.notified().await;
    }
}

/// A store whose `create` pauses after storing the task, until released.
struct SlowStore {
    inner: presa::server::InMemoryTaskStore,
    created: std::sync::Mutex<Vec<String>>,
    stored: Notify,
    release: Notify,
}

#[async_trait::async_trait]
impl presa::server::TaskStore for SlowStore {
    async fn create(
        &self,
        record: presa::server::tasks::store::TaskRecord,
        limits: &presa::server::tasks::store::TaskLimits,
    ) -> Result<(), presa::server::tasks::store::StoreError> {
        let id = record.id().to_owned();
        self.inner.create(record, limits).await?;
        self.created.lock().unwrap().push(id);
        self.stored.notify_one();
        self.release.notified().await;
        Ok(())
    }

    async fn get(
        &self,
        id: &str,
    ) -> Result<
        Option<Arc<presa::server::tasks::store::TaskRecord>>,
        presa::server::tasks::store::StoreError,
    > {
        self.inner.get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: presa::server::tasks::store::TaskChange,
        limits: &presa::server::tasks::store::TaskLimits,
    ) -> Result<
        Option<Arc<presa::server::tasks::store::TaskRecord>>,
        presa::server::tasks::store::StoreError,
    > {
        self.inner.apply(id, change, limits).await
    }

    async fn watch(
        &self,
        id: &str,
    ) -> Result<
        Option<presa::server::tasks::store::TaskWatch>,
        presa::server::tasks::store::StoreError,
    > {
        self.inner.watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, presa::server::tasks::store::StoreError> {
        self.inner.purge_expired().await
    }

    async fn count(&self) -> Result<usize, presa::server::tasks::store::StoreError> {
        self.inner.count().await
    }
}

/// A store that counts the watches opened on it and the reads made of
/// it, and whose `peek` answers with the task as it was created: the
/// oldest copy a store could keep.
#[derive(Default)]
struct CountingStore {
    inner: presa::server::InMemoryTaskStore,
    created: std::sync::Mutex<std::collections::HashMap<String, Arc<TaskRecord>>>,
    watches: AtomicUsize,
    gets: AtomicUsize,
    peeks: AtomicUsize,
}

#[async_trait::async_trait]
impl presa::server::TaskStore for CountingStore {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        let copy = Arc::new(record.clone());
        self.inner.create(record, limits).await?;
        self.created
            .lock()
            .unwrap()
            .insert(copy.id().to_owned(), copy);
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get(id).await
    }

    async fn peek(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.peeks.fetch_add(1, Ordering::SeqCst);
        Ok(self.created.lock().unwrap().get(id).cloned())
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.inner.apply(id, change, limits).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        self.watches.fetch_add(1, Ordering::SeqCst);
        self.inner.watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.inner.purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        self.inner.count().await
    }
}

/// A server on a new [`CountingStore`], and the store.
fn counted_server(probe: &Probe) -> (Server, Arc<CountingStore>) {
    let store = Arc::new(CountingStore::default());
    let server = server_configured(TaskSettings::default(), probe, |b| {
        b.task_store(Arc::clone(&store))
    });
    (server, store)
}

#[tokio::test]
async fn a_task_whose_handler_ends_at_its_first_step_opens_no_watch() {
    let probe = Probe::default();
    for wire in WIRES {
        let (server, store) = counted_server(&probe);
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "batch", json!({})).await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "batched", "{done}");
        assert_eq!(store.watches.load(Ordering::SeqCst), 0, "{wire:?}");
    }
}

#[tokio::test]
async fn a_task_that_asks_follows_its_task_with_one_watch() {
    let probe = Probe::default();
    for wire in WIRES {
        let (server, store) = counted_server(&probe);
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "build", json!({"target": "all"})).await;
        until_status(&mut peer, &task, "input_required").await;
        update(
            &mut peer,
            2,
            &task,
            json!({"confirm": accept(json!({"ok": true}))}),
        )
        .await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "built all", "{done}");
        // The runner's watch serves the handler's question too.
        assert_eq!(store.watches.load(Ordering::SeqCst), 1, "{wire:?}");
    }
}

#[tokio::test]
async fn update_and_cancel_check_the_owner_on_the_stores_copy() {
    let probe = Probe::default();
    for wire in WIRES {
        let (server, store) = counted_server(&probe);
        let mut alice = peer_as(&server, Some("alice"), wire);
        let mut bob = peer_as(&server, Some("bob"), wire);
        let task = start(&mut alice, 1, "build", json!({"target": "all"})).await;
        until_status(&mut alice, &task, "input_required").await;
        let gets = store.gets.load(Ordering::SeqCst);
        let answer = json!({"confirm": accept(json!({"ok": true}))});
        // The copy is the record as created, older than the task: the
        // owner on it still turns Bob away.
        let foreign = update(&mut bob, 2, &task, answer.clone()).await;
        assert!(foreign.get("error").is_some(), "{wire:?} {foreign}");
        let foreign = task_request(&mut bob, 3, "tasks/cancel", json!({"taskId": &task})).await;
        assert!(foreign.get("error").is_some(), "{wire:?} {foreign}");
        let ack = update(&mut alice, 4, &task, answer).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{wire:?} {ack}");
        assert_eq!(store.gets.load(Ordering::SeqCst), gets, "no read: {wire:?}");
        assert_eq!(store.peeks.load(Ordering::SeqCst), 3, "{wire:?}");
        let done = until_status(&mut alice, &task, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "built all", "{done}");
    }
}

#[tokio::test]
async fn a_task_whose_creating_request_is_cancelled_midway_fails_instead_of_hanging() {
    let probe = Probe::default();
    let store = Arc::new(SlowStore {
        inner: presa::server::InMemoryTaskStore::new(),
        created: Default::default(),
        stored: Notify::new(),
        release: Notify::new(),
    });
    let server = server_configured(TaskSettings::default(), &probe, |b| {
        b.task_store(Arc::clone(&store))
    });
    let mut peer = peer_as(&server, None, Wire::InProcess);
    peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "batch", "_meta": common::meta(with_tasks())}}))
        .await;
    store.stored.notified().await;
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 1}}),
    )
    .await;
    let task = store.created.lock().unwrap()[0].clone();
    let failed = until_status(&mut peer, &task, "failed").await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
}

// ---------------------------------------------------------------------------
// TTL and the task cap

#[tokio::test(start_paused = true)]
async fn a_task_is_gone_after_its_ttl() {
    let probe = Probe::default();
    let settings = TaskSettings::default().ttl(Some(Duration::from_secs(60)));
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "batch", json!({})).await;
        let done = until_status(&mut peer, &task, "completed").await;
        assert_eq!(done["ttlMs"], 60_000);
        tokio::time::advance(Duration::from_secs(59)).await;
        assert_eq!(get(&mut peer, 2, &task).await["status"], "completed");
        tokio::time::advance(Duration::from_secs(1)).await;
        for (id, method, params) in [
            (3, "tasks/get", json!({"taskId": &task})),
            (
                4,
                "tasks/update",
                json!({"taskId": &task, "inputResponses": {}}),
            ),
            (5, "tasks/cancel", json!({"taskId": &task})),
        ] {
            let r = task_request(&mut peer, id, method, params).await;
            assert_eq!(error_code(&r), -32602, "{wire:?} {method} {r}");
            assert!(
                r["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("Task not found")
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_running_task_is_dropped_when_its_ttl_lapses() {
    let probe = Probe::default();
    // A sweep period far beyond the TTL: the runner itself must notice.
    let settings = TaskSettings::default()
        .ttl(Some(Duration::from_secs(5)))
        .sweep_interval(Duration::from_secs(3600));
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "ask_forever", json!({})).await;
        until_status(&mut peer, &task, "input_required").await;
        tokio::time::advance(Duration::from_secs(5)).await;
        probe.dropped.notified().await;
        let r = task_request(&mut peer, 2, "tasks/get", json!({"taskId": &task})).await;
        assert_eq!(error_code(&r), -32602, "{wire:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn the_sweeper_drops_the_handler_of_an_expired_task() {
    let probe = Probe::default();
    let settings = TaskSettings::default()
        .ttl(Some(Duration::from_secs(10)))
        .sweep_interval(Duration::from_secs(1));
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "forever", json!({})).await;
        probe.started.notified().await;
        // Nobody reads the task; the sweeper alone must end it.
        tokio::time::advance(Duration::from_secs(11)).await;
        probe.dropped.notified().await;
        let r = task_request(&mut peer, 2, "tasks/get", json!({"taskId": &task})).await;
        assert_eq!(error_code(&r), -32602, "{wire:?}");
    }
}

/// Found by the `dispatch` fuzz target: the sweeper held the store it
/// sweeps, so it never saw the store go, and outlived its server for good,
/// with every task record.
#[tokio::test(start_paused = true)]
async fn a_dropped_server_leaves_no_tokio_task_once_its_tasks_expire() {
    let probe = Probe::default();
    let settings = TaskSettings::default()
        .ttl(Some(Duration::from_secs(60)))
        .sweep_interval(Duration::from_secs(10));
    let server = server_with(settings, &probe);
    let mut peer = peer_as(&server, None, Wire::InProcess);
    let task = start(&mut peer, 1, "batch", json!({})).await;
    until_status(&mut peer, &task, "completed").await;
    drop((peer, server));
    let metrics = tokio::runtime::Handle::current().metrics();
    // The TTL ends the task's runner; the next sweep then finds no store.
    tokio::time::sleep(Duration::from_secs(60 + 2 * 10)).await;
    assert_eq!(metrics.num_alive_tasks(), 0);
}

#[tokio::test(start_paused = true)]
async fn at_the_task_cap_optional_runs_synchronously_and_required_is_refused() {
    let probe = Probe::default();
    let settings = TaskSettings::default()
        .max_tasks(2)
        .ttl(Some(Duration::from_secs(30)));
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        // Two tasks that wait for an answer fill the store.
        let first = start(&mut peer, 1, "ask_forever", json!({})).await;
        start(&mut peer, 2, "ask_forever", json!({})).await;
        until_status(&mut peer, &first, "input_required").await;
        let r = peer.call(3, with_tasks(), json!({"name": "plain"})).await;
        assert_eq!(r["result"]["content"][0]["text"], "plain");
        let r = peer
            .call(
                4,
                with_tasks(),
                json!({"name": "resize", "arguments": {"pixels": 9}}),
            )
            .await;
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        let r = peer
            .call(
                5,
                with_tasks(),
                json!({"name": "build", "arguments": {"target": "x"}}),
            )
            .await;
        assert_eq!(
            r["result"]["resultType"], "input_required",
            "optional falls back to a synchronous run: {r}"
        );
        let r = peer.call(6, with_tasks(), json!({"name": "batch"})).await;
        assert_eq!(error_code(&r), -31000, "{wire:?} {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("runs 2 tasks, as many as it keeps"),
            "{r}"
        );
        assert_eq!(
            r["error"]["data"],
            json!({"maxTasks": 2, "scope": "server"})
        );
        // Expired tasks are purged to make room.
        tokio::time::advance(Duration::from_secs(30)).await;
        start(&mut peer, 7, "batch", json!({})).await;
        tokio::time::advance(Duration::from_secs(30)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn finished_tasks_make_way_for_new_ones_the_first_to_finish_first() {
    let probe = Probe::default();
    let settings = TaskSettings::default().max_tasks(2);
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let first = start(&mut peer, 1, "batch", json!({})).await;
        until_status(&mut peer, &first, "completed").await;
        let second = start(&mut peer, 2, "batch", json!({})).await;
        until_status(&mut peer, &second, "completed").await;
        // Finished tasks stay readable while nothing needs their room.
        assert_eq!(get(&mut peer, 3, &first).await["status"], "completed");
        // A third task evicts the first to finish, and only it.
        let third = start(&mut peer, 4, "ask_forever", json!({})).await;
        let gone = task_request_as(
            &mut peer,
            5,
            "tasks/get",
            json!({"taskId": first}),
            with_tasks(),
        )
        .await;
        assert_eq!(error_code(&gone), -32602, "{gone}");
        assert_eq!(get(&mut peer, 6, &second).await["status"], "completed");
        // Running tasks are never evicted: with both slots running, a
        // required tool is refused.
        let fourth = start(&mut peer, 7, "ask_forever", json!({})).await;
        assert_eq!(get(&mut peer, 8, &third).await["status"], "input_required");
        let r = peer.call(9, with_tasks(), json!({"name": "batch"})).await;
        assert_eq!(error_code(&r), -31000, "{wire:?} {r}");
        for (id, task) in [(10, &third), (11, &fourth)] {
            task_request_as(
                &mut peer,
                id,
                "tasks/cancel",
                json!({"taskId": task}),
                with_tasks(),
            )
            .await;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn one_subject_cannot_take_every_task() {
    let probe = Probe::default();
    let settings = TaskSettings::default()
        .max_tasks(10)
        .max_tasks_per_subject(2);
    let server = server_with(settings, &probe);
    for wire in WIRES {
        let mut alice = peer_as(&server, Some("alice"), wire);
        let mut bob = peer_as(&server, Some("bob"), wire);
        let a1 = start(&mut alice, 1, "ask_forever", json!({})).await;
        let a2 = start(&mut alice, 2, "ask_forever", json!({})).await;
        // Alice is at her quota: an optional tool runs synchronously, a
        // required one is refused with a message about her own limit.
        let r = alice
            .call(
                3,
                with_tasks(),
                json!({"name": "build", "arguments": {"target": "x"}}),
            )
            .await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        let r = alice.call(4, with_tasks(), json!({"name": "batch"})).await;
        assert_eq!(error_code(&r), -31000, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("You already run 2 tasks"),
            "{r}"
        );
        assert_eq!(
            r["error"]["data"],
            json!({"maxTasks": 2, "scope": "subject"})
        );
        // Bob is not held back by Alice.
        let b1 = start(&mut bob, 1, "batch", json!({})).await;
        until_status(&mut bob, &b1, "completed").await;
        // A task that ends gives its slot back at once.
        task_request_as(
            &mut alice,
            5,
            "tasks/cancel",
            json!({"taskId": a1}),
            with_tasks(),
        )
        .await;
        start(&mut alice, 6, "batch", json!({})).await;
        task_request_as(
            &mut alice,
            7,
            "tasks/cancel",
            json!({"taskId": a2}),
            with_tasks(),
        )
        .await;
    }
}

// ---------------------------------------------------------------------------
// Listening

/// Opens `subscriptions/listen` for `task_ids` and returns the
/// acknowledgement.
async fn listen(peer: &mut RawPeer, id: i64, task_ids: Value, capabilities: Value) -> Value {
    task_request_as(
        peer,
        id,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": task_ids}}),
        capabilities,
    )
    .await
}

#[tokio::test]
async fn listening_acknowledges_then_sends_the_current_state_then_every_change() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut caller = peer_as(&server, None, wire);
        let mut watcher = peer_as(&server, None, wire);
        let task = start(&mut caller, 1, "build", json!({"target": "web"})).await;
        until_status(&mut caller, &task, "input_required").await;

        let ack = listen(&mut watcher, 7, json!([&task]), with_tasks()).await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
        assert_eq!(ack["params"]["notifications"]["taskIds"], json!([&task]));

        let current = watcher.recv().await;
        assert_eq!(current["method"], "notifications/tasks", "{current}");
        assert_eq!(
            current["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
        assert_eq!(current["params"]["status"], "input_required");
        assert_eq!(
            current["params"]["inputRequests"]["confirm"]["params"]["message"],
            "Build web?"
        );

        update(
            &mut caller,
            2,
            &task,
            json!({"confirm": accept(json!({"ok": true}))}),
        )
        .await;
        let mut statuses = Vec::new();
        let last = loop {
            let message = watcher.recv().await;
            if message.get("id").is_some() {
                break message;
            }
            assert_eq!(message["method"], "notifications/tasks");
            assert_eq!(
                message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                7
            );
            statuses.push(message["params"]["status"].as_str().unwrap().to_owned());
            if message["params"]["status"] == "completed" {
                assert_eq!(
                    message["params"]["result"]["content"][0]["text"],
                    "built web"
                );
            }
        };
        // Each notification carries the task as it is when the stream gets
        // to it, so `working` may be folded into `completed`.
        assert_eq!(
            statuses.last().map(String::as_str),
            Some("completed"),
            "{wire:?}"
        );
        assert!(
            statuses[..statuses.len() - 1]
                .iter()
                .all(|s| s == "working"),
            "{wire:?}: {statuses:?}"
        );
        // Every followed task ended, so the server ends the stream: the
        // graceful result first, then `notifications/cancelled` for it.
        assert_eq!(last["id"], 7);
        assert_eq!(last["result"]["resultType"], "complete");
        assert_eq!(
            last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
        let teardown = watcher.recv().await;
        assert_eq!(teardown["method"], "notifications/cancelled", "{teardown}");
        assert_eq!(teardown["params"]["requestId"], 7, "{teardown}");
        assert_eq!(
            teardown["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_without_tasks_acknowledges_no_task_ids() {
    let server = Server::builder("plain", "1").tool(PlainTool).build();
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        // Not even a client without the extension is refused: there is
        // nothing to refuse.
        let ack = listen(&mut peer, 1, json!(["a"]), without_tasks()).await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        assert_eq!(ack["params"]["notifications"], json!({}), "{wire:?}");
        // Following nothing is not the end of everything it follows: the
        // stream stays open until the client cancels it.
        let quiet = peer.recv_within(Duration::from_secs(3600)).await;
        assert_eq!(quiet, None, "{wire:?}");
        peer.send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 1}}),
        )
        .await;
        let quiet = peer.recv_within(Duration::from_secs(3600)).await;
        assert_eq!(quiet, None, "a cancelled stream gets no response");
    }
}

#[tokio::test]
async fn two_listeners_each_see_status_message_changes() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut caller = peer_as(&server, None, wire);
        let task = start(&mut caller, 1, "compile", json!({})).await;
        probe.started.notified().await;
        let mut first = peer_as(&server, None, wire);
        let mut second = peer_as(&server, None, wire);
        for (watcher, id) in [(&mut first, 5), (&mut second, 6)] {
            listen(watcher, id, json!([&task]), with_tasks()).await;
            let current = watcher.recv().await;
            assert_eq!(current["params"]["statusMessage"], "compiling");
        }
        probe.release.notify_one();
        for watcher in [&mut first, &mut second] {
            let done = watcher.recv().await;
            assert_eq!(done["params"]["status"], "completed", "{wire:?} {done}");
            assert_eq!(watcher.recv().await["result"]["resultType"], "complete");
            assert_eq!(watcher.recv().await["method"], "notifications/cancelled");
        }
    }
}

/// An open listen stream holds its request's share of the connection's
/// memory budget only until it is acknowledged. Found by the `dispatch`
/// fuzz target: a stream that kept it filled the budget, so the
/// `tasks/update` that would finish the task it follows was never read,
/// and the connection never saw its peer close.
#[tokio::test(start_paused = true)]
async fn an_open_listen_stream_does_not_keep_the_connection_from_reading() {
    let probe = Probe::default();
    let server = server_configured(TaskSettings::default(), &probe, |builder| {
        builder.connection_memory_limit(32 * 1024)
    });
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "build", json!({"target": "web"})).await;
        until_status(&mut peer, &task, "input_required").await;
        // Most of the budget: its parsed form is several times its text.
        let mut meta = common::meta(with_tasks());
        meta["padding"] = json!(vec!["x"; 2_000]);
        let listen = json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": [&task]}, "_meta": meta}});
        peer.send(listen).await;
        let ack = peer.recv().await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        assert_eq!(peer.recv().await["params"]["status"], "input_required");

        let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let mut meta = common::meta(with_tasks());
        meta["padding"] = json!(vec!["x"; 2_000]);
        let update = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/update",
            "params": {"taskId": &task, "inputResponses": answer, "_meta": meta}});
        peer.send(update).await;
        let mut seen = Vec::new();
        while seen.len() < 2 {
            let message = peer
                .recv_within(Duration::from_secs(60))
                .await
                .unwrap_or_else(|| panic!("{wire:?}: the update was never read; saw {seen:?}"));
            seen.push(message);
        }
        assert!(
            seen.iter().any(|m| m["id"] == 3 && m["result"].is_object()),
            "{wire:?}: the update is answered: {seen:?}"
        );
        assert!(
            seen.iter().any(|m| m["params"]["status"] == "working"
                || m["params"]["status"] == "completed"),
            "{wire:?}: the stream follows the task on: {seen:?}"
        );
    }
}

/// A task may be followed by `max_listeners_per_task` streams; one more
/// is refused with `-31001`, and ending a stream frees its place.
#[tokio::test(start_paused = true)]
async fn a_task_has_at_most_its_limit_of_listeners() {
    let probe = Probe::default();
    let server = server_with(TaskSettings::default().max_listeners_per_task(2), &probe);
    for wire in WIRES {
        let mut caller = peer_as(&server, None, wire);
        let task = start(&mut caller, 1, "ask_forever", json!({})).await;
        let mut watcher = peer_as(&server, None, wire);
        for id in [5, 6] {
            let ack = listen(&mut watcher, id, json!([&task]), with_tasks()).await;
            assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
            watcher.recv().await; // the current state
        }
        let refused = listen(&mut watcher, 7, json!([&task]), with_tasks()).await;
        assert_eq!(error_code(&refused), -31001, "{wire:?} {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already has 2 listeners"),
            "{refused}"
        );
        watcher
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 5}}),
            )
            .await;
        let ack = listen(&mut watcher, 8, json!([&task]), with_tasks()).await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{wire:?}: the cancelled stream's place was not freed: {ack}"
        );
        task_request(&mut caller, 2, "tasks/cancel", json!({"taskId": task})).await;
    }
}

#[tokio::test]
async fn listening_needs_the_declaration_and_at_most_100_ids() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let r = listen(&mut peer, 1, json!(["a"]), without_tasks()).await;
        assert_eq!(error_code(&r), -32021, "{wire:?} {r}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"extensions": {TASKS: {}}})
        );
        let ids: Vec<String> = (0..101).map(|i| format!("t{i}")).collect();
        let r = listen(&mut peer, 2, json!(ids), with_tasks()).await;
        assert_eq!(error_code(&r), -32602, "{wire:?} {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("at most 100")
        );
        // Exactly 100 unknown ids: accepted, none acknowledged, closed at once.
        let ids: Vec<String> = (0..100).map(|i| format!("t{i}")).collect();
        let ack = listen(&mut peer, 3, json!(ids), with_tasks()).await;
        assert_eq!(
            ack["params"]["notifications"]["taskIds"],
            json!([]),
            "{ack}"
        );
        let end = peer.recv().await;
        assert_eq!(end["id"], 3, "{end}");
        let teardown = peer.recv().await;
        assert_eq!(teardown["method"], "notifications/cancelled", "{teardown}");
    }
}

#[tokio::test(start_paused = true)]
async fn listening_drops_the_ids_the_caller_cannot_see() {
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let mut alice = peer_as(&server, Some("alice"), wire);
        let mut bob = peer_as(&server, Some("bob"), wire);
        let mine = start(&mut alice, 1, "forever", json!({})).await;
        probe.started.notified().await;
        let theirs = start(&mut bob, 1, "ask_forever", json!({})).await;
        let ack = listen(
            &mut alice,
            2,
            json!([&mine, &theirs, "unknown", &mine]),
            with_tasks(),
        )
        .await;
        assert_eq!(
            ack["params"]["notifications"]["taskIds"],
            json!([&mine]),
            "{wire:?}"
        );
        let current = alice.recv().await;
        assert_eq!(current["params"]["taskId"], mine);
        // Cancelling the listen request ends the stream: nothing more comes,
        // not even when the task changes.
        alice
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 2}}),
            )
            .await;
        task_request(&mut bob, 2, "tasks/cancel", json!({"taskId": &theirs})).await;
        probe.dropped.notified().await;
        let ack = task_request(&mut alice, 3, "tasks/cancel", json!({"taskId": &mine})).await;
        assert_eq!(ack["id"], 3, "the listen stream sent nothing more: {ack}");
        probe.dropped.notified().await;
        // With the clock paused, this only times out once every task is idle.
        let late = alice.recv_within(Duration::from_secs(5)).await;
        assert!(late.is_none(), "nothing after the cancellation: {late:?}");
    }
}

#[tokio::test]
async fn subscriptions_do_not_take_request_slots() {
    let probe = Probe::default();
    let server = server_configured(TaskSettings::default(), &probe, |b| b.max_in_flight(1));
    for wire in WIRES {
        let mut peer = peer_as(&server, None, wire);
        let task = start(&mut peer, 1, "ask_forever", json!({})).await;
        until_status(&mut peer, &task, "input_required").await;
        for id in [2, 3] {
            let ack = listen(&mut peer, id, json!([&task]), with_tasks()).await;
            assert_eq!(ack["params"]["notifications"]["taskIds"], json!([&task]));
            let current = peer.recv().await;
            assert_eq!(current["params"]["status"], "input_required");
        }
        // Two open streams, one request slot: requests still run.
        let got = get(&mut peer, 4, &task).await;
        assert_eq!(got["status"], "input_required", "{wire:?}");
        task_request(&mut peer, 5, "tasks/cancel", json!({"taskId": &task})).await;
        probe.dropped.notified().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_closed_connection_ends_its_subscriptions_at_once() {
    use presa::transport::FrameChannel;
    let probe = Probe::default();
    let server = server(&probe);
    let (client_side, server_side) = FrameChannel::pair();
    let served = tokio::spawn(presa::server::serve(
        server,
        server_side,
        Caller::anonymous(),
    ));
    let mut peer = RawPeer::new(client_side);
    let task = start(&mut peer, 1, "ask_forever", json!({})).await;
    listen(&mut peer, 2, json!([&task]), with_tasks()).await;
    peer.recv().await;
    let closed_at = tokio::time::Instant::now();
    drop(peer.close());
    served.await.unwrap();
    assert!(
        closed_at.elapsed() < Duration::from_secs(1),
        "the open stream did not hold the connection for the drain period"
    );
}

// ---------------------------------------------------------------------------
// The client against the real server

/// A client that confirms every elicitation, over `wire`, for `subject`.
fn confirming_client(server: &Server, wire: Wire, tasks: bool) -> Client {
    Client::builder()
        .tasks(tasks)
        .on_elicitation(|_| async { presa::wire::ElicitResult::accept(json!({"ok": true})) })
        .connect(presa::client::ClientTransport::from(connect(
            server,
            Caller::anonymous(),
            wire,
        )))
}

#[tokio::test]
async fn the_seed_examples_through_the_client() {
    use presa::client::AwaitOptions;
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let c = confirming_client(&server, wire, true);
        let created = c
            .call_tool("build", json!({"target": "all"}))
            .await
            .unwrap();
        assert!(created.is_task(), "{wire:?}");
        let result = c
            .await_task(created.task().unwrap(), AwaitOptions::default())
            .await;
        assert_eq!(result.unwrap().text(), Some("built all"), "{wire:?}");

        let plain = confirming_client(&server, wire, false);
        let result = plain
            .call_tool("build", json!({"target": "docs"}))
            .await
            .unwrap();
        assert!(!result.is_task());
        assert_eq!(result.text(), Some("built docs"), "{wire:?}");

        let created = c
            .call_tool("build", json!({"target": "web"}))
            .await
            .unwrap();
        let listening = AwaitOptions::default().listen(true);
        let result = c.await_task(created.task().unwrap(), listening).await;
        assert_eq!(result.unwrap().text(), Some("built web"), "{wire:?}");
    }
}

#[tokio::test]
async fn the_client_reports_failed_and_cancelled_tasks_as_errors() {
    use presa::client::{AwaitOptions, ClientError};
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let c = confirming_client(&server, wire, true);
        let created = c.call_tool("explode", json!({})).await.unwrap();
        let error = c
            .await_task(created.task().unwrap(), AwaitOptions::default())
            .await
            .unwrap_err();
        let ClientError::TaskFailed(error) = &error else {
            panic!("expected TaskFailed, got {error:?}");
        };
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32603, "Internal error")
        );

        let created = c.call_tool("forever", json!({})).await.unwrap();
        probe.started.notified().await;
        let task = created.task().unwrap().id().to_owned();
        c.cancel_task(&task).await.unwrap();
        probe.dropped.notified().await;
        let error = c
            .await_task(&task, AwaitOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(&error, ClientError::TaskCancelled { task_id } if *task_id == task),
            "{wire:?} {error:?}"
        );
    }
}

#[tokio::test]
async fn a_new_client_resumes_a_task_from_its_bare_id() {
    use presa::client::AwaitOptions;
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        // A client starts the task and goes away before answering; the
        // task keeps the capabilities of the request that created it.
        let first = Client::builder()
            .tasks(true)
            .on_elicitation(|_| async { unreachable!("this client never awaits") })
            .connect(presa::client::ClientTransport::from(connect(
                &server,
                Caller::anonymous(),
                wire,
            )));
        let created = first.call_tool("counted", json!({})).await.unwrap();
        let task: String = created.task().unwrap().id().to_owned();
        let state = first.get_task(&task).await.unwrap();
        assert_eq!(state.task.task_id, task);
        first.close().await.unwrap();

        let second = confirming_client(&server, wire, true);
        let result = second
            .await_task(task.as_str(), AwaitOptions::default())
            .await;
        assert!(
            result.unwrap().text().unwrap().starts_with("run "),
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn one_step_calls_drive_a_task_by_hand() {
    use presa::wire::{ElicitResult, InputResponse, TaskStatus};
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let c = confirming_client(&server, wire, true);
        let created = c.call_tool("full_name", json!({})).await.unwrap();
        let task = created.task().unwrap().id().to_owned();
        let mut state = c.get_task(&task).await.unwrap();
        while state.task.status != TaskStatus::InputRequired {
            state = c.get_task(&task).await.unwrap();
        }
        let asked: Vec<_> = state.input_requests.unwrap().into_keys().collect();
        assert_eq!(asked, ["first", "last"]);
        for (key, name) in [("first", "Grace"), ("last", "Hopper")] {
            let answer = InputResponse::Elicit(ElicitResult::accept(json!({"name": name})));
            c.update_task(&task, [(key.to_owned(), answer)].into())
                .await
                .unwrap();
        }
        loop {
            let state = c.get_task(&task).await.unwrap();
            if state.task.status == TaskStatus::Completed {
                let text = &state.result.unwrap()["content"][0]["text"];
                assert_eq!(text, "Grace Hopper", "{wire:?}");
                break;
            }
        }
        let unknown = c.get_task("no-such-task").await.unwrap_err();
        assert_eq!(unknown.code(), Some(-32602));
    }
}

#[tokio::test]
async fn listen_tasks_follows_only_the_callers_tasks() {
    use presa::wire::TaskStatus;
    let probe = Probe::default();
    let server = server(&probe);
    for wire in WIRES {
        let c = confirming_client(&server, wire, true);
        let created = c.call_tool("compile", json!({})).await.unwrap();
        let task = created.task().unwrap().id().to_owned();
        probe.started.notified().await;
        let mut subscription = c
            .listen_tasks(vec![task.clone(), "someone-elses".into()])
            .await
            .unwrap();
        assert_eq!(subscription.acknowledged(), std::slice::from_ref(&task));
        let current = subscription.next().await.unwrap();
        assert_eq!(current.task.status_message.as_deref(), Some("compiling"));
        probe.release.notify_one();
        let done = subscription.next().await.unwrap();
        assert_eq!(done.task.status, TaskStatus::Completed, "{wire:?}");
        assert!(
            subscription.next().await.is_none(),
            "the server closes the stream"
        );
    }
}
