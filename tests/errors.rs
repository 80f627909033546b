//! What the model reads when a tool fails: the server's choice for errors
//! propagated with `?`, and the fixed rules for the rest.

use crate::common;

use common::{RawPeer, WIRES};
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::{ErrorDetails, MASKED_ERROR_MESSAGE};
use serde_json::{Value, json};

/// Fails the way `how` names.
#[tool(task = "optional")]
async fn fail(how: String) -> Result<String, ToolError> {
    match how.as_str() {
        "io" => Err(std::io::Error::other("disk /dev/sda1 is full"))?,
        "anyhow" => Err(anyhow::anyhow!("upstream said 502"))?,
        "text" => Err("quota exceeded for key sk-123")?,
        "new" => Err(ToolError::new("Pick a smaller file")),
        "internal" => Err(ToolError::internal("password=hunter2")),
        _ => Ok("fine".into()),
    }
}

fn server(details: ErrorDetails) -> Server {
    Server::builder("errors", "1")
        .tool(FailTool)
        .error_details(details)
        .tasks(TaskSettings::default())
        .build()
}

async fn call(peer: &mut RawPeer, id: i64, how: &str) -> Value {
    peer.call(
        id,
        json!({}),
        json!({"name": "fail", "arguments": {"how": how}}),
    )
    .await
}

fn tool_error_text(response: &Value) -> &str {
    assert_eq!(response["result"]["isError"], true, "{response}");
    response["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn by_default_propagated_errors_show_their_text() {
    let server = server(ErrorDetails::default());
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        for (id, how, text) in [
            (1, "io", "disk /dev/sda1 is full"),
            (2, "anyhow", "upstream said 502"),
            (3, "text", "quota exceeded for key sk-123"),
            (4, "new", "Pick a smaller file"),
        ] {
            let r = call(&mut peer, id, how).await;
            assert_eq!(tool_error_text(&r), text, "{wire:?}");
        }
        let r = call(&mut peer, 5, "internal").await;
        assert_eq!(
            r["error"],
            json!({"code": -32603, "message": "Internal error"})
        );
    }
}

#[tokio::test]
async fn a_masking_server_shows_only_what_was_written_for_the_model() {
    let server = server(ErrorDetails::Masked);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        for (id, how) in [(1, "io"), (2, "anyhow"), (3, "text")] {
            let r = call(&mut peer, id, how).await;
            assert_eq!(tool_error_text(&r), MASKED_ERROR_MESSAGE, "{wire:?} {how}");
        }
        let r = call(&mut peer, 4, "new").await;
        assert_eq!(tool_error_text(&r), "Pick a smaller file");
        let r = call(&mut peer, 5, "internal").await;
        assert_eq!(
            r["error"],
            json!({"code": -32603, "message": "Internal error"})
        );
    }
}

#[tokio::test]
async fn a_task_masks_the_same_way() {
    let server = server(ErrorDetails::Masked);
    let client = Client::builder()
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()));
    let created = client
        .call_tool("fail", json!({"how": "anyhow"}))
        .await
        .unwrap();
    let result = client
        .await_task(created.task().unwrap(), AwaitOptions::default())
        .await
        .unwrap();
    assert!(result.is_error());
    assert_eq!(result.text(), Some(MASKED_ERROR_MESSAGE));
}
