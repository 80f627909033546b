//! Structured output of every kind, as a legacy (2025-11-25) session sees
//! it. 2025-11-25 wants an object `outputSchema` and an object
//! `structuredContent`, and its clients drop a tool whose listing breaks
//! that; so a non-object output is wrapped, `{"result": v}`, with a schema
//! to match, while a modern client sees the output as it is. Every message
//! the legacy peer reads is checked against the 2025-11-25 schema (see
//! `common::spec`); here each result is checked against the schema its own
//! tool listed, as a client would.

use crate::common;

use common::{RawPeer, WIRES, Wire, connect, meta};
use std::sync::Arc;

use presa::prelude::*;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::{TaskChange, TaskLimits, TaskRecord, TaskStore};
use serde::Serialize;
use serde_json::{Value, json};

/// A note, the object output.
#[derive(Serialize, schemars::JsonSchema)]
struct Note {
    id: u32,
    text: String,
    tags: Option<Vec<String>>,
}

/// How busy the notebook is, the enum output.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mood {
    Calm,
    #[allow(dead_code)]
    Busy,
}

/// Text output.
#[tool]
async fn greeting() -> String {
    "hello".into()
}

/// An object.
#[tool]
async fn note() -> Json<Note> {
    Json(Note {
        id: 1,
        text: "milk".into(),
        tags: None,
    })
}

/// A number.
#[tool]
async fn count() -> Json<u32> {
    Json(7)
}

/// An array.
#[tool]
async fn ids() -> Json<Vec<u32>> {
    Json(vec![1, 2, 3])
}

/// An object or nothing.
#[tool]
async fn find(present: bool) -> Json<Option<Note>> {
    Json(present.then(|| Note {
        id: 2,
        text: "eggs".into(),
        tags: Some(vec!["shop".into()]),
    }))
}

/// An enum.
#[tool]
async fn mood() -> Json<Mood> {
    Json(Mood::Calm)
}

/// A number, as a task when asked.
#[tool(task = "optional")]
async fn tally() -> Json<u32> {
    Json(3)
}

fn server() -> Server {
    Server::builder("outputs", "1")
        .tool(GreetingTool)
        .tool(NoteTool)
        .tool(CountTool)
        .tool(IdsTool)
        .tool(FindTool)
        .tool(MoodTool)
        .tool(TallyTool)
        .tasks(TaskSettings::default())
        .build()
}

/// What a call gives a legacy peer.
enum Output {
    /// Text only.
    Text,
    /// An object, shown as it is.
    Object(Value),
    /// Any other value, shown wrapped.
    Wrapped(Value),
}

/// The calls made, and the structured output each gives.
fn calls() -> Vec<(&'static str, Value, Output)> {
    let eggs = json!({"id": 2, "text": "eggs", "tags": ["shop"]});
    let milk = json!({"id": 1, "text": "milk", "tags": null});
    vec![
        ("greeting", json!({}), Output::Text),
        ("note", json!({}), Output::Object(milk)),
        ("count", json!({}), Output::Wrapped(json!(7))),
        ("ids", json!({}), Output::Wrapped(json!([1, 2, 3]))),
        ("find", json!({"present": true}), Output::Wrapped(eggs)),
        (
            "find",
            json!({"present": false}),
            Output::Wrapped(Value::Null),
        ),
        ("mood", json!({}), Output::Wrapped(json!("calm"))),
        ("tally", json!({}), Output::Wrapped(json!(3))),
    ]
}

async fn legacy_session(server: &Server, wire: Wire) -> RawPeer {
    let channel = connect(server, Caller::anonymous(), wire);
    RawPeer::legacy(channel, "2025-11-25", json!({})).await.0
}

/// The tools a peer lists, by name.
fn by_name(listed: &Value) -> serde_json::Map<String, Value> {
    listed["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool.clone()))
        .collect()
}

/// Panics unless `value` satisfies `schema`, as a client checks a result.
fn assert_conforms(schema: &Value, value: &Value, tool: &str) {
    let validator = jsonschema::validator_for(schema).expect("the listed schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{tool}: {value} breaks {schema}: {errors:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn every_tool_is_listed_with_an_object_output_schema_wrapping_what_is_not_one() {
    let server = server();
    let mut modern = RawPeer::over(&server, Wire::InProcess);
    let modern_tools = by_name(
        &modern
            .request(1, "tools/list", json!({"_meta": meta(json!({}))}))
            .await,
    );
    for wire in WIRES {
        let mut peer = legacy_session(&server, wire).await;
        let tools = by_name(&peer.request(1, "tools/list", json!({})).await);
        assert_eq!(tools.len(), 7, "{wire:?}: every tool is listed");
        for (name, tool) in &tools {
            let modern_schema = &modern_tools[name]["outputSchema"];
            let Some(schema) = tool.get("outputSchema") else {
                assert_eq!(name, "greeting");
                continue;
            };
            assert_eq!(schema["type"], "object", "{wire:?}: {name}: {schema}");
            if modern_schema["type"] == "object" {
                assert_eq!(schema, modern_schema, "an object schema is not wrapped");
                continue;
            }
            assert_eq!(schema["required"], json!(["result"]), "{name}");
            let mut inner = modern_schema.clone();
            let defs = inner.as_object_mut().unwrap().remove("$defs");
            assert_eq!(schema["properties"]["result"], inner, "{name}");
            assert_eq!(
                schema.get("$defs"),
                defs.as_ref(),
                "{name}: definitions move up"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn each_result_carries_its_output_as_its_own_listing_describes_it() {
    let server = server();
    for wire in WIRES {
        let mut peer = legacy_session(&server, wire).await;
        let tools = by_name(&peer.request(1, "tools/list", json!({})).await);
        for (id, (name, arguments, output)) in (2..).zip(calls()) {
            let params = json!({"name": name, "arguments": arguments});
            let response = peer.request(id, "tools/call", params).await;
            let result = &response["result"];
            let (output, expected) = match output {
                Output::Text => {
                    assert_eq!(result["content"][0]["text"], "hello", "{response}");
                    assert!(result.get("structuredContent").is_none());
                    continue;
                }
                Output::Object(output) => (output.clone(), output),
                Output::Wrapped(output) => (output.clone(), json!({"result": output})),
            };
            let structured = &result["structuredContent"];
            assert_conforms(&tools[name]["outputSchema"], structured, name);
            assert_eq!(*structured, expected, "{wire:?}: {name}");
            let text = result["content"][0]["text"].as_str().unwrap();
            let carried: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                carried, output,
                "{name}: the text still carries the output itself"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_task_result_is_wrapped_as_its_tool_is() {
    let server = server();
    for wire in WIRES {
        let mut peer = legacy_session(&server, wire).await;
        let params = json!({"name": "tally", "arguments": {}, "task": {"ttl": 60000}});
        let created = peer.request(1, "tools/call", params).await;
        let task = created["result"]["task"]["taskId"]
            .as_str()
            .unwrap()
            .to_owned();
        let result = peer
            .request(2, "tasks/result", json!({"taskId": task}))
            .await;
        assert_eq!(
            result["result"]["structuredContent"],
            json!({"result": 3}),
            "{wire:?}: {result}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_modern_client_sees_the_output_as_it_is() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let tools = by_name(
            &peer
                .request(1, "tools/list", json!({"_meta": meta(json!({}))}))
                .await,
        );
        assert_eq!(tools["count"]["outputSchema"]["type"], "integer");
        assert_eq!(tools["ids"]["outputSchema"]["type"], "array");
        let called = peer
            .call(2, json!({}), json!({"name": "count", "arguments": {}}))
            .await;
        assert_eq!(called["result"]["structuredContent"], 7, "{called}");
    }
}

/// A finished task of `tool` owned by `alice`, whose result is
/// `structured`, written to `store` as a store an older presa filled would
/// hold it.
async fn finished(store: &InMemoryTaskStore, id: &str, tool: Option<&str>, structured: Value) {
    let mut record = TaskRecord::new(id.into(), Some("alice".into()), None, None);
    if let Some(tool) = tool {
        record = record.with_tool(tool);
    }
    let result = json!({"content": [{"type": "text", "text": structured.to_string()}],
                        "structuredContent": structured});
    let Value::Object(result) = result else {
        unreachable!()
    };
    TaskChange::Complete(result)
        .apply(&mut record, 1 << 20)
        .unwrap();
    let limits = TaskLimits::default()
        .max_tasks(10)
        .max_running_per_subject(10)
        .max_record_bytes(1 << 20)
        .max_store_bytes(1 << 24);
    store.create(record, &limits).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_task_whose_tool_is_unknown_is_wrapped_only_when_its_output_is_not_an_object() {
    let store = Arc::new(InMemoryTaskStore::new());
    finished(&store, "old-number", None, json!(5)).await;
    finished(&store, "old-object", None, json!({"n": 5})).await;
    finished(&store, "removed-tool", Some("gone"), json!([5])).await;
    finished(
        &store,
        "object-tool",
        Some("note"),
        json!({"id": 1, "text": "a", "tags": null}),
    )
    .await;
    let server = Server::builder("outputs", "1")
        .tool(NoteTool)
        .tasks(TaskSettings::default())
        .task_store(Arc::clone(&store))
        .build();
    let channel = connect(&server, Caller::subject("alice"), Wire::InProcess);
    let mut peer = RawPeer::legacy(channel, "2025-11-25", json!({})).await.0;
    for (id, (task, structured)) in (1..).zip([
        ("old-number", json!({"result": 5})),
        ("old-object", json!({"n": 5})),
        ("removed-tool", json!({"result": [5]})),
        ("object-tool", json!({"id": 1, "text": "a", "tags": null})),
    ]) {
        let result = peer
            .request(id, "tasks/result", json!({"taskId": task}))
            .await;
        assert_eq!(
            result["result"]["structuredContent"], structured,
            "{task}: {result}"
        );
    }
}
