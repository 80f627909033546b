//! Middleware: tower layers around tools, prompts and resources (the rules
//! of `presa::server::middleware`), on every transport and both eras, in
//! requests, in tasks, and in parked tasks that resume.

use crate::common;

use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use common::{RawPeer, WIRES, Wire, connect};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientBuilder, ClientError, ClientTransport};
use presa::prelude::*;
use presa::server::middleware::{Handled, HandlerService, Invocation, Next, from_fn};
use presa::server::{Layered, TaskSettings};
use presa::wire::{ElicitResult, InputResponse};
use serde::Deserialize;
use serde_json::{Value, json};
use tower::layer::layer_fn;
use tower::{BoxError, Layer, Service};

/// What the layers saw, in order.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>, Arc<tokio::sync::Notify>);

impl Log {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
        self.1.notify_waiters();
    }

    /// Waits until a layer wrote `line`.
    async fn wait_for(&self, line: &str) {
        loop {
            let written = self.1.notified();
            tokio::pin!(written);
            written.as_mut().enable();
            if self.0.lock().unwrap().iter().any(|seen| seen == line) {
                return;
            }
            written.await;
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// A layer that writes `label >` with what it saw on the way in, and
/// `label <` with the outcome on the way out.
#[derive(Clone)]
struct Record<S> {
    label: &'static str,
    log: Log,
    inner: S,
}

impl<S> Service<Invocation> for Record<S>
where
    S: Service<Invocation, Response = Handled, Error = BoxError> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Handled;
    type Error = BoxError;
    type Future = presa::server::BoxFuture<Result<Handled, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        self.log.push(format!(
            "{} > {} {} {} {:?} task:{}",
            self.label,
            invocation.method().as_str(),
            invocation.name(),
            Value::Object(invocation.arguments().clone()),
            invocation.caller().subject,
            invocation.task_id().is_some(),
        ));
        let open = Open {
            label: self.label,
            log: self.log.clone(),
            ended: false,
        };
        let (label, log) = (self.label, self.log.clone());
        let run = self.inner.call(invocation);
        Box::pin(async move {
            // Moved in whole, so that dropping the run drops the guard.
            let mut open = open;
            let outcome = run.await;
            open.ended = true;
            let seen = match &outcome {
                Ok(handled) if handled.is_success() => "ok".to_owned(),
                Ok(handled) => match handled.error() {
                    Some(error) if error.is_input_required() => "input required".to_owned(),
                    Some(error) => format!("error {error}"),
                    None => "tool error".to_owned(),
                },
                Err(error) => format!("layer error {error}"),
            };
            log.push(format!("{label} < {seen}"));
            outcome
        })
    }
}

/// Writes `label dropped` when a run is dropped before it ends.
struct Open {
    label: &'static str,
    log: Log,
    ended: bool,
}

impl Drop for Open {
    fn drop(&mut self) {
        if !self.ended {
            self.log.push(format!("{} dropped", self.label));
        }
    }
}

fn record(
    label: &'static str,
    log: &Log,
) -> impl Layer<HandlerService, Service = Record<HandlerService>> + Clone + Send + Sync + 'static {
    let log = log.clone();
    layer_fn(move |inner| Record {
        label,
        log: log.clone(),
        inner,
    })
}

/// Answers in the handler's place for every caller but `admin`: a layer
/// that refuses some callers.
async fn admins_only(invocation: Invocation, next: Next) -> Result<Handled, BoxError> {
    if invocation.caller().subject.as_deref() == Some("admin") {
        return next.run(invocation).await;
    }
    Ok(invocation.fail(ToolError::new("Only admins may use this.")))
}

/// Fails every invocation with an error of its own.
async fn broken(_: Invocation, _: Next) -> Result<Handled, BoxError> {
    Err("the audit log is full".into())
}

/// Answers a tool call with a prompt's outcome: a bug.
async fn wrong_kind(_: Invocation, _: Next) -> Result<Handled, BoxError> {
    Ok(Handled::Prompt(Err(ToolError::new("no"))))
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Says what it was given.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Never finishes.
#[tool]
async fn stuck() -> String {
    std::future::pending().await
}

/// Asks first, then builds; as a task when the client can follow one.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    let confirmed = ctx.elicit::<Confirm>("confirm", "Build?").await?;
    match confirmed.accepted() {
        Some(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not built")),
    }
}

/// Asks first, then deploys; its task sleeps while it waits, and runs
/// again from the start when answered.
#[tool(task = "required", resumable)]
async fn deploy(ctx: Context, service: String) -> Result<String, ToolError> {
    let confirmed = ctx.elicit::<Confirm>("confirm", "Deploy?").await?;
    match confirmed.accepted() {
        Some(Confirm { ok: true }) => Ok(format!("deployed {service}")),
        _ => Err(ToolError::new("not deployed")),
    }
}

/// A greeting.
#[prompt]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// A note.
#[resource(uri = "notes://{id}", mime_type = "text/plain")]
async fn note(id: String) -> String {
    format!("note {id}")
}

/// The log the macro's own layer writes to: a macro's layer expression
/// has no test to take it from.
static MACRO_LOG: std::sync::LazyLock<Log> = std::sync::LazyLock::new(Log::default);

/// Echoes, with a layer declared on the macro.
#[tool(layer = record("macro", &MACRO_LOG))]
async fn shout(text: String) -> String {
    text.to_uppercase()
}

fn server_with(
    configure: impl FnOnce(presa::server::ServerBuilder) -> presa::server::ServerBuilder,
) -> Server {
    let builder = Server::builder("middleware", "1")
        .tool(EchoTool)
        .tool(StuckTool)
        .tool(BuildTool)
        .tool(DeployTool)
        .tool(ShoutTool)
        .tool(GatedTool)
        .prompt(GreetPrompt)
        .resource(NoteResource)
        .state(Gate::default())
        .tasks(TaskSettings::default());
    configure(builder).build()
}

fn client_of(server: &Server, caller: Caller, wire: Wire, builder: ClientBuilder) -> Client {
    builder.connect(ClientTransport::from(connect(server, caller, wire)))
}

fn confirming() -> ClientBuilder {
    Client::builder().on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
}

#[tokio::test]
async fn layers_run_in_order_the_servers_outside_the_tools_own() {
    let log = Log::default();
    let server = server_with(|b| {
        b.layer(record("server 1", &log))
            .layer(record("server 2", &log))
            .tool(Layered::new(HelloTool, record("tool 1", &log)).layer(record("tool 2", &log)))
    });
    for wire in WIRES {
        let client = client_of(&server, Caller::subject("alice"), wire, Client::builder());
        let result = client
            .call_tool("hello", json!({"name": "Ann"}))
            .await
            .unwrap()
            .into_complete()
            .unwrap();
        assert_eq!(result.text(), Some("Hello, Ann!"), "{wire:?}");
        let seen = r#"tools/call hello {"name":"Ann"} Some("alice") task:false"#;
        assert_eq!(
            log.take(),
            [
                format!("server 1 > {seen}"),
                format!("server 2 > {seen}"),
                format!("tool 1 > {seen}"),
                format!("tool 2 > {seen}"),
                "tool 2 < ok".to_owned(),
                "tool 1 < ok".to_owned(),
                "server 2 < ok".to_owned(),
                "server 1 < ok".to_owned(),
            ],
            "{wire:?}"
        );
    }
}

/// Says hello; a tool apart from the prompt `greet`, for the order test.
#[tool]
async fn hello(name: String) -> String {
    format!("Hello, {name}!")
}

#[tokio::test]
async fn a_layer_declared_on_the_macro_runs_inside_the_servers() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    let client = client_of(
        &server,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder(),
    );
    let outcome = client
        .call_tool("shout", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("HI"));
    let seen = r#"tools/call shout {"text":"hi"} None task:false"#;
    assert_eq!(
        log.take(),
        [format!("server > {seen}"), "server < ok".to_owned()]
    );
    assert_eq!(
        MACRO_LOG.take(),
        [format!("macro > {seen}"), "macro < ok".to_owned()]
    );
}

#[tokio::test]
async fn prompts_and_resource_reads_run_through_the_layers() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    let client = client_of(
        &server,
        Caller::subject("bo"),
        Wire::Stdio,
        Client::builder(),
    );
    let prompt = client
        .get_prompt("greet", json!({"name": "Bo"}))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&prompt)
            .unwrap()
            .contains("Hello, Bo!")
    );
    let read = client.read_resource("notes://7").await.unwrap();
    assert!(serde_json::to_string(&read).unwrap().contains("note 7"));
    assert_eq!(
        log.take(),
        [
            r#"server > prompts/get greet {"name":"Bo"} Some("bo") task:false"#,
            "server < ok",
            r#"server > resources/read notes://7 {"id":"7"} Some("bo") task:false"#,
            "server < ok",
        ]
    );
}

#[tokio::test]
async fn each_mrtr_round_is_one_invocation() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    let client = client_of(&server, Caller::anonymous(), Wire::InProcess, confirming());
    let outcome = client
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("built docs"));
    let seen = r#"tools/call build {"target":"docs"} None task:false"#;
    assert_eq!(
        log.take(),
        [
            format!("server > {seen}"),
            "server < input required".to_owned(),
            format!("server > {seen}"),
            "server < ok".to_owned(),
        ]
    );
}

#[tokio::test]
async fn a_task_runs_its_handler_inside_the_layers() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    let client = client_of(
        &server,
        Caller::subject("carol"),
        Wire::InProcess,
        confirming().tasks(true),
    );
    let outcome = client
        .call_tool("build", json!({"target": "app"}))
        .await
        .unwrap();
    let task = outcome.task().expect("a task").id().to_owned();
    let result = client
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built app"));
    // One invocation: the task's run waits for its answer inside it.
    assert_eq!(
        log.take(),
        [
            r#"server > tools/call build {"target":"app"} Some("carol") task:true"#,
            "server < ok",
        ]
    );
}

#[tokio::test]
async fn a_parked_resumable_task_runs_through_the_layers_again() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    // The test answers by hand, once the parked task dropped its run.
    let client = client_of(
        &server,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder()
            .tasks(true)
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) }),
    );
    let outcome = client
        .call_tool("deploy", json!({"service": "api"}))
        .await
        .unwrap();
    let task = outcome.task().expect("a task").id().to_owned();
    log.wait_for("server dropped").await;
    let answer = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    client
        .update_task(&task, [("confirm".to_owned(), answer)].into())
        .await
        .unwrap();
    let result = client
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("deployed api"));
    let seen = r#"server > tools/call deploy {"service":"api"} None task:true"#;
    assert_eq!(log.take(), [seen, "server dropped", seen, "server < ok"]);
}

#[tokio::test]
async fn a_legacy_session_runs_its_calls_through_the_layers() {
    let log = Log::default();
    let server = server_with(|b| b.layer(record("server", &log)));
    for wire in WIRES {
        let channel = connect(&server, Caller::anonymous(), wire);
        let (mut peer, _) = RawPeer::legacy(channel, "2025-11-25", json!({})).await;
        let response = peer
            .request(
                1,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "old"}}),
            )
            .await;
        assert_eq!(response["result"]["content"][0]["text"], "old", "{wire:?}");
        assert_eq!(
            log.take(),
            [
                r#"server > tools/call echo {"text":"old"} None task:false"#,
                "server < ok"
            ],
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn a_layer_that_refuses_answers_as_the_handler_would() {
    let server = server_with(|b| b.layer(from_fn(admins_only)));
    let admin = client_of(
        &server,
        Caller::subject("admin"),
        Wire::InProcess,
        Client::builder(),
    );
    let outcome = admin
        .call_tool("echo", json!({"text": "yes"}))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("yes"));

    let guest = client_of(
        &server,
        Caller::subject("guest"),
        Wire::InProcess,
        Client::builder(),
    );
    let refused = guest
        .call_tool("echo", json!({"text": "yes"}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert!(refused.is_error(), "a tool's refusal is a tool error");
    assert_eq!(refused.text(), Some("Only admins may use this."));
    // A prompt has no tool errors: the message rejects the request.
    match guest.get_prompt("greet", json!({"name": "G"})).await {
        Err(ClientError::Rpc(error)) => {
            assert_eq!(error.code, -32602);
            assert_eq!(error.message, "Only admins may use this.");
        }
        other => panic!("expected -32602, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_timeout_reaches_the_model_as_a_tool_error() {
    let timeout = tower::timeout::TimeoutLayer::new(Duration::from_secs(5));
    let server = server_with(|b| b.layer(timeout));
    let client = client_of(
        &server,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder(),
    );
    let result = client
        .call_tool("stuck", json!({}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert!(result.is_error());
    assert_eq!(result.text(), Some("request timed out"));
}

#[tokio::test]
async fn a_layers_own_error_follows_the_error_details_rule() {
    let server = server_with(|b| b.layer(from_fn(broken)));
    let client = client_of(
        &server,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder(),
    );
    let result = client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert!(result.is_error());
    assert_eq!(result.text(), Some("the audit log is full"));
    match client.read_resource("notes://1").await {
        Err(ClientError::Rpc(error)) => assert_eq!(error.code, -32603),
        other => panic!("expected -32603, got {other:?}"),
    }

    let masked = server_with(|b| {
        b.layer(from_fn(broken))
            .error_details(presa::server::ErrorDetails::Masked)
    });
    let client = client_of(
        &masked,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder(),
    );
    let result = client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert_eq!(result.text(), Some(presa::server::MASKED_ERROR_MESSAGE));
}

#[tokio::test]
async fn a_layer_that_answers_with_the_wrong_kind_of_outcome_is_an_internal_error() {
    let server = server_with(|b| b.layer(from_fn(wrong_kind)));
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let response = peer
        .call(
            1,
            json!({}),
            json!({"name": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32603, "{response}");
}

#[tokio::test]
async fn a_concurrency_limit_is_shared_by_every_call() {
    // tower's ConcurrencyLimit keeps its semaphore in the service, which
    // every call clones: with a limit of one, a second call waits for the
    // first rather than getting a limit of its own.
    let gate = Gate::default();
    let server = server_with(|b| {
        b.layer(tower::limit::ConcurrencyLimitLayer::new(1))
            .state(gate.clone())
    });
    let client = client_of(
        &server,
        Caller::anonymous(),
        Wire::InProcess,
        Client::builder(),
    );
    let first = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("gated", json!({})).await })
    };
    gate.entered.notified().await;
    let second = client.call_tool("echo", json!({"text": "later"}));
    tokio::pin!(second);
    for _ in 0..1_000 {
        tokio::task::yield_now().await;
        assert!(
            futures::poll!(second.as_mut()).is_pending(),
            "the second call ran past the limit"
        );
    }
    gate.open.add_permits(1);
    assert_eq!(first.await.unwrap().unwrap().text(), Some("through"));
    assert_eq!(second.await.unwrap().text(), Some("later"));
}

/// What `gated` waits on, and tells.
#[derive(Clone)]
struct Gate {
    /// Told once `gated` runs.
    entered: Arc<tokio::sync::Notify>,
    /// `gated` returns once this has a permit.
    open: Arc<tokio::sync::Semaphore>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            entered: Arc::default(),
            open: Arc::new(tokio::sync::Semaphore::new(0)),
        }
    }
}

/// Waits until the test opens the gate.
#[tool]
async fn gated(State(gate): State<Gate>) -> &'static str {
    gate.entered.notify_one();
    let _permit = gate.open.acquire().await.unwrap();
    "through"
}

/// A layer that writes down the `x-trace` header each invocation came
/// with, and whether a credential reached it.
#[cfg(all(feature = "http-server", feature = "http-client"))]
fn headers_seen(log: &Log) -> impl presa::server::middleware::HandlerMiddleware + Clone {
    let log = log.clone();
    from_fn(move |invocation: Invocation, next: Next| {
        let headers = invocation.headers().expect("headers over HTTP");
        log.push(format!(
            "{} x-trace:{:?} authorization:{}",
            invocation.name(),
            headers
                .get("x-trace")
                .map(|v| v.to_str().unwrap().to_owned()),
            headers.contains_key("authorization"),
        ));
        next.run(invocation)
    })
}

#[cfg(all(feature = "http-server", feature = "http-client"))]
#[tokio::test]
async fn over_http_a_layer_sees_the_headers_in_both_eras() {
    use common::legacy_http::{Legacy, serve};
    use presa::server::http::StreamableHttp;

    let log = Log::default();
    let server = server_with(|b| b.layer(headers_seen(&log)));
    let url = serve(StreamableHttp::new(server)).await;

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "new"}, "_meta": common::meta(json!({}))}});
    // A credential the server does not check: the layer must not see it.
    let extra = [("x-trace", "abc"), ("authorization", "Bearer secret")];
    let response = common::raw_http::post(&url, body, &extra).await;
    let (status, answer) = common::raw_http::status_and_body(response).await;
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["content"][0]["text"], "new");

    let legacy = Legacy::open(&url, json!({}), None).await;
    let answer = legacy
        .call(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "old"}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "old");

    assert_eq!(
        log.take(),
        [
            r#"echo x-trace:Some("abc") authorization:false"#,
            "echo x-trace:None authorization:false",
        ]
    );
}
