//! Legacy sessions over stdio and in-process: a client of 2025-11-25 or
//! earlier opens with `initialize`, and the same tools, prompts and
//! resources serve it. Every message it reads is checked against the
//! 2025-11-25 schema and for modern-only fields (see `common::spec`).
//! Time is paused, so "nothing arrives" is checked once every task is
//! idle, not by waiting.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::surface::surface_server;
use common::{RawPeer, WIRES, Wire, connect, error_code, fixture, meta};
use presa::prelude::*;
use serde_json::{Value, json};

/// Long enough that only an idle runtime lets it pass.
const QUIET: Duration = Duration::from_secs(5);

/// A legacy session on `server` over `wire`, declaring `capabilities`.
async fn session(server: &Server, wire: Wire, capabilities: Value) -> RawPeer {
    let channel = connect(server, Caller::anonymous(), wire);
    let (peer, response) = RawPeer::legacy(channel, "2025-11-25", capabilities).await;
    assert_eq!(
        response["result"]["protocolVersion"], "2025-11-25",
        "{response}"
    );
    peer
}

/// Reads the next message, which must be a request of the server's with
/// `method`; returns its id and params.
async fn server_request(peer: &mut RawPeer, method: &str) -> (Value, Value) {
    let message = peer.recv().await;
    assert_eq!(message["method"], method, "{message}");
    (message["id"].clone(), message["params"].clone())
}

/// Sends `tools/call` with `params` as request `id`, without waiting for
/// its response: the server asks something first.
async fn send_call(peer: &RawPeer, id: i64, params: &Value) {
    peer.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
        .await;
}

async fn answer(peer: &RawPeer, id: Value, result: Value) {
    peer.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
        .await;
}

#[tokio::test(start_paused = true)]
async fn initialize_negotiates_the_version_and_declares_the_server() {
    for wire in WIRES {
        let server = fixture().server;
        for (asked, agreed) in [
            ("2025-11-25", "2025-11-25"),
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2025-11-25"),
        ] {
            let channel = connect(&server, Caller::anonymous(), wire);
            let (_, response) = RawPeer::legacy(channel, asked, json!({})).await;
            let result = &response["result"];
            assert_eq!(result["protocolVersion"], agreed, "{wire:?} {asked}");
            assert_eq!(result["serverInfo"]["name"], "fixture");
            assert_eq!(result["capabilities"]["logging"], json!({}));
            assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
            assert_eq!(
                result["capabilities"]["tasks"]["requests"]["tools"]["call"],
                json!({})
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_second_initialize_bad_params_and_modern_only_methods_are_refused() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = RawPeer::over(&server, wire);
        let bad = peer
            .request(1, "initialize", json!({"protocolVersion": 5}))
            .await;
        assert_eq!(error_code(&bad), -32602, "{bad}");

        let mut peer = session(&server, wire, json!({})).await;
        let again = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "c", "version": "1"}});
        let response = peer.request(1, "initialize", again).await;
        assert_eq!(error_code(&response), -32600, "{response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("once")
        );
        for method in [
            "server/discover",
            "subscriptions/listen",
            "tasks/update",
            "nope",
        ] {
            let response = peer.request(2, method, json!({})).await;
            assert_eq!(error_code(&response), -32601, "{method}: {response}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn ping_and_lists_answer_in_legacy_shapes() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        assert_eq!(
            peer.request(1, "ping", json!({})).await["result"],
            json!({})
        );
        let tools = peer.request(2, "tools/list", json!({})).await;
        let list = tools["result"]["tools"].as_array().unwrap();
        let support = |name: &str| {
            let tool = list.iter().find(|t| t["name"] == name).unwrap();
            tool["execution"]["taskSupport"].clone()
        };
        assert_eq!(support("build"), "optional", "{wire:?}");
        assert_eq!(support("long_job"), "required");
        assert_eq!(support("add"), "forbidden");
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_elicits_asks_with_a_real_request_and_runs_once() {
    for wire in WIRES {
        let fixture = fixture();
        let mut peer = session(&fixture.server, wire, common::elicitation()).await;
        let call = json!({"name": "full_name", "arguments": {}});
        send_call(&peer, 1, &call).await;
        let (id, params) = server_request(&mut peer, "elicitation/create").await;
        assert_eq!(params["message"], "First name?");
        answer(
            &peer,
            id,
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )
        .await;
        let (id, params) = server_request(&mut peer, "elicitation/create").await;
        assert_eq!(params["message"], "Last name?");
        answer(
            &peer,
            id,
            json!({"action": "accept", "content": {"name": "Lovelace"}}),
        )
        .await;
        let response = peer.recv().await;
        assert_eq!(response["id"], 1);
        assert_eq!(
            response["result"]["content"][0]["text"], "Ada Lovelace",
            "{response}"
        );
        assert_eq!(
            fixture.runs.0.load(Ordering::SeqCst),
            1,
            "{wire:?}: ran again"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_unusable_answer_is_asked_again_and_an_error_answer_fails_the_call() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        send_call(&peer, 1, &call).await;
        let (first, _) = server_request(&mut peer, "elicitation/create").await;
        answer(
            &peer,
            first.clone(),
            json!({"action": "accept", "content": {"ok": "yes"}}),
        )
        .await;
        let (second, _) = server_request(&mut peer, "elicitation/create").await;
        assert_ne!(first, second, "a new request, with an id of its own");
        answer(
            &peer,
            second,
            json!({"action": "accept", "content": {"ok": true}}),
        )
        .await;
        let response = peer.recv().await;
        assert_eq!(
            response["result"]["content"][0]["text"], "built docs",
            "{response}"
        );

        send_call(&peer, 2, &call).await;
        let (id, _) = server_request(&mut peer, "elicitation/create").await;
        let refusal = json!({"code": -32601, "message": "no forms here"});
        peer.send(json!({"jsonrpc": "2.0", "id": id, "error": refusal}))
            .await;
        let response = peer.recv().await;
        assert_eq!(error_code(&response), -32603, "{response}");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(message.contains("no forms here"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn input_the_client_did_not_declare_fails_without_a_request() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let call = json!({"name": "roots", "arguments": {}});
        let response = peer.request(1, "tools/call", call).await;
        assert_eq!(error_code(&response), -32600, "{response}");
        assert!(response["error"].get("data").is_none());
    }
}

#[tokio::test(start_paused = true)]
async fn sampling_and_roots_go_out_as_requests_too() {
    for wire in WIRES {
        let server = fixture().server;
        let capabilities = json!({"sampling": {}, "roots": {}});
        let mut peer = session(&server, wire, capabilities).await;
        let call = json!({"name": "ask_model", "arguments": {"question": "2+2?"}});
        send_call(&peer, 1, &call).await;
        let (id, params) = server_request(&mut peer, "sampling/createMessage").await;
        assert_eq!(params["maxTokens"], 64);
        let reply = json!({"role": "assistant", "content": {"type": "text", "text": "4"},
                           "model": "m"});
        answer(&peer, id, reply).await;
        assert_eq!(peer.recv().await["result"]["content"][0]["text"], "4");

        let call = json!({"name": "roots", "arguments": {}});
        send_call(&peer, 2, &call).await;
        let (id, _) = server_request(&mut peer, "roots/list").await;
        answer(
            &peer,
            id,
            json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
        )
        .await;
        let response = peer.recv().await;
        assert_eq!(
            response["result"]["content"][0]["text"],
            "file:///a,file:///b"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_call_that_waits_for_input_cancels_the_servers_request() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        send_call(&peer, 1, &call).await;
        let (id, _) = server_request(&mut peer, "elicitation/create").await;
        let cancel = json!({"requestId": 1, "reason": "user gave up"});
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}))
            .await;
        let message = peer.recv().await;
        assert_eq!(message["method"], "notifications/cancelled", "{message}");
        assert_eq!(message["params"]["requestId"], id);
        // The late answer goes nowhere, and the cancelled call never answers.
        answer(&peer, id, json!({"action": "decline"})).await;
        assert!(peer.recv_within(QUIET).await.is_none(), "{wire:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn logs_follow_the_session_level_and_progress_its_token() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let call = json!({"name": "chatty", "arguments": {}, "_meta": {"progressToken": "p1"}});
        peer.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call.clone()}),
        )
        .await;
        let mut seen = Vec::new();
        loop {
            let message = peer.recv().await;
            if message.get("id").is_some() {
                break;
            }
            seen.push(message["method"].as_str().unwrap().to_owned());
        }
        assert_eq!(seen, ["notifications/progress"; 2], "no level set, no logs");

        let level = peer
            .request(2, "logging/setLevel", json!({"level": "info"}))
            .await;
        assert_eq!(level["result"], json!({}));
        send_call(&peer, 3, &call).await;
        let mut logs = Vec::new();
        loop {
            let message = peer.recv().await;
            if message.get("id").is_some() {
                break;
            }
            if message["method"] == "notifications/message" {
                logs.push(message["params"]["data"].clone());
            }
        }
        assert_eq!(logs, [json!("halfway")], "{wire:?}: debug is below info");
        let bad = peer
            .request(4, "logging/setLevel", json!({"level": "loud"}))
            .await;
        assert_eq!(error_code(&bad), -32602);
    }
}

#[tokio::test(start_paused = true)]
async fn a_task_only_tool_and_a_task_for_a_sync_tool_are_refused() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let response = peer
            .request(
                1,
                "tools/call",
                json!({"name": "long_job", "arguments": {}}),
            )
            .await;
        assert_eq!(error_code(&response), -32601, "{response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("task")
        );
        let call = json!({"name": "add", "arguments": {"a": 1, "b": 2}, "task": {}});
        let response = peer.request(2, "tools/call", call).await;
        assert_eq!(error_code(&response), -32601, "{response}");
        let call = json!({"name": "add", "arguments": {"a": 1, "b": 2},
                          "_meta": {"com.example/trace": "t1"}});
        let response = peer.request(3, "tools/call", call).await;
        assert_eq!(response["result"]["structuredContent"], json!({"total": 3}));
    }
}

#[tokio::test(start_paused = true)]
async fn subscriptions_and_list_changes_reach_the_session() {
    for wire in WIRES {
        let server = surface_server(|b| b);
        let mut peer = session(&server, wire, json!({})).await;
        let uri = "file:///project/README.md";
        let ok = peer
            .request(1, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(ok["result"], json!({}));
        server.resource_updated("file:///project/logo.png");
        server.resource_updated(uri);
        let message = peer.recv().await;
        assert_eq!(message["method"], "notifications/resources/updated");
        assert_eq!(message["params"], json!({"uri": uri}), "{wire:?}");

        assert!(server.remove_prompt("pick"));
        let message = peer.recv().await;
        assert_eq!(message["method"], "notifications/prompts/list_changed");

        let ok = peer
            .request(2, "resources/unsubscribe", json!({"uri": uri}))
            .await;
        assert_eq!(ok["result"], json!({}));
        server.resource_updated(uri);
        assert!(peer.recv_within(QUIET).await.is_none());
        let read = peer
            .request(3, "resources/read", json!({"uri": "file:///nowhere"}))
            .await;
        assert_eq!(error_code(&read), -32002, "{read}");
    }
}

#[tokio::test(start_paused = true)]
async fn modern_requests_still_work_on_a_connection_that_did_not_initialize() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = RawPeer::over(&server, wire);
        let params = json!({"name": "add", "arguments": {"a": 2, "b": 3}});
        let response = peer.call(1, json!({}), params).await;
        assert_eq!(response["result"]["resultType"], "complete", "{wire:?}");
        let discover = json!({"_meta": meta(json!({}))});
        let response = peer.request(2, "server/discover", discover).await;
        assert!(response["result"]["supportedVersions"].is_array());
    }
}

/// Found by the `dispatch` fuzz target: a modern request read before
/// `initialize`, which waited for a slot until after it, was served in the
/// session, in legacy shapes, as if the client had sent it there.
#[tokio::test(start_paused = true)]
async fn a_request_read_before_initialize_stays_modern_when_it_starts_after() {
    for wire in WIRES {
        let fixture = common::fixture_with(|builder| builder.max_in_flight(1));
        let mut peer = RawPeer::over(&fixture.server, wire);
        let waits = json!({"name": "wait_forever", "_meta": meta(json!({}))});
        peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": waits}))
            .await;
        fixture.probe.started.notified().await;
        let list = json!({"_meta": meta(json!({}))});
        peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": list}))
            .await;
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "late", "version": "1"}});
        let opened = peer.request(3, "initialize", init).await;
        assert_eq!(
            opened["result"]["protocolVersion"], "2025-11-25",
            "{opened}"
        );
        let cancel = json!({"requestId": 1});
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}))
            .await;
        let listed = peer.recv().await;
        assert_eq!(listed["id"], 2, "{wire:?}: {listed}");
        assert_eq!(
            listed["result"]["resultType"], "complete",
            "{wire:?}: {listed}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_initialize_with_modern_meta_is_a_modern_request_for_no_method() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = RawPeer::over(&server, wire);
        let response = peer
            .request(1, "initialize", json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(error_code(&response), -32601, "{wire:?}: {response}");
        let params = json!({"name": "add", "arguments": {"a": 1, "b": 1}});
        let response = peer.call(2, json!({}), params).await;
        assert_eq!(response["result"]["resultType"], "complete", "still modern");
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_waiting_for_an_answer_ends_when_the_client_hangs_up() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        send_call(&peer, 1, &call).await;
        server_request(&mut peer, "elicitation/create").await;
        let mut incoming = peer.close();
        let started = tokio::time::Instant::now();
        let mut answered = None;
        while let Some(presa::transport::Inbound::Frame(frame)) = incoming.recv().await {
            let message: Value = serde_json::from_str(&frame).unwrap();
            if message["id"] == 1 {
                answered = Some(message);
            }
        }
        let answered = answered.expect("the call is answered before the server stops");
        assert_eq!(error_code(&answered), -32603, "{wire:?}: {answered}");
        let message = answered["error"]["message"].as_str().unwrap();
        assert!(message.contains("session ended"), "{message}");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "no drain period waited out"
        );
    }
}

/// Found by the `dispatch` fuzz target, whose input came down to this (a
/// server with 4 slots; the answers to its questions were malformed, so
/// none was ever given):
///
/// ```text
/// {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}},"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"fuzz","version":"0"}}}
/// {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"survey"}}
/// {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"build","arguments":{"target":"all"}}}
/// {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"review","arguments":{"code":"fn main() {}"}}}
/// {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"notes://todo"}}
/// {"jsonrpc":"2.0","id":12,"method":"tasks/get","params":{"taskId":"nope"}}
/// {"jsonrpc":"2.0","id":13,"method":"tasks/list","params":{"s":{"steps":1}}}
/// {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"task":{}}}
/// {"jsonrpc":"2.0","id":12,"method":"tasks/get","params":{"taskId":"nope"}}
/// {"jsonrpc":"2.0","id":13,"method":"tasks/list","params":{"cursor":"bogus"}}
/// ```
///
/// The four slots held requests that waited for answers to elicitations;
/// with the backlog past its limit the connection stopped reading, so it
/// would never read an answer, nor see the client close: the server never
/// ended. Here with one slot, the answer comes after the backlog is full.
#[tokio::test(start_paused = true)]
async fn a_full_connection_reads_on_to_the_answers_its_requests_wait_for() {
    for wire in WIRES {
        let fixture = common::fixture_with(|builder| builder.max_in_flight(1));
        let mut peer = session(&fixture.server, wire, common::elicitation()).await;
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        send_call(&peer, 1, &call).await;
        let (question, _) = server_request(&mut peer, "elicitation/create").await;
        // One slot, held by the call; a backlog of one; then no more room.
        for id in 2..=4 {
            peer.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
                .await;
        }
        let busy = peer.recv().await;
        assert_eq!(busy["id"], 4, "{wire:?}: {busy}");
        assert_eq!(error_code(&busy), -31001, "{wire:?}: {busy}");
        let answer = json!({"action": "accept", "content": {"ok": true}});
        self::answer(&peer, question, answer).await;
        let mut answered = std::collections::HashMap::new();
        for _ in 1..=3 {
            let response = peer.recv().await;
            answered.insert(response["id"].to_string(), response);
        }
        assert_eq!(
            answered["1"]["result"]["content"][0]["text"], "built docs",
            "{wire:?}: {answered:?}"
        );
        for id in ["2", "3"] {
            assert!(
                answered[id]["result"]["tools"].is_array(),
                "{wire:?}: {answered:?}"
            );
        }
    }
}

/// The same as [`a_full_connection_reads_on_to_the_answers_its_requests_wait_for`],
/// but the client closes instead of answering, as in the fuzz input: the
/// connection sees it, the call fails, the queued requests are answered,
/// and the server ends.
#[tokio::test(start_paused = true)]
async fn a_full_connection_waiting_for_answers_ends_when_the_client_closes() {
    for wire in WIRES {
        let fixture = common::fixture_with(|builder| builder.max_in_flight(1));
        let mut peer = session(&fixture.server, wire, common::elicitation()).await;
        let call = json!({"name": "build", "arguments": {"target": "docs"}});
        send_call(&peer, 1, &call).await;
        server_request(&mut peer, "elicitation/create").await;
        for id in 2..=3 {
            peer.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
                .await;
        }
        let mut incoming = peer.close();
        let mut answered = std::collections::HashMap::new();
        let day = Duration::from_secs(24 * 3600);
        loop {
            let inbound = tokio::time::timeout(day, incoming.recv())
                .await
                .unwrap_or_else(|_| panic!("{wire:?}: the server did not end: {answered:?}"));
            let Some(presa::transport::Inbound::Frame(frame)) = inbound else {
                break;
            };
            let message: Value = serde_json::from_str(&frame).unwrap();
            answered.insert(message["id"].to_string(), message);
        }
        assert_eq!(error_code(&answered["1"]), -32603, "{wire:?}: {answered:?}");
        for id in ["2", "3"] {
            assert!(
                answered[id]["result"]["tools"].is_array(),
                "{wire:?}: {answered:?}"
            );
        }
    }
}

/// Found by the `dispatch` fuzz target, whose input came down to these
/// lines (on stdio, as one chunk):
///
/// ```text
/// {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11","capabilities":{"elicitation":{"form":{}},"sampling":{},"roots":{"listed":true}},"clientInfo":{"name":"fuzz","version":"0"}}}
/// {"ls/}}
/// {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"build","arguments":{"target":"x"}}}
/// ~
/// {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"rea":"cha"}}
///
/// rp
/// ```
///
/// The call asked its question, which waited in the call's stream to be
/// written; the cancellation came first and took the stream, question and
/// all, and the server then told the client to cancel `presa-1`, a request
/// it never got. Here the question waits instead because the client has
/// not read what came before it, which is the same: withdrawn before it
/// went out, it is not written, and nothing is cancelled.
#[tokio::test(start_paused = true)]
async fn a_question_withdrawn_before_it_goes_out_is_neither_sent_nor_cancelled() {
    let server = fixture().server;
    let mut peer = session(&server, Wire::InProcess, common::elicitation()).await;
    // More answers than the client's side of the channel holds, unread.
    let pings = 300;
    for id in 1000..1000 + pings {
        peer.send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
    }
    let call = json!({"name": "build", "arguments": {"target": "x"}});
    send_call(&peer, 1, &call).await;
    // Once the server is idle, the call's question waits to be written.
    tokio::time::sleep(QUIET).await;
    let cancel = json!({"requestId": 1});
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}))
        .await;
    let mut answered = 0;
    let mut heard = Vec::new();
    while let Some(message) = peer.recv_within(QUIET).await {
        if message["result"] == json!({}) {
            answered += 1;
            continue;
        }
        heard.push(message);
    }
    assert_eq!(answered, pings, "{heard:?}");
    assert!(
        heard.is_empty(),
        "neither the question nor its cancellation: {heard:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn session_requests_with_bad_params_or_past_their_limits_are_refused() {
    for wire in WIRES {
        let server = surface_server(|b| b);
        let mut peer = session(&server, wire, json!({})).await;
        let call = json!({"name": "add", "arguments": {}, "_meta": ["not", "an", "object"]});
        let response = peer.request(1, "tools/call", call).await;
        assert_eq!(error_code(&response), -32602, "{response}");
        let call = json!({"name": "add", "arguments": {}, "_meta": {"progressToken": [1]}});
        let response = peer.request(2, "tools/call", call).await;
        assert_eq!(error_code(&response), -32602, "{response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("progressToken")
        );
        for n in 0..100 {
            let uri = format!("file:///project/{n}");
            let ok = peer
                .request(3, "resources/subscribe", json!({"uri": uri}))
                .await;
            assert_eq!(ok["result"], json!({}));
        }
        let more = json!({"uri": "file:///project/one-too-many"});
        let response = peer.request(4, "resources/subscribe", more).await;
        assert_eq!(error_code(&response), -32602, "{wire:?}: {response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("100 resources")
        );
        let again = json!({"uri": "file:///project/7"});
        assert_eq!(
            peer.request(5, "resources/subscribe", again).await["result"],
            json!({})
        );
        // This server has no tasks.
        let response = peer.request(6, "tasks/list", json!({})).await;
        assert_eq!(error_code(&response), -32601, "{response}");
    }
    let server = fixture().server;
    let mut peer = session(&server, Wire::InProcess, json!({})).await;
    let response = peer
        .request(1, "resources/subscribe", json!({"uri": "file:///a"}))
        .await;
    assert_eq!(
        error_code(&response),
        -32601,
        "no resources, no subscriptions"
    );
}

#[tokio::test(start_paused = true)]
async fn a_tools_own_meta_passes_through_and_modern_keys_stay_out() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let call = json!({"name": "raw_result", "arguments": {}});
        let response = peer.request(1, "tools/call", call).await;
        let result = &response["result"];
        assert_eq!(
            result["_meta"],
            json!({"com.example/trace": "t1"}),
            "{wire:?}"
        );
        assert!(result.get("resultType").is_none());
        assert_eq!(result["content"][0]["text"], "raw");
    }
}
