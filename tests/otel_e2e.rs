//! Telemetry end to end, against real OpenTelemetry backends: run by
//! `scripts/otel_e2e.sh`, which starts them (`scripts/otel/backends.sh`)
//! and sets the standard `OTEL_EXPORTER_OTLP_*` variables to them.
//!
//! 1. A presa client, exporting its own spans, calls the `jobs` example
//!    (built with `otel`) over HTTP. The call becomes a task, which parks
//!    on a question, is answered with `tasks/update`, and completes. The
//!    traces backend must then hold one trace: the client's span, the
//!    server's request span as its child, and the task's run and the
//!    update linked to the request that created the task.
//! 2. The TypeScript SDK calls `build` with a `traceparent` in `_meta`:
//!    the server's span must continue that trace.
//! 3. Once `jobs` exits (flushing its metrics), the metrics backend must
//!    hold the counts of what the test did.
//!
//! Nothing waits on time: each check polls the backend, bounded by
//! [`PATIENCE`], until what it expects is there.
#![cfg(unix)]

#[path = "common/process_start.rs"]
mod process_start;

use std::collections::HashMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use opentelemetry::trace::TraceContextExt;
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientTransport};
use presa::telemetry::OtlpExport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

/// How long any one check waits for the backends to hold what it expects.
const PATIENCE: Duration = Duration::from_secs(60);

/// A variable the script sets; the test fails without it.
fn setting(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run this test with scripts/otel_e2e.sh"))
}

/// The JSON lines `query.py ARGS` prints.
async fn query(args: &[&str]) -> Vec<Value> {
    let output = Command::new("python3")
        .arg(setting("PRESA_OTEL_QUERY"))
        .args(args)
        .output()
        .await
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "query.py {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Polls `query.py ARGS` until `holds` accepts what it prints.
async fn until(args: &[&str], what: &str, holds: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let rows = query(args).await;
        if holds(&rows) {
            return rows;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the backend never held {what}; it holds: {rows:#?}"
        );
        tokio::task::yield_now().await;
    }
}

/// The spans named `name` among `spans`, with `attribute` = `value` when
/// given.
fn spans<'a>(spans: &'a [Value], name: &str, attribute: Option<(&str, &str)>) -> Vec<&'a Value> {
    spans
        .iter()
        .filter(|span| span["name"] == name)
        .filter(|span| attribute.is_none_or(|(key, value)| span["attributes"][key] == value))
        .collect()
}

/// Whether `span` links to the span `span_id` of `trace_id`.
fn links_to(span: &Value, trace_id: &str, span_id: &str) -> bool {
    span["links"].as_array().into_iter().flatten().any(|link| {
        link["trace_id"].as_str() == Some(trace_id) && link["span_id"].as_str() == Some(span_id)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traces_and_metrics_reach_a_real_backend() {
    // The jobs server, exporting as the environment says.
    let mut jobs = Command::new(setting("PRESA_OTEL_JOBS"));
    jobs.args(["http", "127.0.0.1:0"])
        .env("OTEL_SERVICE_NAME", "jobs-e2e")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut jobs = process_start::started("jobs", || jobs.spawn());
    let mut stderr = BufReader::new(jobs.stderr.take().unwrap()).lines();
    let first = tokio::time::timeout(PATIENCE, stderr.next_line())
        .await
        .expect("jobs says where it serves")
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("serving the jobs server at ")
        .unwrap_or_else(|| panic!("jobs' first line: {first}"))
        .to_owned();
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });

    // This process exports too, as the agent a user runs.
    let export = OtlpExport::from_env("otel-e2e-agent")
        .unwrap()
        .expect("the script sets an OTLP endpoint");
    let layer = export.tracing_layer().expect("traces are exported");
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();

    // 1. A call that becomes a task, parks on a question, and is answered.
    let client = Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(ClientTransport::http(&url).unwrap());
    let agent = tracing::info_span!("e2e.agent");
    let agent_context = agent.context().span().span_context().clone();
    let (task, result) = async {
        let outcome = client
            .call_tool("build", json!({"target": "e2e"}))
            .await
            .unwrap();
        let task = outcome.task().expect("a task").id().to_owned();
        let result = client.await_task(&task, AwaitOptions::default()).await;
        (task, result)
    }
    .instrument(agent)
    .await;
    assert!(result.unwrap().text().unwrap().contains("e2e"));
    export.shutdown().unwrap();

    // 2. The TypeScript SDK, continuing a trace of its own.
    let ts_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let ts_parent = "00f067aa0ba902b7";
    let traceparent = format!("00-{ts_trace}-{ts_parent}-01");
    let node = Command::new(setting("PRESA_INTEROP_NODE"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/interop/ts_traced.mjs"
        ))
        .args([url.as_str(), traceparent.as_str()])
        .env("MCP_TS_SDK", setting("PRESA_INTEROP_TS_SDK"))
        .output();
    let node = tokio::time::timeout(PATIENCE, node).await.unwrap().unwrap();
    assert!(
        node.status.success(),
        "ts_traced.mjs: {}",
        String::from_utf8_lossy(&node.stderr)
    );
    let printed: Value = serde_json::from_slice(&node.stdout).unwrap();
    assert!(
        printed["text"].as_str().unwrap().contains("traced"),
        "{printed}"
    );

    // jobs flushes its spans and metrics as it exits.
    let pid = nix::unistd::Pid::from_raw(jobs.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let exited = tokio::time::timeout(PATIENCE, jobs.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(exited.success(), "jobs exited with {exited}");

    // One trace: the agent's span, the server's request as its child, and
    // the task's run and its update linked to that request.
    let trace = format!("{:032x}", agent_context.trace_id());
    let agent_id = format!("{:016x}", agent_context.span_id());
    let spans_of_trace = until(&["spans", &trace], "the task's trace", |rows| {
        !spans(rows, "mcp.task", None).is_empty()
            && !spans(rows, "mcp.request", Some(("method", "tasks/update"))).is_empty()
            && !spans(rows, "mcp.request", Some(("method", "tools/call"))).is_empty()
            && !spans(rows, "e2e.agent", None).is_empty()
    })
    .await;
    let created = spans(
        &spans_of_trace,
        "mcp.request",
        Some(("method", "tools/call")),
    );
    assert_eq!(created.len(), 1, "{spans_of_trace:#?}");
    let created = created[0];
    assert_eq!(
        created["parent_span_id"], agent_id,
        "the request continues the agent's span"
    );
    assert_eq!(created["service"], "jobs-e2e");
    assert_eq!(created["attributes"]["task"], task);
    let created_id = created["span_id"].as_str().unwrap();
    for run in spans(&spans_of_trace, "mcp.task", None) {
        assert_eq!(run["attributes"]["task"], task);
        assert!(
            links_to(run, &trace, created_id),
            "the run links to its request: {run}"
        );
    }
    for update in spans(
        &spans_of_trace,
        "mcp.request",
        Some(("method", "tasks/update")),
    ) {
        assert!(
            links_to(update, &trace, created_id),
            "the update links to the request: {update}"
        );
    }

    // The TypeScript SDK's trace, continued.
    let ts_spans = until(&["spans", ts_trace], "the SDK's trace", |rows| {
        !spans(rows, "mcp.request", Some(("method", "tools/call"))).is_empty()
    })
    .await;
    let continued = spans(&ts_spans, "mcp.request", Some(("method", "tools/call")));
    assert_eq!(continued[0]["parent_span_id"], ts_parent);
    assert_eq!(continued[0]["attributes"]["era"], "2025-11-25");

    // 3. The metrics of what happened: two calls of `build`, one a task
    // that asked once and completed, the other answered in its request.
    let is_jobs = |row: &Value| row["attributes"]["service.name"] == "jobs-e2e";
    let metric = |rows: &[Value], name: &str, attributes: &[(&str, &str)]| -> Option<f64> {
        rows.iter()
            .filter(|row| row["name"] == name && is_jobs(row))
            .find(|row| {
                attributes
                    .iter()
                    .all(|(key, value)| row["attributes"][key] == *value)
            })
            .and_then(|row| row["value"].as_f64().or_else(|| row["count"].as_f64()))
    };
    let expected: HashMap<(&str, Vec<(&str, &str)>), f64> = HashMap::from([
        (
            (
                "presa.server.requests",
                vec![("mcp.method.name", "tools/call"), ("presa.outcome", "task")],
            ),
            1.0,
        ),
        (
            (
                "presa.server.requests",
                vec![("mcp.method.name", "tools/call"), ("presa.outcome", "ok")],
            ),
            1.0,
        ),
        (
            (
                "mcp.server.operation.duration",
                vec![
                    ("mcp.method.name", "tools/call"),
                    ("gen_ai.tool.name", "build"),
                    ("mcp.protocol.version", presa::wire::PROTOCOL_VERSION),
                ],
            ),
            1.0,
        ),
        (
            (
                "presa.tasks.status_changes",
                vec![("presa.task.status", "input_required")],
            ),
            1.0,
        ),
        (
            (
                "presa.tasks.status_changes",
                vec![("presa.task.status", "completed")],
            ),
            1.0,
        ),
        (("presa.tasks.parked", vec![]), 0.0),
    ]);
    until(&["metrics"], "the metrics of the run", |rows| {
        expected.iter().all(|((name, attributes), value)| {
            metric(rows, name, attributes).is_some_and(|v| v >= *value)
        })
    })
    .await;
    let rows = query(&["metrics"]).await;
    for ((name, attributes), value) in &expected {
        assert_eq!(
            metric(&rows, name, attributes),
            Some(*value),
            "{name} {attributes:?}"
        );
    }
}
