//! Interop with a server of another implementation: the TypeScript SDK
//! 1.x, which speaks only the legacy, initialize-based revisions. The
//! presa client, left to find out the era itself over stdio, probes,
//! falls back to `initialize`, and answers the server's own
//! `elicitation/create` through its handler.
//!
//! The server is `tests/interop/ts_legacy_server.mjs`, run by Node. The
//! test needs `PRESA_INTEROP_NODE` (a Node 18+ binary) and
//! `PRESA_INTEROP_TS_SDK` (the `@modelcontextprotocol/sdk` package folder);
//! `scripts/interop.sh` provides both. Without them it says so and passes,
//! unless `CI` is set.

use presa::client::{ClientTransport, Era, PendingInput};
use presa::prelude::*;
use presa::wire::ElicitRequestParams;
use serde_json::json;

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
