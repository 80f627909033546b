//! The metrics of `presa::telemetry::metrics`, read back from an
//! in-memory exporter after a run whose every request the test knows,
//! token validations among them (an OAuth resource server on loopback,
//! with the authorization server of `common/oauth.rs`).
//!
//! The instruments bind to the global meter provider once, so this file
//! holds one test, and the provider is installed before the server
//! answers anything.

mod common;
#[path = "common/oauth.rs"]
mod issuer;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientError, ClientTransport};
use presa::prelude::*;
use presa::server::TaskSettings;
use serde_json::json;
use tokio::sync::oneshot;

use issuer::{AuthServer, TestKey};
use jsonwebtoken::Algorithm;
use presa::server::http::{OAuth, StreamableHttp};

/// The confirmation `build` asks for; any answer will do.
#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
#[allow(dead_code)]
struct Confirm {
    ok: bool,
}

/// Asks before it builds, as a task.
#[tool(task = "required")]
async fn build(ctx: Context) -> Result<&'static str, ToolError> {
    ctx.elicit::<Confirm>("confirm", "Build?").await?;
    Ok("built")
}

/// Answers at once, as a task.
#[tool(task = "required")]
async fn quick() -> &'static str {
    "quick"
}

/// Says hello.
#[tool]
async fn hello() -> &'static str {
    "hello"
}

/// Fails as a tool does.
#[tool]
async fn refuse() -> Result<&'static str, ToolError> {
    Err(ToolError::new("no"))
}

/// The points of every metric the exporter holds, by metric name and
/// attributes (sorted `key=value` pairs): a sum's value, a histogram's
/// count.
fn points(metrics: &[ResourceMetrics]) -> BTreeMap<(String, String), i64> {
    let mut points = BTreeMap::new();
    let key = |attributes: &mut dyn Iterator<Item = &KeyValue>| {
        let mut pairs: Vec<String> = attributes
            .map(|kv| format!("{}={}", kv.key, kv.value))
            .collect();
        pairs.sort();
        pairs.join(",")
    };
    // The last export holds the cumulative totals.
    let Some(last) = metrics.last() else {
        return points;
    };
    for scope in last.scope_metrics() {
        for metric in scope.metrics() {
            let name = metric.name().to_owned();
            match metric.data() {
                AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                    for point in sum.data_points() {
                        points.insert(
                            (name.clone(), key(&mut point.attributes())),
                            point.value() as i64,
                        );
                    }
                }
                AggregatedMetrics::I64(MetricData::Sum(sum)) => {
                    for point in sum.data_points() {
                        points.insert((name.clone(), key(&mut point.attributes())), point.value());
                    }
                }
                AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                    for point in histogram.data_points() {
                        points.insert(
                            (name.clone(), key(&mut point.attributes())),
                            point.count() as i64,
                        );
                    }
                }
                _ => {}
            }
        }
    }
    points
}

/// What the exporter holds now.
fn read(
    provider: &SdkMeterProvider,
    exporter: &InMemoryMetricExporter,
) -> BTreeMap<(String, String), i64> {
    provider.force_flush().unwrap();
    points(&exporter.get_finished_metrics().unwrap())
}

fn point(points: &BTreeMap<(String, String), i64>, name: &str, attributes: &str) -> i64 {
    points
        .get(&(name.to_owned(), attributes.to_owned()))
        .copied()
        .unwrap_or_else(|| panic!("no point {name} {{{attributes}}} in {points:#?}"))
}

#[tokio::test]
async fn the_metrics_count_what_the_server_did() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    opentelemetry::global::set_meter_provider(provider.clone());

    let server = Server::builder("measured", "1")
        .tool(BuildTool)
        .tool(QuickTool)
        .tool(HelloTool)
        .tool(RefuseTool)
        .tasks(TaskSettings::default().max_tasks(1))
        .build();
    // The test answers the one question when it has counted the parked
    // task.
    let (release, released) = oneshot::channel::<()>();
    let released = Arc::new(Mutex::new(Some(released)));
    let (asked, was_asked) = oneshot::channel::<()>();
    let asked = Arc::new(Mutex::new(Some(asked)));
    let client = Client::builder()
        .tasks(true)
        .on_elicitation(move |_| {
            let released = released.lock().unwrap().take();
            if let Some(asked) = asked.lock().unwrap().take() {
                let _ = asked.send(());
            }
            async move {
                if let Some(released) = released {
                    let _ = released.await;
                }
                ElicitResult::accept(json!({"ok": true}))
            }
        })
        .connect(ClientTransport::from(presa::server::in_process(
            &server,
            Caller::anonymous(),
        )));

    assert_eq!(
        client.call_tool("hello", json!({})).await.unwrap().text(),
        Some("hello")
    );
    let refused = client
        .call_tool("refuse", json!({}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert!(refused.is_error());
    let outcome = client.call_tool("build", json!({})).await.unwrap();
    let task = outcome.task().expect("a task").id().to_owned();
    let waiting = {
        let client = client.clone();
        tokio::spawn(async move { client.await_task(&task, AwaitOptions::default()).await })
    };
    was_asked.await.unwrap();

    // The one task slot is taken: a second task is refused by the limit.
    match client.call_tool("quick", json!({})).await {
        Err(ClientError::Rpc(error)) => assert_eq!(error.code, -31000, "{error:?}"),
        other => panic!("expected the task limit, got {other:?}"),
    }
    let during = read(&provider, &exporter);
    assert_eq!(point(&during, "presa.tasks.parked", ""), 1);

    release.send(()).unwrap();
    assert_eq!(waiting.await.unwrap().unwrap().text(), Some("built"));
    let after = read(&provider, &exporter);

    let requests = "presa.server.requests";
    assert_eq!(
        point(
            &after,
            requests,
            "mcp.method.name=tools/call,presa.outcome=ok"
        ),
        1
    );
    assert_eq!(
        point(
            &after,
            requests,
            "mcp.method.name=tools/call,presa.outcome=tool_error"
        ),
        1
    );
    assert_eq!(
        point(
            &after,
            requests,
            "mcp.method.name=tools/call,presa.outcome=task"
        ),
        1
    );
    assert_eq!(
        point(
            &after,
            requests,
            "mcp.method.name=tools/call,presa.outcome=error"
        ),
        1
    );
    assert!(
        point(
            &after,
            requests,
            "mcp.method.name=tasks/update,presa.outcome=ok"
        ) >= 1
    );

    let duration = "mcp.server.operation.duration";
    let version = presa::wire::PROTOCOL_VERSION;
    assert_eq!(
        point(
            &after,
            duration,
            &format!(
                "gen_ai.tool.name=hello,mcp.method.name=tools/call,mcp.protocol.version={version}"
            )
        ),
        1
    );
    assert_eq!(
        point(
            &after,
            duration,
            &format!(
                "error.type=tool_error,gen_ai.tool.name=refuse,mcp.method.name=tools/call,mcp.protocol.version={version}"
            )
        ),
        1
    );
    assert_eq!(
        point(
            &after,
            duration,
            &format!(
                "error.type=-31000,gen_ai.tool.name=quick,mcp.method.name=tools/call,mcp.protocol.version={version}"
            )
        ),
        1
    );

    let status = "presa.tasks.status_changes";
    assert_eq!(
        point(&after, status, "presa.task.status=working"),
        2,
        "created, then answered"
    );
    assert_eq!(point(&after, status, "presa.task.status=input_required"), 1);
    assert_eq!(point(&after, status, "presa.task.status=completed"), 1);
    assert_eq!(point(&after, "presa.tasks.parked", ""), 0);
    assert_eq!(
        point(&after, "presa.server.refusals", "presa.limit=tasks"),
        1
    );

    // Two requests to an OAuth resource server: one token valid, one not.
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(authorization.issuer.clone())
        .resource(url.clone())
        .build()
        .unwrap();
    let guarded = Server::builder("guarded", "1").tool(HelloTool).build();
    tokio::spawn(StreamableHttp::new(guarded).oauth(oauth).serve_on(listener));
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "hello", "arguments": {}, "_meta": common::meta(json!({}))}});
    let valid = key.sign(&authorization.claims(&url, "alice", ""));
    let forged = TestKey::other_rsa("k1").sign(&authorization.claims(&url, "mallory", ""));
    for (token, status) in [(valid, 200), (forged, 401)] {
        let bearer = format!("Bearer {token}");
        let response =
            common::raw_http::post(&url, call.clone(), &[("authorization", &bearer)]).await;
        assert_eq!(response.status().as_u16(), status);
    }
    let after = read(&provider, &exporter);
    let validations = "presa.oauth.token_validations";
    assert_eq!(point(&after, validations, "presa.outcome=valid"), 1);
    assert_eq!(point(&after, validations, "presa.outcome=invalid_token"), 1);

    let store = "presa.task_store.operation.duration";
    assert_eq!(
        point(
            &after,
            store,
            "presa.outcome=ok,presa.store.operation=create"
        ),
        1
    );
    assert!(
        point(
            &after,
            store,
            "presa.outcome=ok,presa.store.operation=apply"
        ) >= 3
    );
}
