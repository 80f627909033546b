//! Trace context (the rules of `presa::telemetry`): a request's span
//! continues the trace its `_meta` names, or a legacy HTTP request's
//! headers; presa's client writes the context of its current span; and a
//! task's later spans (its run, `tasks/update`, `tasks/cancel`, a run that
//! resumes) link to the request that created it.
//!
//! Spans go through `tracing-opentelemetry` to an in-memory exporter, on
//! the test's own thread (a current-thread runtime), so tests do not see
//! each other's spans.

mod common;

use std::collections::HashMap;

use common::legacy_http::{Events, Legacy, send, serve};
use common::{RawPeer, Wire};
use opentelemetry::trace::{SpanId, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientTransport};
use presa::prelude::*;
use presa::server::http::StreamableHttp;
use serde_json::json;
use tracing::Instrument;
use tracing::subscriber::DefaultGuard;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

/// A trace id and span id a caller of the server would send.
const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT: &str = "b7ad6b7169203331";

/// Spans of this thread, exported when they end.
struct Traced {
    exporter: InMemorySpanExporter,
    _provider: SdkTracerProvider,
    _guard: DefaultGuard,
}

impl Traced {
    fn new() -> Self {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        Traced {
            exporter,
            _provider: provider,
            _guard: guard,
        }
    }

    /// The spans that ended, named `name`.
    fn named(&self, name: &str) -> Vec<SpanData> {
        let spans = self.exporter.get_finished_spans().unwrap();
        spans.into_iter().filter(|span| span.name == name).collect()
    }
}

/// A span's attributes, as text.
fn attributes(span: &SpanData) -> HashMap<String, String> {
    span.attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

/// The `mcp.request` span of method `method`; the one there must be.
fn request_span(traced: &Traced, method: &str) -> SpanData {
    let mut spans: Vec<_> = traced
        .named("mcp.request")
        .into_iter()
        .filter(|span| attributes(span).get("method").map(String::as_str) == Some(method))
        .collect();
    assert_eq!(spans.len(), 1, "one {method} span");
    spans.remove(0)
}

/// Asks before it builds; a task when the client can follow one.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    #[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
    struct Confirm {
        ok: bool,
    }
    let confirmed = ctx.elicit::<Confirm>("confirm", "Build?").await?;
    Ok(match confirmed.accepted() {
        Some(Confirm { ok: true }) => format!("built {target}"),
        _ => "not built".to_owned(),
    })
}

/// Says hello.
#[tool]
async fn hello() -> &'static str {
    "hello"
}

/// Asks before it deploys; its task sleeps while it waits, and runs
/// again from the start when answered.
#[tool(task = "required", resumable)]
async fn deploy(ctx: Context) -> Result<&'static str, ToolError> {
    #[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
    struct Confirm {
        ok: bool,
    }
    let confirmed = ctx.elicit::<Confirm>("confirm", "Deploy?").await?;
    Ok(if confirmed.accepted().is_some_and(|c| c.ok) {
        "deployed"
    } else {
        "kept"
    })
}

fn server() -> Server {
    Server::builder("traced", "1")
        .tool(BuildTool)
        .tool(HelloTool)
        .tool(DeployTool)
        .tasks(presa::server::TaskSettings::default())
        .build()
}

#[tokio::test]
async fn a_request_continues_the_trace_its_meta_names() {
    let traced = Traced::new();
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let mut meta = common::meta(json!({}));
    meta["traceparent"] = json!(format!("00-{TRACE}-{PARENT}-01"));
    meta["baggage"] = json!("tenant=acme");
    let response = peer
        .request(
            1,
            "tools/call",
            json!({"name": "hello", "arguments": {}, "_meta": meta}),
        )
        .await;
    assert_eq!(response["result"]["content"][0]["text"], "hello");
    drop(peer);
    let span = request_span(&traced, "tools/call");
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert_eq!(attributes(&span)["tool"], "hello");
}

#[tokio::test]
async fn a_request_without_trace_context_starts_its_own_trace() {
    let traced = Traced::new();
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let response = peer
        .call(1, json!({}), json!({"name": "hello", "arguments": {}}))
        .await;
    assert_eq!(response["result"]["content"][0]["text"], "hello");
    let span = request_span(&traced, "tools/call");
    assert_ne!(span.span_context.trace_id(), TraceId::INVALID);
    assert_eq!(span.parent_span_id, SpanId::INVALID);
}

#[tokio::test]
async fn the_client_sends_the_context_of_its_current_span() {
    let traced = Traced::new();
    let server = server();
    let client = Client::builder().connect(ClientTransport::from(presa::server::in_process(
        &server,
        Caller::anonymous(),
    )));
    let agent = tracing::info_span!("agent");
    let agent_context = agent.context().span().span_context().clone();
    let outcome = client
        .call_tool("hello", json!({}))
        .instrument(agent)
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("hello"));
    let span = request_span(&traced, "tools/call");
    assert_eq!(span.span_context.trace_id(), agent_context.trace_id());
    assert_eq!(span.parent_span_id, agent_context.span_id());
}

#[tokio::test]
async fn a_tasks_spans_link_to_the_request_that_created_it() {
    let traced = Traced::new();
    let server = server();
    let client = Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(ClientTransport::from(presa::server::in_process(
            &server,
            Caller::anonymous(),
        )));
    let agent = tracing::info_span!("agent");
    let (outcome, result) = async {
        let outcome = client
            .call_tool("build", json!({"target": "app"}))
            .await
            .unwrap();
        let task = outcome.task().expect("a task").id().to_owned();
        let result = client.await_task(&task, AwaitOptions::default()).await;
        (outcome, result)
    }
    .instrument(agent)
    .await;
    assert_eq!(result.unwrap().text(), Some("built app"));
    let task_id = outcome.task().unwrap().id().to_owned();

    let created = request_span(&traced, "tools/call");
    let update = request_span(&traced, "tasks/update");
    let runs = traced.named("mcp.task");
    assert_eq!(runs.len(), 1, "one run");
    let run = &runs[0];
    assert_eq!(attributes(run)["task"], task_id);
    for (what, span) in [("the run", run), ("tasks/update", &update)] {
        let linked: Vec<_> = span.links.iter().map(|link| &link.span_context).collect();
        assert!(
            linked.iter().any(|context| {
                context.trace_id() == created.span_context.trace_id()
                    && context.span_id() == created.span_context.span_id()
            }),
            "{what} links to the request that created the task: {linked:?}"
        );
    }
}

#[tokio::test]
async fn a_legacy_session_over_http_takes_trace_context_from_its_headers() {
    let traced = Traced::new();
    let url = serve(StreamableHttp::new(server())).await;
    let legacy = Legacy::open(&url, json!({}), None).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "hello", "arguments": {}}});
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let headers = [
        ("mcp-session-id", legacy.session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("traceparent", traceparent.as_str()),
    ];
    let response = send(&url, reqwest::Method::POST, Some(call), &headers, None).await;
    assert_eq!(response.status().as_u16(), 200);
    let answer = Events::new(response, Some("tools/call".to_owned()))
        .message()
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "hello", "{answer}");
    let span = request_span(&traced, "tools/call");
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT).unwrap());
}

#[tokio::test]
async fn a_cancel_links_to_the_request_that_created_the_task() {
    let traced = Traced::new();
    let server = server();
    // Nobody answers: the task waits until it is cancelled.
    let client = Client::builder()
        .tasks(true)
        .on_elicitation(|_| std::future::pending())
        .connect(ClientTransport::from(presa::server::in_process(
            &server,
            Caller::anonymous(),
        )));
    let outcome = client
        .call_tool("build", json!({"target": "app"}))
        .await
        .unwrap();
    let task = outcome.task().expect("a task").id().to_owned();
    client.cancel_task(&task).await.unwrap();
    drop(client);
    // The cancelled run ends, and its span with it, on its own task.
    while traced.named("mcp.task").is_empty() {
        tokio::task::yield_now().await;
    }
    let created = request_span(&traced, "tools/call");
    let cancel = request_span(&traced, "tasks/cancel");
    assert!(
        cancel.links.iter().any(|link| {
            link.span_context.span_id() == created.span_context.span_id()
                && link.span_context.trace_id() == created.span_context.trace_id()
        }),
        "tasks/cancel links to the request that created the task"
    );
}

#[tokio::test]
async fn a_task_that_resumes_links_its_new_run_to_the_request_that_created_it() {
    let traced = Traced::new();
    let server = server();
    let client = Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(ClientTransport::from(presa::server::in_process(
            &server,
            Caller::anonymous(),
        )));
    let outcome = client.call_tool("deploy", json!({})).await.unwrap();
    // The client can answer, but the test answers by hand.
    let task = outcome.task().expect("a task").id().to_owned();
    // The parked run is dropped, and its span ends, before the answer.
    while traced.named("mcp.task").is_empty() {
        tokio::task::yield_now().await;
    }
    let answer = presa::wire::InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    client
        .update_task(&task, [("confirm".to_owned(), answer)].into())
        .await
        .unwrap();
    let result = client
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("deployed"));
    drop(client);
    let created = request_span(&traced, "tools/call");
    let runs = traced.named("mcp.task");
    assert_eq!(runs.len(), 2, "the first run, and the one that resumed");
    for run in &runs {
        assert!(
            run.links.iter().any(|link| {
                link.span_context.span_id() == created.span_context.span_id()
                    && link.span_context.trace_id() == created.span_context.trace_id()
            }),
            "every run links to the request that created the task"
        );
    }
}
