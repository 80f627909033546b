//! Streamable HTTP: the seed's flows through the presa client, and the
//! transport's own rules (headers, security, cancellation) with raw HTTP.
#![cfg(all(feature = "http-server", feature = "http-client"))]

mod common;

use presa::client::ClientTransport;
use presa::prelude::*;
use presa::server::http::StreamableHttp;
use serde_json::json;

/// Serves `server` on a free loopback port; returns the endpoint's URL.
async fn serve(http: StreamableHttp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(http.serve_on(listener));
    format!("http://{address}/mcp")
}

fn confirming() -> presa::client::ClientBuilder {
    Client::builder().on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
}

#[tokio::test]
async fn the_seed_examples_over_http() {
    let f = common::fixture();
    let url = serve(StreamableHttp::new(f.server.clone())).await;

    let plain = confirming().connect(ClientTransport::http(&url).unwrap());
    let result = plain
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built docs"));

    let tasks = confirming()
        .tasks(true)
        .connect(ClientTransport::http(&url).unwrap());
    let created = tasks
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    let task = created.task().expect("a task");
    let result = tasks
        .await_task(task, AwaitOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built all"));

    let created = tasks
        .call_tool("build", json!({"target": "web"}))
        .await
        .unwrap();
    let result = tasks
        .await_task(
            created.task().unwrap(),
            AwaitOptions::default().listen(true),
        )
        .await
        .unwrap();
    assert_eq!(result.text(), Some("built web"));
}
