//! Structured output: a declared `outputSchema` is a promise the server
//! keeps. Whatever a handler returns is checked against it, and a result
//! that breaks it never reaches the client.

use crate::common;

use common::{RawPeer, WIRES};
use presa::prelude::*;
use presa::server::{ToolHandler, ToolResult};
use presa::wire::Tool;
use serde_json::{Map, Value, json};

/// A tool written by hand, declaring `{total: integer}` as its output and
/// returning whatever its `reply` argument says.
struct Totals;

#[async_trait::async_trait]
impl ToolHandler for Totals {
    fn definition(&self) -> Tool {
        Tool {
            description: Some("Returns what it is told to.".into()),
            output_schema: Some(json!({
                "type": "object",
                "properties": {"total": {"type": "integer"}},
                "required": ["total"],
            })),
            ..Tool::new(
                "totals",
                json!({"type": "object", "properties": {"reply": {}}}),
            )
        }
    }

    async fn call(&self, _ctx: Context, arguments: Map<String, Value>) -> ToolResult {
        Ok(match arguments.get("reply").and_then(Value::as_str) {
            Some("good") => CallToolResult::structured(json!({"total": 3})),
            Some("wrong") => CallToolResult::structured(json!({"total": "three"})),
            Some("unstructured") => CallToolResult::from_text("3"),
            _ => CallToolResult::error("the tool failed"),
        })
    }
}

/// Lists names: structured output that is an array, which 2026-07-28
/// allows (`outputSchema` may be any JSON Schema).
#[tool]
async fn names() -> Json<Vec<String>> {
    Json(vec!["ada".into(), "grace".into()])
}

fn server() -> Server {
    Server::builder("output", "1")
        .tool(Totals)
        .tool(NamesTool)
        .build()
}

async fn call(peer: &mut RawPeer, id: i64, tool: &str, reply: &str) -> Value {
    peer.call(
        id,
        json!({}),
        json!({"name": tool, "arguments": {"reply": reply}}),
    )
    .await
}

#[tokio::test]
async fn structured_content_must_match_the_declared_output_schema() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let good = call(&mut peer, 1, "totals", "good").await;
        assert_eq!(
            good["result"]["structuredContent"],
            json!({"total": 3}),
            "{wire:?}"
        );
        for (id, reply) in [(2, "wrong"), (3, "unstructured")] {
            let broken = call(&mut peer, id, "totals", reply).await;
            assert_eq!(
                broken["error"],
                json!({"code": -32603, "message": "Internal error"}),
                "{wire:?} {reply}"
            );
        }
        // A tool error carries no structured content, and needs none.
        let failed = call(&mut peer, 4, "totals", "fail").await;
        assert_eq!(failed["result"]["isError"], true, "{failed}");
    }
}

#[tokio::test]
async fn array_output_is_listed_and_returned_as_the_spec_allows() {
    let server = server();
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let meta = common::meta(json!({}));
    let listed = peer.request(1, "tools/list", json!({"_meta": meta})).await;
    let names = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "names")
        .unwrap()
        .clone();
    assert_eq!(names["outputSchema"]["type"], "array", "{names}");
    let r = peer
        .call(2, json!({}), json!({"name": "names", "arguments": {}}))
        .await;
    assert_eq!(
        r["result"]["structuredContent"],
        json!(["ada", "grace"]),
        "{r}"
    );
}

#[test]
#[should_panic(expected = "tool `bad_output` has an invalid outputSchema")]
fn an_output_schema_that_is_not_a_schema_is_refused_at_registration() {
    struct BadOutput;
    #[async_trait::async_trait]
    impl ToolHandler for BadOutput {
        fn definition(&self) -> Tool {
            let mut tool = Totals.definition();
            tool.name = "bad_output".into();
            tool.output_schema = Some(json!({"type": "no such type"}));
            tool
        }
        async fn call(&self, ctx: Context, arguments: Map<String, Value>) -> ToolResult {
            Totals.call(ctx, arguments).await
        }
    }
    let _ = Server::builder("bad", "1").tool(BadOutput);
}
