//! Interop with the TypeScript SDK 1.x, which speaks only the legacy,
//! initialize-based revisions, and is what 2025-11-25 hosts are built on:
//!
//! - its server, `tests/interop/ts_legacy_server.mjs`: the presa client,
//!   left to find out the era itself over stdio, probes, falls back to
//!   `initialize`, and answers the server's own `elicitation/create`
//!   through its handler;
//! - its client, `tests/interop/ts_client_outputs.mjs`, against the `notes`
//!   example: every tool is listed and every call's structured output
//!   passes the SDK's own check against the tool's `outputSchema`, whether
//!   the output is an object or not.
//!
//! The tests need `PRESA_INTEROP_NODE` (a Node 18+ binary) and
//! `PRESA_INTEROP_TS_SDK` (the `@modelcontextprotocol/sdk` package folder);
//! `scripts/interop.sh` provides both. Without them they say so and pass
//! without running, unless `CI` and `PRESA_INTEROP` are set, when they
//! fail.

#[path = "common/jobs_example.rs"]
mod jobs_example;

use presa::client::prelude::*;
use presa::client::{ClientTransport, Era, PendingInput};
use presa::wire::ElicitRequestParams;
use serde_json::{Value, json};

/// The Node binary and the SDK folder, when the environment names them.
fn interop_setup() -> Option<(String, String)> {
    let node = std::env::var("PRESA_INTEROP_NODE").ok();
    let sdk = std::env::var("PRESA_INTEROP_TS_SDK").ok();
    match (node, sdk) {
        (Some(node), Some(sdk)) => Some((node, sdk)),
        _ if std::env::var_os("CI").is_some() && std::env::var_os("PRESA_INTEROP").is_some() => {
            panic!("PRESA_INTEROP is set, but PRESA_INTEROP_NODE or PRESA_INTEROP_TS_SDK is not")
        }
        _ => {
            eprintln!("note: no TypeScript SDK to talk to; run scripts/interop.sh");
            None
        }
    }
}

#[tokio::test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
async fn the_client_falls_back_to_a_typescript_sdk_server_and_answers_its_question() {
    let Some((node, sdk)) = interop_setup() else {
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/interop/ts_legacy_server.mjs"
    );
    let mut command = tokio::process::Command::new(node);
    command.arg(script).env("MCP_TS_SDK", sdk);
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&asked);
    let client = Client::builder()
        .on_elicitation(move |input: PendingInput<ElicitRequestParams>| {
            if let ElicitRequestParams::Form { message, .. } = &input.params {
                seen.lock().unwrap().push(message.clone());
            }
            async { ElicitResult::accept(json!({"ok": true})) }
        })
        .connect(ClientTransport::spawn(command).unwrap());
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "greet");
    assert_eq!(client.era().await, Ok(Era::Legacy));
    let discovered = client.discover().await.unwrap();
    assert_eq!(discovered.server_info().unwrap().name, "ts-legacy");
    let greeted = client
        .call_tool("greet", json!({"name": "Ada"}))
        .await
        .unwrap();
    assert_eq!(greeted.text(), Some("Hello, Ada!"));
    assert_eq!(*asked.lock().unwrap(), ["Greet Ada?"]);
    client.close().await.unwrap();
}

#[tokio::test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
async fn a_typescript_sdk_client_lists_and_calls_tools_of_every_output_kind() {
    let Some((node, sdk)) = interop_setup() else {
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/interop/ts_client_outputs.mjs"
    );
    let notes = jobs_example::example_binary("notes");
    let output = tokio::process::Command::new(node)
        .arg(script)
        .arg(notes)
        .env("MCP_TS_SDK", sdk)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the SDK client failed: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["listed"],
        json!(["add_note", "fullness", "get_note", "list_ids", "summary"]),
        "every tool is listed: {report}"
    );
    assert_eq!(report["taskCreated"], true, "{report}");
    let milk = json!({"id": 1, "text": "milk", "tags": ["shop"]});
    assert_eq!(
        report["results"],
        json!({
            "add_note": {"result": 1},
            "add_note_untagged": {"result": 2},
            "list_ids": {"result": [1, 2]},
            "get_note": {"result": milk},
            "get_note_missing": {"result": null},
            "summary": {"notes": 2, "tagged": 1},
            "fullness": {"result": "some"},
            "fullness_task": {"result": "some"},
        })
    );
}
