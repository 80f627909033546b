//! The presa client against presa's own dual-era server, in each era, over
//! every wire: the same calls give the same results whether the client
//! probes (and stays modern) or is forced to open a legacy session, where
//! the server's questions travel as requests of its own and tasks are
//! 2025-11-25 tasks.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

use std::sync::{Arc, Mutex};

use common::{WIRES, Wire, fixture};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientBuilder, ClientTransport, Era};
use presa::prelude::*;
use presa::server::http::StreamableHttp;
use presa::wire::{CreateMessageResult, Role, Root, SamplingContent};
use serde_json::json;

/// Every way a test reaches the server: the two frame wires, and HTTP.
#[derive(Debug, Clone, Copy)]
enum Route {
    Frames(Wire),
    Http,
}

const ROUTES: [Route; 3] = [
    Route::Frames(WIRES[0]),
    Route::Frames(WIRES[1]),
    Route::Http,
];

async fn connect(builder: ClientBuilder, server: &Server, route: Route) -> Client {
    match route {
        Route::Frames(wire) => common::client(builder, server, wire),
        Route::Http => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            tokio::spawn(StreamableHttp::new(server.clone()).serve_on(listener));
            let url = format!("http://{address}/mcp");
            builder.connect(ClientTransport::http(&url).unwrap())
        }
    }
}

/// A client that confirms, answers as a model, and has one root; the keys
/// its elicitation handler saw.
fn answering(seen: Arc<Mutex<Vec<String>>>) -> ClientBuilder {
    Client::builder()
        .on_elicitation(move |input| {
            seen.lock().unwrap().push(input.key);
            async { ElicitResult::accept(json!({"ok": true})) }
        })
        .on_sampling(|_| async {
            CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContent::One(presa::wire::Content::text("Paris")),
                model: "m".into(),
                stop_reason: None,
            }
        })
        .on_roots(|_| async {
            vec![Root {
                uri: "file:///work".into(),
                name: None,
            }]
        })
}

#[tokio::test]
async fn the_same_calls_give_the_same_results_in_either_era() {
    for route in ROUTES {
        for era in [None, Some(Era::Legacy)] {
            let f = fixture();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let mut builder = answering(Arc::clone(&seen));
            if let Some(era) = era {
                builder = builder.force_era(era);
            }
            let client = connect(builder, &f.server, route).await;
            let label = format!("{route:?}, {era:?}");
            let built = client.call_tool("build", json!({"target": "docs"})).await;
            assert_eq!(built.unwrap().text(), Some("built docs"), "{label}");
            let answer = client
                .call_tool("ask_model", json!({"question": "Capital?"}))
                .await;
            assert_eq!(answer.unwrap().text(), Some("Paris"), "{label}");
            let roots = client.call_tool("roots", json!({})).await;
            assert_eq!(roots.unwrap().text(), Some("file:///work"), "{label}");
            let expected = era.unwrap_or(Era::Modern);
            assert_eq!(client.era().await, Ok(expected), "{label}");
            let keys = seen.lock().unwrap().clone();
            match expected {
                Era::Modern => assert_eq!(keys, ["confirm"], "{label}"),
                Era::Legacy => assert_ne!(keys, ["confirm"], "a request id, not a key: {label}"),
            }
            client.close().await.unwrap();
        }
    }
}

#[tokio::test]
async fn a_task_is_awaited_through_its_question_in_either_era() {
    for route in ROUTES {
        for era in [Era::Modern, Era::Legacy] {
            let f = fixture();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let builder = answering(seen).tasks(true).force_era(era);
            let client = connect(builder, &f.server, route).await;
            let label = format!("{route:?}, {era:?}");
            let created = client
                .call_tool("build", json!({"target": "all"}))
                .await
                .unwrap();
            let task = created.task().unwrap_or_else(|| panic!("a task: {label}"));
            let result = client.await_task(task, AwaitOptions::default()).await;
            assert_eq!(result.unwrap().text(), Some("built all"), "{label}");
            let discovered = client.discover().await.unwrap();
            let extensions = discovered.capabilities.extensions.unwrap_or_default();
            assert!(
                extensions.contains_key("io.modelcontextprotocol/tasks"),
                "{label}: {extensions:?}"
            );
            client.close().await.unwrap();
        }
    }
}

#[tokio::test]
async fn listen_hears_a_tool_list_change_in_either_era() {
    for route in ROUTES {
        for era in [Era::Modern, Era::Legacy] {
            let f = fixture();
            let builder = Client::builder().force_era(era);
            let client = connect(builder, &f.server, route).await;
            let label = format!("{route:?}, {era:?}");
            let filter = presa::wire::SubscriptionFilter::new().tools_list_changed();
            let mut changes = client.listen(filter).await.unwrap();
            assert_eq!(
                changes.acknowledged().tools_list_changed,
                Some(true),
                "{label}"
            );
            assert!(f.server.remove_tool("explode"), "{label}");
            let event = changes.next().await;
            assert_eq!(
                event,
                Some(presa::client::SubscriptionEvent::ToolsListChanged),
                "{label}"
            );
            drop(changes);
            client.close().await.unwrap();
        }
    }
}
