//! Form elicitation: answers are checked against the requested schema
//! before a tool sees them, and forms can be built at run time.

use crate::common;

use common::{RawPeer, WIRES, elicitation};
use presa::prelude::*;
use presa::server::FormSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A sign-up form with constraints only the schema expresses.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct SignUp {
    #[schemars(email)]
    email: String,
    #[schemars(range(min = 18))]
    age: u8,
    #[schemars(length(max = 8))]
    nick: Option<String>,
}

/// Signs the user up.
#[tool(task = "optional")]
async fn sign_up(ctx: Context) -> Result<String, ToolError> {
    match ctx.elicit::<SignUp>("signup", "Your details?").await? {
        Elicitation::Accepted(s) => Ok(match s.nick {
            Some(nick) => format!("{} ({}, {nick})", s.email, s.age),
            None => format!("{} ({})", s.email, s.age),
        }),
        _ => Err(ToolError::new("no sign-up")),
    }
}

/// Asks for the columns the caller names, as a form built at run time.
#[tool(task = "optional")]
async fn fill_row(ctx: Context, columns: Vec<String>) -> Result<String, ToolError> {
    let properties: Map<String, Value> = columns
        .iter()
        .map(|c| (c.clone(), json!({"type": "string", "minLength": 1})))
        .collect();
    let form = FormSchema::new(json!({
        "type": "object",
        "properties": properties,
        "required": columns,
    }))
    .map_err(ToolError::internal)?;
    match ctx.elicit_form("row", "Fill in the row", &form).await? {
        Elicitation::Accepted(row) => Ok(Value::Object(row).to_string()),
        _ => Err(ToolError::new("no row")),
    }
}

fn server() -> Server {
    Server::builder("forms", "1")
        .tool(SignUpTool)
        .tool(FillRowTool)
        .tasks(TaskSettings::default())
        .build()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Calls `tool` with `answers` under `key`, carrying `state`.
async fn retry(
    peer: &mut RawPeer,
    id: i64,
    tool: &str,
    arguments: Value,
    answers: Value,
    state: &Value,
) -> Value {
    let params = json!({"name": tool, "arguments": arguments,
                        "inputResponses": answers, "requestState": state});
    peer.call(id, elicitation(), params).await
}

#[tokio::test]
async fn an_answer_that_breaks_the_schema_is_asked_again() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let first = peer
            .call(
                1,
                elicitation(),
                json!({"name": "sign_up", "arguments": {}}),
            )
            .await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let schema = &first["result"]["inputRequests"]["signup"]["params"]["requestedSchema"];
        assert_eq!(schema["properties"]["email"]["format"], "email", "{schema}");
        assert_eq!(schema["properties"]["age"]["minimum"], 18, "{schema}");
        let mut state = first["result"]["requestState"].clone();
        // Each of these deserializes as `SignUp`; only the schema refuses it.
        for (id, bad) in [
            (2, json!({"email": "not-an-email", "age": 30})),
            (3, json!({"email": "ada@example.com", "age": 17})),
            (
                4,
                json!({"email": "ada@example.com", "age": 30, "nick": "much-too-long"}),
            ),
        ] {
            let again = retry(
                &mut peer,
                id,
                "sign_up",
                json!({}),
                json!({"signup": accept(bad.clone())}),
                &state,
            )
            .await;
            assert_eq!(
                again["result"]["resultType"], "input_required",
                "{wire:?} {bad} {again}"
            );
            assert!(
                again["result"]["inputRequests"]["signup"].is_object(),
                "{again}"
            );
            state = again["result"]["requestState"].clone();
        }
        let good = json!({"signup": accept(json!({"email": "ada@example.com", "age": 36}))});
        let done = retry(&mut peer, 5, "sign_up", json!({}), good, &state).await;
        assert_eq!(
            done["result"]["content"][0]["text"], "ada@example.com (36)",
            "{done}"
        );
    }
}

#[tokio::test]
async fn inside_a_task_a_bad_answer_is_asked_again_under_a_new_key() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}});
        let created = peer
            .call(
                1,
                tasks.clone(),
                json!({"name": "sign_up", "arguments": {}}),
            )
            .await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let get = |n: i64| {
            json!({"jsonrpc": "2.0", "id": n, "method": "tasks/get",
            "params": {"taskId": id, "_meta": common::meta(tasks.clone())}})
        };
        let waiting = poll(&mut peer, &get, |t| t["status"] == "input_required").await;
        assert!(waiting["inputRequests"]["signup"].is_object(), "{waiting}");
        let update = |n: i64, key: &str, answer: Value| {
            json!({"jsonrpc": "2.0", "id": n,
            "method": "tasks/update", "params": {"taskId": id, "inputResponses": {key: answer},
            "_meta": common::meta(tasks.clone())}})
        };
        peer.send(update(
            2,
            "signup",
            accept(json!({"email": "ada@example.com", "age": 3})),
        ))
        .await;
        assert_eq!(peer.recv().await["result"]["resultType"], "complete");
        let again = poll(&mut peer, &get, |t| {
            t["inputRequests"]["signup~2"].is_object()
        })
        .await;
        assert_eq!(again["status"], "input_required", "{again}");
        peer.send(update(
            3,
            "signup~2",
            accept(json!({"email": "ada@example.com", "age": 33})),
        ))
        .await;
        assert_eq!(peer.recv().await["result"]["resultType"], "complete");
        let done = poll(&mut peer, &get, |t| t["status"] == "completed").await;
        assert_eq!(
            done["result"]["content"][0]["text"], "ada@example.com (33)",
            "{done}"
        );
    }
}

/// Polls `tasks/get` (request `get(id)`) until the task satisfies `done`.
async fn poll(
    peer: &mut RawPeer,
    get: &impl Fn(i64) -> Value,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for n in 100..10_000 {
        peer.send(get(n)).await;
        let got = peer.recv().await["result"].clone();
        if done(&got) {
            return got;
        }
    }
    panic!("the task never got there");
}

#[tokio::test]
async fn a_form_built_at_run_time_returns_the_checked_answer() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let arguments = json!({"columns": ["city", "zip"]});
        let first = peer
            .call(
                1,
                elicitation(),
                json!({"name": "fill_row", "arguments": arguments}),
            )
            .await;
        let request = &first["result"]["inputRequests"]["row"]["params"];
        assert_eq!(
            request["requestedSchema"]["required"],
            json!(["city", "zip"]),
            "{first}"
        );
        let state = first["result"]["requestState"].clone();
        let empty = json!({"row": accept(json!({"city": "Lyon", "zip": ""}))});
        let again = retry(&mut peer, 2, "fill_row", arguments.clone(), empty, &state).await;
        assert_eq!(
            again["result"]["resultType"], "input_required",
            "{wire:?} {again}"
        );
        let state = again["result"]["requestState"].clone();
        let full = json!({"row": accept(json!({"city": "Lyon", "zip": "69001"}))});
        let done = retry(&mut peer, 3, "fill_row", arguments, full, &state).await;
        let row: Value =
            serde_json::from_str(done["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(row, json!({"city": "Lyon", "zip": "69001"}), "{wire:?}");
    }
}

#[test]
fn a_run_time_form_must_be_flat() {
    let nested = json!({"type": "object", "properties": {"address": {"type": "object"}}});
    let error = FormSchema::new(nested).unwrap_err();
    assert_eq!(
        error.to_string(),
        "not a form schema: field `address`: type `object` cannot be a form field; forms are flat \
         (string, number, integer, boolean, or an array of enum values)"
    );
}

/// Sends the user to a URL the caller names.
#[tool]
async fn go_to(ctx: Context, url: String) -> Result<String, ToolError> {
    let action = ctx.elicit_url("login", "Sign in to continue", url).await?;
    Ok(format!("{action:?}"))
}

#[tokio::test]
async fn url_elicitation_sends_only_valid_urls_and_no_elicitation_id() {
    let server = Server::builder("urls", "1").tool(GoToTool).build();
    let url_mode = json!({"elicitation": {"url": {}}});
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let asked = peer
            .call(
                1,
                url_mode.clone(),
                json!({"name": "go_to", "arguments": {"url": "https://example.com/login"}}),
            )
            .await;
        assert_eq!(
            asked["result"]["inputRequests"]["login"],
            json!({"method": "elicitation/create", "params": {
                "mode": "url", "message": "Sign in to continue", "url": "https://example.com/login"
            }}),
            "{wire:?}"
        );
        // A URL that is not one is the tool's bug: the call fails without
        // sending it, and says nothing of it to the client.
        let refused = peer
            .call(
                2,
                url_mode.clone(),
                json!({"name": "go_to", "arguments": {"url": "example.com/login"}}),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32603, "{wire:?} {refused}");
        assert_eq!(refused["error"]["message"], "Internal error");
    }
}
