//! A build without the `json-schema` feature (`cargo test -p presa-mcp
//! --no-default-features --test without_json_schema`): a `#[tool]`'s
//! arguments are still checked, by their types, and every tool whose
//! schema only a full validator could check is refused at registration,
//! never served unchecked. In the default build this file is empty.
#![cfg(not(feature = "json-schema"))]

use presa::client::{CallOutcome, Client};
use presa::prelude::*;
use presa::server::{RegistrationError, ToolHandler, ToolResult, in_process};
use presa::wire::Tool;
use serde_json::{Map, Value, json};

/// Repeats a word.
#[tool]
async fn repeat(word: String, times: u8, loud: Option<bool>) -> String {
    let word = if loud == Some(true) {
        word.to_uppercase()
    } else {
        word
    };
    vec![word; times.into()].join(" ")
}

/// A name of at most eight characters: a limit only the schema says.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Short {
    #[schemars(length(max = 8))]
    text: String,
}

/// Greets someone by a short name.
#[tool]
async fn greet(name: Short) -> String {
    format!("hello {}", name.text)
}

/// A hand-written tool: its schema is all presa knows of its arguments.
struct Lookup {
    input: Value,
    output: Option<Value>,
}

#[async_trait::async_trait]
impl ToolHandler for Lookup {
    fn definition(&self) -> Tool {
        Tool {
            output_schema: self.output.clone(),
            ..Tool::new("lookup", self.input.clone())
        }
    }

    async fn call(&self, _ctx: Context, _arguments: Map<String, Value>) -> ToolResult {
        Ok(CallToolResult::from_text("found"))
    }
}

async fn call(client: &Client, arguments: Value) -> CallToolResult {
    match client.call_tool("repeat", arguments).await.unwrap() {
        CallOutcome::Complete(result) => result,
        CallOutcome::Task(_) => panic!("repeat runs without a task"),
    }
}

fn text(result: &CallToolResult) -> String {
    result.text().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_macro_tools_arguments_are_checked_by_their_types() {
    let server = Server::builder("typed", "1").tool(RepeatTool).build();
    let client = Client::builder().connect(in_process(&server, Caller::anonymous()));
    let good = call(&client, json!({"word": "hi", "times": 2, "loud": null})).await;
    assert!(!good.is_error(), "{good:?}");
    assert_eq!(text(&good), "hi hi");
    for (arguments, expected) in [
        (
            json!({"times": 2}),
            "invalid arguments: `word`: missing required argument",
        ),
        (json!({"word": 3, "times": 2}), "invalid arguments: `word`:"),
        (
            json!({"word": "hi", "times": 300}),
            "invalid arguments: `times`:",
        ),
        (
            json!({"word": "hi", "times": -1}),
            "invalid arguments: `times`:",
        ),
        (
            json!({"word": "hi", "times": 1, "loud": "yes"}),
            "invalid arguments: `loud`:",
        ),
    ] {
        let refused = call(&client, arguments.clone()).await;
        assert!(refused.is_error(), "{arguments}");
        let said = text(&refused);
        assert!(said.starts_with(expected), "{arguments}: {said}");
    }
}

#[test]
fn a_schema_the_types_cannot_enforce_is_refused_at_registration() {
    let server = Server::builder("bare", "1").build();
    let error = server.add_tool(GreetTool).unwrap_err();
    assert!(
        matches!(
            error,
            RegistrationError::NeedsJsonSchema {
                schema: "inputSchema",
                ..
            }
        ),
        "{error}"
    );
    let said = error.to_string();
    assert!(
        said.starts_with(
            "tool `greet`: its inputSchema needs a JSON Schema validator (it has `maxLength` at `/"
        ),
        "{said}"
    );
    assert!(
        said.ends_with(
            "which the parameter types do not enforce), which this build leaves out; \
             enable the `json-schema` feature of presa-mcp (on by default)"
        ),
        "{said}"
    );
}

#[test]
fn a_hand_written_tool_with_a_schema_to_check_is_refused_at_registration() {
    let server = Server::builder("bare", "1").build();
    let with_parameters = Lookup {
        input: json!({"type": "object", "properties": {"key": {"type": "string"}}}),
        output: None,
    };
    let error = server.add_tool(with_parameters).unwrap_err();
    assert!(
        error.to_string().contains("`json-schema` feature"),
        "{error}"
    );
    let with_output = Lookup {
        input: json!({"type": "object"}),
        output: Some(json!({"type": "object"})),
    };
    let error = server.add_tool(with_output).unwrap_err();
    assert!(
        matches!(
            error,
            RegistrationError::NeedsJsonSchema {
                schema: "outputSchema",
                ..
            }
        ),
        "{error}"
    );
    let without_parameters = Lookup {
        input: json!({"type": "object", "additionalProperties": false}),
        output: None,
    };
    server.add_tool(without_parameters).unwrap();
}
