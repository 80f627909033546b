//! Prompts: listing, resolving with typed arguments and every kind of
//! content, MRTR inside `prompts/get`, and the errors, on every wire.

use crate::common;

use common::surface::surface_server;
use common::{RawPeer, WIRES, elicitation, error_code, meta};
use serde_json::{Value, json};

fn get(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments, "_meta": meta(json!({}))})
}

#[tokio::test]
async fn prompts_list_pages_with_caching_hints() {
    let server = surface_server(|b| b.page_size(4));
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let mut names = Vec::new();
        let mut cursor = Value::Null;
        for id in 1.. {
            let mut params = json!({"_meta": meta(json!({}))});
            if !cursor.is_null() {
                params["cursor"] = cursor.clone();
            }
            let result = peer.request(id, "prompts/list", params).await["result"].take();
            assert_eq!(result["cacheScope"], "public");
            assert!(result["ttlMs"].as_u64().unwrap() > 0);
            for prompt in result["prompts"].as_array().unwrap() {
                names.push(prompt["name"].as_str().unwrap().to_owned());
            }
            cursor = result.get("nextCursor").cloned().unwrap_or(Value::Null);
            if cursor.is_null() {
                break;
            }
        }
        assert_eq!(
            names,
            [
                "code_review",
                "showcase",
                "discuss",
                "repeat",
                "broken_prompt",
                "pick"
            ],
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn a_listed_prompt_describes_its_arguments() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let list = peer
        .request(1, "prompts/list", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(
        list["result"]["prompts"][0],
        json!({
            "name": "code_review",
            "title": "Request a code review",
            "description": "Asks for a review of a piece of code.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "language", "description": "Its language", "required": false},
                {"name": "style", "required": false}
            ]
        })
    );
}

#[tokio::test]
async fn text_becomes_one_user_message_from_typed_arguments() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let arguments = json!({"code": "fn main() {}", "language": "rust"});
        let r = peer
            .request(1, "prompts/get", get("code_review", arguments))
            .await;
        assert_eq!(
            r["result"]["messages"],
            json!([{"role": "user", "content": {"type": "text",
                    "text": "Review this Rust code:\nfn main() {}"}}]),
            "{wire:?}"
        );
        assert_eq!(r["result"]["resultType"], "complete");
        assert_eq!(
            r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "surface"
        );
        let r = peer
            .request(
                2,
                "prompts/get",
                get("repeat", json!({"word": "hey", "times": "3"})),
            )
            .await;
        assert_eq!(r["result"]["messages"][0]["content"]["text"], "hey hey hey");
    }
}

#[tokio::test]
async fn every_content_kind_reaches_the_client() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let r = peer
            .request(1, "prompts/get", get("showcase", json!({})))
            .await;
        assert_eq!(
            r["result"]["messages"],
            json!([
                {"role": "user", "content": {"type": "text", "text": "Look at these:"}},
                {"role": "assistant", "content": {"type": "image", "data": "aW1n", "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "audio", "data": "c25k", "mimeType": "audio/wav"}},
                {"role": "user", "content": {"type": "resource_link",
                    "uri": "file:///project/README.md", "name": "README"}},
                {"role": "user", "content": {"type": "resource", "resource":
                    {"uri": "file:///project/a.txt", "mimeType": "text/plain", "text": "alpha"}}},
                {"role": "user", "content": {"type": "resource", "resource":
                    {"uri": "file:///project/b.bin", "blob": "YmV0YQ=="}}}
            ]),
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn arguments_that_are_missing_or_do_not_parse_are_invalid_params() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let missing = peer
            .request(
                1,
                "prompts/get",
                get("code_review", json!({"language": "rust"})),
            )
            .await;
        assert_eq!(error_code(&missing), -32602, "{wire:?}");
        let message = missing["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`code`") && message.contains("code_review"),
            "{message}"
        );

        let bad_enum = peer
            .request(
                2,
                "prompts/get",
                get("code_review", json!({"code": "x", "language": "cobol"})),
            )
            .await;
        assert_eq!(error_code(&bad_enum), -32602);
        let message = bad_enum["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`language`") && message.contains("expected `rust` or `python`"),
            "{message}"
        );

        let bad_number = peer
            .request(
                3,
                "prompts/get",
                get("repeat", json!({"word": "a", "times": "300"})),
            )
            .await;
        assert_eq!(error_code(&bad_number), -32602);
        assert!(
            bad_number["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`times`")
        );

        let not_a_string = peer
            .request(
                4,
                "prompts/get",
                get("repeat", json!({"word": "a", "times": 3})),
            )
            .await;
        assert_eq!(error_code(&not_a_string), -32602);
    }
}

#[tokio::test]
async fn unknown_prompts_and_failing_prompts_are_errors() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let unknown = peer.request(1, "prompts/get", get("nope", json!({}))).await;
        assert_eq!(error_code(&unknown), -32602, "{wire:?}");
        assert!(
            unknown["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nope")
        );
        let broken = peer
            .request(2, "prompts/get", get("broken_prompt", json!({})))
            .await;
        assert_eq!(error_code(&broken), -32603);
        assert_eq!(broken["error"]["message"], "Internal error");
    }
}

#[tokio::test]
async fn a_prompt_asks_for_input_over_mrtr() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let mut params = get("discuss", json!({"topic": "rust"}));
        params["_meta"] = meta(elicitation());
        let first = peer.request(1, "prompts/get", params.clone()).await;
        let result = &first["result"];
        assert_eq!(result["resultType"], "input_required", "{wire:?}");
        assert_eq!(
            result["inputRequests"]["confirm"]["params"]["message"],
            "Discuss rust?"
        );
        let state = result["requestState"].clone();

        let mut retry = params.clone();
        retry["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        retry["requestState"] = state.clone();
        let done = peer.request(2, "prompts/get", retry.clone()).await;
        assert_eq!(done["result"]["description"], "A discussion of rust");
        assert_eq!(
            done["result"]["messages"][0]["content"]["text"],
            "Let us discuss rust."
        );

        // The state is bound to the prompt's arguments...
        let mut other_topic = retry.clone();
        other_topic["arguments"] = json!({"topic": "go"});
        let refused = peer.request(3, "prompts/get", other_topic).await;
        assert_eq!(error_code(&refused), -32602);
        // ...and to the method: a tool call cannot replay it.
        let call = json!({"name": "add", "arguments": {"a": 1, "b": 2},
                          "requestState": state, "_meta": meta(elicitation())});
        let replayed = peer.request(4, "tools/call", call).await;
        assert_eq!(error_code(&replayed), -32602);

        let mut declined = params;
        declined["inputResponses"] = json!({"confirm": {"action": "decline"}});
        declined["requestState"] = first["result"]["requestState"].clone();
        let declined = peer.request(5, "prompts/get", declined).await;
        assert_eq!(error_code(&declined), -32602);
        assert_eq!(
            declined["error"]["message"],
            "the user does not want to discuss it"
        );
    }
}

/// Answers travel by key: a first `prompts/get` may answer its question
/// ahead, without a `requestState`.
#[tokio::test]
async fn a_first_get_may_answer_ahead() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let mut params = get("discuss", json!({"topic": "rust"}));
        params["_meta"] = meta(elicitation());
        params["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let first = peer.request(1, "prompts/get", params).await;
        assert_eq!(
            first["result"]["resultType"], "complete",
            "{wire:?}: {first}"
        );
    }
}

#[tokio::test]
async fn a_prompt_needing_input_the_client_cannot_give_is_missing_capability() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let r = peer
        .request(1, "prompts/get", get("discuss", json!({"topic": "rust"})))
        .await;
    assert_eq!(error_code(&r), -32021);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Prompt `discuss`")
    );
}
