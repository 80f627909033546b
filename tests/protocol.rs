//! Request validation, discovery and listing, on every wire.

use crate::common;

use common::{RawPeer, WIRES, elicitation, error_code, fixture, meta};
use serde_json::{Value, json};

#[tokio::test]
async fn missing_meta_fields_are_invalid_params() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let no_meta = peer.request(1, "tools/list", json!({})).await;
        assert_eq!(error_code(&no_meta), -32602, "{wire:?}");
        assert!(
            no_meta["error"]["message"]
                .as_str()
                .unwrap()
                .contains("_meta")
        );
        let no_params = peer.request(2, "server/discover", Value::Null).await;
        assert_eq!(error_code(&no_params), -32602, "{wire:?}");
        let no_version = peer
            .request(
                3,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            )
            .await;
        assert_eq!(error_code(&no_version), -32602, "{wire:?}");
        assert!(
            no_version["error"]["message"]
                .as_str()
                .unwrap()
                .contains("protocolVersion")
        );
        let no_caps = peer
            .request(
                4,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            )
            .await;
        assert_eq!(error_code(&no_caps), -32602, "{wire:?}");
        assert!(
            no_caps["error"]["message"]
                .as_str()
                .unwrap()
                .contains("clientCapabilities")
        );
        assert_eq!(no_caps["id"], json!(4));
    }
}

#[tokio::test]
async fn unsupported_version_names_the_supported_ones() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let mut m = meta(json!({}));
        m["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
        let r = peer.request(1, "tools/list", json!({"_meta": m})).await;
        assert_eq!(error_code(&r), -32022, "{wire:?}");
        assert_eq!(
            r["error"]["data"],
            json!({"supported": ["2026-07-28"], "requested": "1900-01-01"})
        );
    }
}

#[tokio::test]
async fn version_is_checked_before_the_method() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let mut m = meta(json!({}));
    m["io.modelcontextprotocol/protocolVersion"] = json!("2025-06-18");
    let r = peer.request(1, "no/such", json!({"_meta": m})).await;
    assert_eq!(error_code(&r), -32022);
}

#[tokio::test]
async fn removed_and_unknown_methods_are_method_not_found() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for (id, method) in [(1, "ping"), (2, "resources/list"), (3, "nope")] {
            let r = peer
                .request(id, method, json!({"_meta": meta(json!({}))}))
                .await;
            assert_eq!(error_code(&r), -32601, "{method} over {wire:?}");
            assert!(r["error"]["message"].as_str().unwrap().contains(method));
        }
    }
}

#[tokio::test]
async fn an_unreadable_initialize_names_the_versions_the_server_speaks() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer
            .request(1, "initialize", json!({"protocolVersion": "2025-06-18"}))
            .await;
        assert_eq!(error_code(&r), -32602, "{wire:?}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains("capabilities"), "{message}");
        assert!(message.contains("2026-07-28"), "{message}");
        assert!(
            message.contains("2025-11-25, 2025-06-18, 2025-03-26"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer
            .call(1, json!({}), json!({"name": "nope", "arguments": {}}))
            .await;
        assert_eq!(error_code(&r), -32602, "{wire:?}");
        assert!(r["error"]["message"].as_str().unwrap().contains("nope"));
    }
}

#[tokio::test]
async fn a_tool_that_needs_tasks_refuses_a_client_without_them() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer.call(1, json!({}), json!({"name": "long_job"})).await;
        assert_eq!(error_code(&r), -32021, "{wire:?}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let r = peer.call(2, tasks, json!({"name": "long_job"})).await;
        assert_eq!(r["result"]["resultType"], "task", "{r}");
    }
}

/// Asserts `response` is `-32602` with exactly `message`.
fn assert_invalid_params(response: &Value, message: &str) {
    assert_eq!(error_code(response), -32602, "{response}");
    assert_eq!(response["error"]["message"], message);
}

/// Where the schema says object, an array is refused, never read by
/// position: the audit's cases, each named in the error (issue 9).
#[tokio::test]
async fn arrays_are_never_read_as_objects() {
    let f = fixture();
    let caps_key = "io.modelcontextprotocol/clientCapabilities";
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let mut positional = meta(json!({}));
        positional[caps_key] = json!([{}, null, null, {"io.modelcontextprotocol/tasks": {}}]);
        let r = peer
            .request(1, "tools/list", json!({"_meta": positional}))
            .await;
        assert_invalid_params(
            &r,
            "Invalid params: `._meta.\"io.modelcontextprotocol/clientCapabilities\"`: \
             expected an object, found an array",
        );

        let mut info = meta(json!({}));
        info["io.modelcontextprotocol/clientInfo"] = json!(["n", "v"]);
        let r = peer.request(2, "tools/list", json!({"_meta": info})).await;
        assert_invalid_params(
            &r,
            "Invalid params: `._meta.\"io.modelcontextprotocol/clientInfo\"`: \
             expected an object, found an array",
        );

        let flag = json!({"extensions": {"io.modelcontextprotocol/tasks": false}});
        let r = peer.call(3, flag, json!({"name": "long_job"})).await;
        assert_invalid_params(
            &r,
            "Invalid params: `._meta.\"io.modelcontextprotocol/clientCapabilities\".extensions.\
             \"io.modelcontextprotocol/tasks\"`: expected an object, found a boolean",
        );
    }
}

/// An answer must be an object: given by position it fails the request,
/// on a retry of `tools/call` and in `tasks/update` alike.
#[tokio::test]
async fn an_answer_given_as_an_array_is_invalid_params() {
    let f = fixture();
    let positional = json!({"confirm": ["accept", {"ok": true}]});
    let expected = "Invalid params: `.inputResponses.confirm`: expected an object, found an array";
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        let r1 = peer.call(1, elicitation(), call.clone()).await;
        let mut retry = call;
        retry["requestState"] = r1["result"]["requestState"].clone();
        retry["inputResponses"] = positional.clone();
        let r2 = peer.call(2, elicitation(), retry).await;
        assert_invalid_params(&r2, expected);

        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}});
        let update = json!({"_meta": meta(tasks), "taskId": "t", "inputResponses": positional});
        let r3 = peer.request(3, "tasks/update", update).await;
        assert_invalid_params(&r3, expected);
    }
}

#[tokio::test]
async fn input_without_the_capability_fails_closed() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer
            .call(
                1,
                json!({}),
                json!({"name": "build", "arguments": {"target": "x"}}),
            )
            .await;
        assert_eq!(error_code(&r), -32021, "{wire:?}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {}})
        );
        let r = peer
            .call(
                2,
                elicitation(),
                json!({"name": "ask_model", "arguments": {"question": "q"}}),
            )
            .await;
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"sampling": {}})
        );
        let r = peer.call(3, elicitation(), json!({"name": "roots"})).await;
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"],
            json!({"roots": {}})
        );
    }
}

#[tokio::test]
async fn malformed_frames_get_parse_and_invalid_request_errors() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        peer.send_line("{not json").await;
        let r = peer.recv().await;
        assert_eq!(error_code(&r), -32700, "{wire:?}");
        assert_eq!(r["id"], Value::Null);
        peer.send_line(r#"{"jsonrpc":"2.0","id":5}"#).await;
        let r = peer.recv().await;
        assert_eq!(error_code(&r), -32600);
        assert_eq!(r["id"], json!(5));
        peer.send_line(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":[]}"#)
            .await;
        assert_eq!(error_code(&peer.recv().await), -32600);
        // The connection still serves.
        let r = peer
            .request(7, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(r["result"]["resultType"], "complete");
    }
}

/// JSON that is valid but not a request: batches, scalars, nesting past
/// the parser's depth limit, numbers out of range, ids of the wrong type.
/// Each gets its own error, and the connection serves on.
#[tokio::test]
async fn odd_json_gets_a_clear_error_and_the_connection_serves_on() {
    let f = fixture();
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_params =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"a":{deep}}}}}"#);
    let cases = [
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"server/discover"}]"#,
            -32600,
            "a message must be a JSON object",
        ),
        (
            r#""just a string""#,
            -32600,
            "a message must be a JSON object",
        ),
        // Only what the rules read is parsed into values: a frame nested
        // deep is still seen to be no object, and nesting in `params`
        // past the parser's depth limit is a parse error.
        (deep.as_str(), -32600, "a message must be a JSON object"),
        (deep_params.as_str(), -32700, "recursion limit exceeded"),
        (
            r#"{"jsonrpc":"2.0","id":1e400,"method":"server/discover"}"#,
            -32700,
            "number out of range",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"server/discover"}"#,
            -32600,
            "`id` must be a string or an integer",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"server/discover"}"#,
            -32600,
            "a request id must not be null",
        ),
    ];
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for (frame, code, message) in &cases {
            peer.send_line(*frame).await;
            let r = peer.recv().await;
            assert_eq!(error_code(&r), *code, "{wire:?}: {frame:.60} => {r}");
            assert!(
                r["error"]["message"].as_str().unwrap().contains(message),
                "{wire:?}: {frame:.60} => {r}"
            );
        }
        let r = peer
            .request(9, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(r["result"]["resultType"], "complete", "{wire:?}");
    }
}

/// JSON-RPC never answers a response: one from the client is dropped,
/// malformed or not, so the next frame back answers the next request.
#[tokio::test]
async fn a_response_from_the_client_is_never_answered() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":[1],"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#,
        ] {
            peer.send_line(frame).await;
        }
        let r = peer
            .request(2, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(r["id"], 2, "{wire:?}: {r}");
        assert_eq!(r["result"]["resultType"], "complete");
    }
}

#[tokio::test]
async fn discover_describes_the_server() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer
            .request(1, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        let result = &r["result"];
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(
            result["capabilities"]["tools"],
            json!({"listChanged": true})
        );
        for absent in ["prompts", "resources", "completions"] {
            assert!(result["capabilities"].get(absent).is_none(), "{absent}");
        }
        assert_eq!(result["cacheScope"], "public");
        assert!(result["ttlMs"].as_u64().unwrap() > 0);
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": "fixture", "version": "1.0.0"})
        );
    }
}

#[tokio::test]
async fn tools_list_pages_in_a_stable_order() {
    let f = common::fixture_with(|b| b.page_size(5));
    let mut peer = RawPeer::over(&f.server, common::Wire::Stdio);
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    for id in 1.. {
        let mut params = json!({"_meta": meta(json!({}))});
        if !cursor.is_null() {
            params["cursor"] = cursor.clone();
        }
        let r = peer.request(id, "tools/list", params).await;
        let result = &r["result"];
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["cacheScope"], "public");
        assert!(result["ttlMs"].is_u64());
        let page = result["tools"].as_array().unwrap();
        assert!(page.len() <= 5);
        names.extend(page.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        cursor = result.get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(names.len(), 21);
    assert_eq!(&names[..3], ["build", "full_name", "pair"]);

    let r = peer
        .request(
            99,
            "tools/list",
            json!({"_meta": meta(json!({})), "cursor": "bogus"}),
        )
        .await;
    assert_eq!(error_code(&r), -32602);
}

#[tokio::test]
async fn listed_tools_carry_schemas_and_descriptions() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let r = peer
        .request(1, "tools/list", json!({"_meta": meta(json!({}))}))
        .await;
    let tools = r["result"]["tools"].as_array().unwrap();
    let add = tools.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["description"], "Adds two numbers.");
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");
    assert_eq!(
        add["outputSchema"]["properties"]["total"]["type"],
        "integer"
    );
    let explode = tools.iter().find(|t| t["name"] == "explode").unwrap();
    assert_eq!(
        explode["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );
    assert!(explode.get("outputSchema").is_none(), "no invented fields");
}

#[tokio::test]
async fn argument_errors_are_tool_errors_naming_the_field() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r = peer
            .call(
                1,
                json!({}),
                json!({"name": "add", "arguments": {"a": 1, "b": "two"}}),
            )
            .await;
        assert_eq!(r["result"]["isError"], true, "{wire:?}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("`b`"), "{text}");
        let r = peer
            .call(2, json!({}), json!({"name": "add", "arguments": {"a": 1}}))
            .await;
        assert_eq!(r["result"]["isError"], true);
        assert!(
            r["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("`b`")
        );
        let r = peer
            .call(
                3,
                json!({}),
                json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            )
            .await;
        assert_eq!(r["result"]["structuredContent"], json!({"total": 3}));
        assert_eq!(r["result"]["resultType"], "complete");
        let r = peer
            .call(4, json!({}), json!({"name": "add", "arguments": 7}))
            .await;
        assert_eq!(
            error_code(&r),
            -32602,
            "arguments that are not an object are malformed params"
        );
    }
}

#[tokio::test]
async fn a_panic_leaks_nothing_and_the_server_keeps_serving() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for (id, tool) in [(1, "explode"), (2, "broken")] {
            let r = peer.call(id, json!({}), json!({"name": tool})).await;
            assert_eq!(error_code(&r), -32603, "{tool} over {wire:?}");
            assert_eq!(r["error"]["message"], "Internal error");
            assert!(!r.to_string().contains("secret"), "{r}");
        }
        let r = peer
            .call(
                3,
                json!({}),
                json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
            )
            .await;
        assert_eq!(r["result"]["structuredContent"]["total"], 2);
    }
}

#[tokio::test]
async fn duplicate_in_flight_ids_are_refused() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "wait_forever", "_meta": meta(json!({}))}});
    peer.send(call.clone()).await;
    f.probe.started.notified().await;
    peer.send(call).await;
    let r = peer.recv().await;
    assert_eq!(error_code(&r), -32600);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use")
    );
}

#[tokio::test]
async fn progress_and_log_notifications_come_before_the_response() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        // Without a token or level: just the response.
        let r = peer.call(1, json!({}), json!({"name": "chatty"})).await;
        assert_eq!(r["result"]["content"][0]["text"], "done");

        let mut m = meta(json!({}));
        m["progressToken"] = json!("p1");
        m["io.modelcontextprotocol/logLevel"] = json!("info");
        peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "chatty", "_meta": m}}))
            .await;
        let first = peer.recv().await;
        assert_eq!(first["method"], "notifications/progress");
        assert_eq!(
            first["params"],
            json!({"progressToken": "p1", "progress": 1.0, "total": 2.0, "message": "half"})
        );
        let log = peer.recv().await;
        assert_eq!(log["method"], "notifications/message");
        assert_eq!(log["params"], json!({"level": "info", "data": "halfway"}));
        let second = peer.recv().await;
        assert_eq!(second["params"]["progress"], 2.0);
        let response = peer.recv().await;
        assert_eq!(response["id"], 2);
        assert_eq!(response["result"]["content"][0]["text"], "done");
    }
}

#[tokio::test]
async fn a_tools_own_result_meta_is_kept_beside_server_info() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let r = peer.call(1, json!({}), json!({"name": "raw_result"})).await;
    assert_eq!(
        r["result"]["_meta"],
        json!({"com.example/trace": "t1",
               "io.modelcontextprotocol/serverInfo": {"name": "fixture", "version": "1.0.0"}})
    );
}

#[tokio::test]
async fn a_panic_outside_the_tool_body_is_contained_too() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for _ in 0..2 {
            // Same id twice: the first call must have released it.
            let r = peer
                .call(
                    7,
                    json!({}),
                    json!({"name": "sometimes", "arguments": {"n": 1}}),
                )
                .await;
            assert_eq!(error_code(&r), -32603, "{wire:?}: {r}");
            assert!(!r.to_string().contains("policy bug"));
        }
    }
}

#[tokio::test]
async fn one_key_for_two_different_questions_is_an_internal_error() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let r = peer
        .call(1, elicitation(), json!({"name": "conflicting"}))
        .await;
    assert_eq!(error_code(&r), -32603);
}

#[tokio::test]
async fn a_tool_cannot_choose_its_own_result_type() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let r = peer.call(1, json!({}), json!({"name": "raw_result"})).await;
    assert_eq!(r["result"]["resultType"], "complete");
}

#[tokio::test]
async fn the_size_limit_holds_in_process_too() {
    let f = common::fixture_with(|b| b.max_message_size(1024));
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    let padding = "x".repeat(2048);
    let r = peer
        .call(
            1,
            json!({}),
            json!({"name": "big", "arguments": {"size": 1}, "pad": padding}),
        )
        .await;
    assert_eq!(error_code(&r), -32600);
    assert_eq!(r["id"], Value::Null);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1024-byte limit")
    );
}

#[tokio::test(start_paused = true)]
async fn past_max_in_flight_the_connection_stops_reading() {
    let f = common::fixture_with(|b| b.max_in_flight(1));
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "gated", "_meta": meta(json!({}))}}))
        .await;
    peer.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover",
                     "params": {"_meta": meta(json!({}))}}),
    )
    .await;
    let waited = peer.recv_within(std::time::Duration::from_secs(60)).await;
    assert!(
        waited.is_none(),
        "the second request waits for the first to finish"
    );
    f.probe.release.notify_one();
    assert_eq!(peer.recv().await["id"], 1);
    assert_eq!(peer.recv().await["id"], 2);
}

#[tokio::test]
async fn a_cancellation_reaches_a_connection_at_its_limit() {
    let f = common::fixture_with(|b| b.max_in_flight(1));
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "wait_forever", "_meta": meta(json!({}))}}))
            .await;
        f.probe.started.notified().await;
        peer.send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover",
                         "params": {"_meta": meta(json!({}))}}),
        )
        .await;
        // The only slot is taken, yet the cancellation is read and acted on.
        peer.send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 1}}),
        )
        .await;
        f.probe.dropped.notified().await;
        let r = peer.recv().await;
        assert_eq!(r["id"], 2, "{wire:?} {r}");
    }
}

#[tokio::test]
async fn a_queued_request_can_be_cancelled_before_it_starts() {
    let f = common::fixture_with(|b| b.max_in_flight(1));
    let mut peer = RawPeer::over(&f.server, common::Wire::InProcess);
    peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "gated_started", "_meta": meta(json!({}))}}))
        .await;
    // Request 1 holds the only slot before the others arrive; the backlog
    // holds one more, so the connection keeps reading.
    f.probe.started.notified().await;
    let discover = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
               "params": {"_meta": meta(json!({}))}})
    };
    peer.send(discover(2)).await;
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 2}}),
    )
    .await;
    peer.send(discover(3)).await;
    // A frame that is no JSON is answered as soon as it is read, after
    // the cancellation: once its answer is here, request 2 is gone.
    peer.send_line("{").await;
    assert_eq!(peer.recv().await["error"]["code"], -32700);
    f.probe.release.notify_one();
    assert_eq!(peer.recv().await["id"], 1);
    assert_eq!(peer.recv().await["id"], 3, "request 2 never ran");
}

#[tokio::test]
async fn arguments_are_checked_against_the_schema_too() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        for (id, order, field) in [
            (1, json!({"quantity": 0, "code": "A"}), "order/quantity"),
            (2, json!({"quantity": 11, "code": "A"}), "order/quantity"),
            (3, json!({"quantity": 1, "code": "TOOLONG"}), "order/code"),
            (4, json!({"quantity": 1}), "code"),
        ] {
            let r = peer
                .call(
                    id,
                    json!({}),
                    json!({"name": "order", "arguments": {"order": order}}),
                )
                .await;
            assert_eq!(r["result"]["isError"], true, "{order} over {wire:?}");
            let text = r["result"]["content"][0]["text"].as_str().unwrap();
            assert!(text.contains(&format!("`{field}`")), "{text}");
        }
        let r = peer
            .call(
                5,
                json!({}),
                json!({"name": "order", "arguments": {"order": {"quantity": 3, "code": "AB"}}}),
            )
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "3 x AB");
    }
}

#[tokio::test]
async fn a_line_that_is_not_utf8_is_a_parse_error() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let f = fixture();
    let (client_io, server_io) = tokio::io::duplex(4096);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(presa::server::serve(
        f.server.clone(),
        presa::transport::byte_stream(sr, sw, 4096),
        presa::Caller::anonymous(),
    ));
    let (cr, mut cw) = tokio::io::split(client_io);
    cw.write_all(b"\xff\xfe\n").await.unwrap();
    let mut line = String::new();
    tokio::io::BufReader::new(cr)
        .read_line(&mut line)
        .await
        .unwrap();
    let r: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(error_code(&r), -32700);
    assert!(r["error"]["message"].as_str().unwrap().contains("UTF-8"));
}

/// Where to deploy.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Env {
    Dev,
    Staging,
}

/// Deploys to an environment, optionally mirrored to another.
#[presa::tool]
async fn deploy_to(env: Env, mirror: Option<Env>, replicas: Option<u8>) -> String {
    let _ = (env, mirror, replicas);
    "deployed".into()
}

#[tokio::test]
async fn argument_errors_say_what_the_value_should_be() {
    let server = presa::Server::builder("args", "1")
        .tool(DeployToTool)
        .build();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        for (id, arguments, message) in [
            (
                1,
                json!({"env": "prod"}),
                r#"invalid arguments: `env`: expected "dev" or "staging", got "prod""#,
            ),
            (
                2,
                json!({"env": "dev", "mirror": "prod"}),
                r#"invalid arguments: `mirror`: expected "dev" or "staging", got "prod""#,
            ),
            (
                3,
                json!({"env": "dev", "replicas": 300}),
                "invalid arguments: `replicas`: must be at most 255, got 300",
            ),
            (
                4,
                json!({"env": 7}),
                r#"invalid arguments: `env`: expected "dev" or "staging", got 7"#,
            ),
            (
                5,
                json!({}),
                "invalid arguments: `env`: missing required argument",
            ),
        ] {
            let r = peer
                .call(
                    id,
                    json!({}),
                    json!({"name": "deploy_to", "arguments": arguments}),
                )
                .await;
            assert_eq!(r["result"]["isError"], true, "{wire:?} {r}");
            assert_eq!(r["result"]["content"][0]["text"], message, "{wire:?}");
        }
    }
}
