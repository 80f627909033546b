//! Multi Round-Trip Requests: input requests, retries and `requestState`.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{RawPeer, WIRES, Wire, accepting, client, elicitation, fixture, fixture_with};
use presa::Caller;
use presa::Content;
use presa::client::ClientError;
use presa::wire::{
    CreateMessageResult, ElicitRequestParams, ElicitResult, Role, Root, SamplingContent,
};
use serde_json::{Value, json};

fn state_of(response: &Value) -> String {
    response["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

#[tokio::test]
async fn one_round_answers_a_confirmation() {
    let f = fixture();
    for wire in WIRES {
        let c = client(accepting(json!({"ok": true})), &f.server, wire);
        let result = c
            .call_tool("build", json!({"target": "docs"}))
            .await
            .unwrap()
            .into_complete()
            .unwrap();
        assert_eq!(result.text(), Some("built docs"), "{wire:?}");
        assert!(!result.is_error());
    }
}

#[tokio::test]
async fn the_input_required_result_carries_a_flat_typed_schema() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let r = peer
        .call(
            1,
            elicitation(),
            json!({"name": "build", "arguments": {"target": "docs"}}),
        )
        .await;
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({"confirm": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Build docs?",
            "requestedSchema": {
                "type": "object",
                "properties": {"ok": {"type": "boolean", "description": "Go ahead?"}},
                "required": ["ok"]
            }
        }}})
    );
    assert!(result["requestState"].is_string());
}

#[tokio::test]
async fn a_tool_error_is_a_result_with_is_error() {
    let f = fixture();
    let c = client(accepting(json!({"ok": false})), &f.server, Wire::Stdio);
    let result = c
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap()
        .into_complete()
        .unwrap();
    assert!(result.is_error());
    assert_eq!(result.text(), Some("not confirmed"));
}

#[tokio::test]
async fn two_rounds_keep_the_first_answer() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let args = json!({"name": "full_name"});
        let r1 = peer.call(1, elicitation(), args.clone()).await;
        assert_eq!(r1["result"]["inputRequests"].as_object().unwrap().len(), 1);
        assert!(r1["result"]["inputRequests"]["first"].is_object());

        let mut retry = args.clone();
        retry["inputResponses"] =
            json!({"first": {"action": "accept", "content": {"name": "Ada"}}});
        retry["requestState"] = json!(state_of(&r1));
        let r2 = peer.call(2, elicitation(), retry).await;
        assert_eq!(r2["result"]["resultType"], "input_required");
        assert!(r2["result"]["inputRequests"]["last"].is_object());
        assert!(r2["result"]["inputRequests"].get("first").is_none());

        // Only the latest answer is sent; the first survives in requestState.
        let mut retry = args.clone();
        retry["inputResponses"] =
            json!({"last": {"action": "accept", "content": {"name": "Lovelace"}}});
        retry["requestState"] = json!(state_of(&r2));
        let r3 = peer.call(3, elicitation(), retry).await;
        assert_eq!(
            r3["result"]["content"][0]["text"], "Ada Lovelace",
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn the_client_drives_every_round_and_the_tool_reruns_each_time() {
    let f = fixture();
    let c = client(
        presa::client::Client::builder().on_elicitation(|input| async move {
            let ElicitRequestParams::Form { message, .. } = input.params else {
                unreachable!()
            };
            let name = if message.starts_with("First") {
                "Grace"
            } else {
                "Hopper"
            };
            ElicitResult::accept(json!({"name": name}))
        }),
        &f.server,
        Wire::InProcess,
    );
    let result = c.call_tool("full_name", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("Grace Hopper"));
    assert_eq!(
        f.runs.0.load(Ordering::SeqCst),
        3,
        "code before an elicit runs again on every retry"
    );
}

#[tokio::test]
async fn two_requests_registered_in_one_run_are_asked_in_one_round() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let r = peer.call(1, elicitation(), json!({"name": "pair"})).await;
    let requests = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["a", "b"]);

    let c = client(accepting(json!({"name": "x"})), &f.server, Wire::Stdio);
    assert_eq!(
        c.call_tool("pair", json!({})).await.unwrap().text(),
        Some("x & x")
    );
}

#[tokio::test]
async fn decline_and_cancel_are_never_an_accept() {
    let f = fixture();
    for (answer, expected) in [
        (ElicitResult::decline(), "declined"),
        (ElicitResult::cancel(), "cancelled"),
        (
            ElicitResult::accept(json!({"ok": true})),
            "accepted ok=true",
        ),
    ] {
        let c = client(
            presa::client::Client::builder().on_elicitation(move |_| {
                let answer = answer.clone();
                async move { answer }
            }),
            &f.server,
            Wire::InProcess,
        );
        assert_eq!(
            c.call_tool("outcome", json!({})).await.unwrap().text(),
            Some(expected)
        );
    }
    // A decline that smuggles content is still a decline.
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let r1 = peer
        .call(1, elicitation(), json!({"name": "outcome"}))
        .await;
    let retry = json!({"name": "outcome", "requestState": state_of(&r1),
        "inputResponses": {"c": {"action": "decline", "content": {"ok": true}}}});
    let r2 = peer.call(2, elicitation(), retry).await;
    assert_eq!(r2["result"]["content"][0]["text"], "declined");
}

#[tokio::test]
async fn invalid_answer_content_is_asked_again() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r1 = peer
            .call(
                1,
                elicitation(),
                json!({"name": "build", "arguments": {"target": "t"}}),
            )
            .await;
        for (id, bad) in [
            (2, json!({"action": "accept", "content": {"ok": "yes"}})),
            (3, json!({"action": "accept"})),
            (4, json!({"action": "maybe"})),
            (5, json!({"action": "accept", "content": ["ok", true]})),
        ] {
            let retry = json!({"name": "build", "arguments": {"target": "t"},
                "requestState": state_of(&r1), "inputResponses": {"confirm": bad}});
            let r = peer.call(id, elicitation(), retry).await;
            assert_eq!(
                r["result"]["resultType"], "input_required",
                "{bad} over {wire:?}"
            );
            assert!(r["result"]["inputRequests"]["confirm"].is_object());
        }
    }
}

/// Answers travel by key, with or without a `requestState`: a retry may
/// answer a question the next round would ask, and an answer under a key
/// the handler never asks is ignored.
#[tokio::test]
async fn answers_ahead_are_used_and_unknown_keys_ignored() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let r1 = peer
        .call(1, elicitation(), json!({"name": "full_name"}))
        .await;
    // Only "first" was asked; "last" is answered ahead.
    let retry = json!({"name": "full_name", "requestState": state_of(&r1), "inputResponses": {
        "first": {"action": "accept", "content": {"name": "A"}},
        "last": {"action": "accept", "content": {"name": "B"}},
        "zzz": {"whatever": true}}});
    let r2 = peer.call(2, elicitation(), retry).await;
    assert_eq!(r2["result"]["content"][0]["text"], "A B", "{r2}");
}

/// A first call carries no `requestState`, but its answers are used by
/// key just the same, as the conformance suite's `ignore-extra-params`
/// expects; the extra ones are ignored.
#[tokio::test]
async fn answers_on_a_first_call_are_used_by_key() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let call = json!({"name": "build", "arguments": {"target": "docs"},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}},
                               "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}}}});
        let r = peer.call(1, elicitation(), call).await;
        assert_eq!(
            r["result"]["content"][0]["text"], "built docs",
            "{wire:?}: {r}"
        );
    }
}

/// An answer under a key the handler does not ask this round is not
/// carried into the next round's state.
#[tokio::test]
async fn only_answers_the_handler_used_are_carried() {
    let f = fixture();
    let name = |n: &str| json!({"action": "accept", "content": {"name": n}});
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    // "first" is used and "stray" is not; the round still needs "last".
    let call = json!({"name": "full_name",
        "inputResponses": {"first": name("Ada"), "stray": name("x".repeat(1000).as_str())}});
    let r1 = peer.call(1, elicitation(), call).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    assert!(
        state_of(&r1).len() < 1000,
        "the unused answer travels in the state"
    );
    let retry = json!({"name": "full_name", "requestState": state_of(&r1),
        "inputResponses": {"last": name("Lovelace")}});
    let r2 = peer.call(2, elicitation(), retry).await;
    assert_eq!(r2["result"]["content"][0]["text"], "Ada Lovelace");
}

/// An answer over the size limit fails the request, first call or retry.
#[tokio::test]
async fn an_answer_over_the_size_limit_is_invalid_params() {
    let f = common::fixture_with(|b| b.max_answer_size(1024));
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let call = json!({"name": "build", "arguments": {"target": "docs"},
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true, "pad": "p".repeat(2000)}}}});
    let r = peer.call(1, elicitation(), call).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(
        r["error"]["message"],
        "The answer to `confirm` is 2050 bytes; answers may be at most 1024 bytes"
    );
}

/// An answer an earlier round gave travels in the `requestState`, and a
/// retry cannot replace it.
#[tokio::test]
async fn a_retry_cannot_replace_an_earlier_answer() {
    let f = fixture();
    let name = |n: &str| json!({"action": "accept", "content": {"name": n}});
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r1 = peer
            .call(1, elicitation(), json!({"name": "full_name"}))
            .await;
        let retry = json!({"name": "full_name", "requestState": state_of(&r1),
            "inputResponses": {"first": name("Ada")}});
        let r2 = peer.call(2, elicitation(), retry).await;
        let retry = json!({"name": "full_name", "requestState": state_of(&r2),
            "inputResponses": {"first": name("Mallory"), "last": name("Lovelace")}});
        let r3 = peer.call(3, elicitation(), retry).await;
        assert_eq!(
            r3["result"]["content"][0]["text"], "Ada Lovelace",
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn tampered_state_is_invalid_params() {
    let f = fixture();
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r1 = peer
            .call(1, elicitation(), json!({"name": "full_name"}))
            .await;
        let state = state_of(&r1);
        let mut tampered = state.clone().into_bytes();
        tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        for (id, bad) in [(2, tampered.as_str()), (3, "garbage"), (4, "")] {
            let retry = json!({"name": "full_name", "requestState": bad,
                "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});
            let r = peer.call(id, elicitation(), retry).await;
            assert_eq!(r["error"]["code"], -32602, "{bad:?} over {wire:?}");
            assert!(
                r["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("requestState")
            );
        }
        // The state is bound to the arguments.
        let r = peer
            .call(
                5,
                elicitation(),
                json!({"name": "build", "arguments": {"target": "x"}, "requestState": state}),
            )
            .await;
        assert_eq!(r["error"]["code"], -32602);
    }
}

#[tokio::test]
async fn expired_state_is_invalid_params() {
    let f = fixture_with(|b| b.request_state_ttl(Duration::ZERO));
    for wire in WIRES {
        let mut peer = RawPeer::over(&f.server, wire);
        let r1 = peer
            .call(1, elicitation(), json!({"name": "full_name"}))
            .await;
        let retry = json!({"name": "full_name", "requestState": state_of(&r1),
        "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});
        let r2 = peer.call(2, elicitation(), retry).await;
        assert_eq!(r2["error"]["code"], -32602, "{wire:?}");
        assert!(r2["error"]["message"].as_str().unwrap().contains("expired"));
    }
}

#[tokio::test]
async fn another_callers_state_is_refused() {
    let f = fixture();
    let mut alice = RawPeer::new(common::connect(
        &f.server,
        Caller::subject("alice"),
        Wire::InProcess,
    ));
    let mut mallory = RawPeer::new(common::connect(
        &f.server,
        Caller::subject("mallory"),
        Wire::Stdio,
    ));
    let r1 = alice
        .call(1, elicitation(), json!({"name": "full_name"}))
        .await;
    let retry = json!({"name": "full_name", "requestState": state_of(&r1),
        "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});
    let stolen = mallory.call(1, elicitation(), retry.clone()).await;
    assert_eq!(stolen["error"]["code"], -32602);
    let own = alice.call(2, elicitation(), retry).await;
    assert_eq!(own["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn a_state_from_another_process_key_is_refused() {
    let one = fixture_with(|b| b.request_state_key([1; 32]));
    let two = fixture_with(|b| b.request_state_key([2; 32]));
    let shared = fixture_with(|b| b.request_state_key([1; 32]));
    let r1 = RawPeer::over(&one.server, Wire::InProcess)
        .call(1, elicitation(), json!({"name": "full_name"}))
        .await;
    let retry = json!({"name": "full_name", "requestState": state_of(&r1),
        "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});
    let r = RawPeer::over(&two.server, Wire::InProcess)
        .call(2, elicitation(), retry.clone())
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let r = RawPeer::over(&shared.server, Wire::InProcess)
        .call(2, elicitation(), retry)
        .await;
    assert_eq!(
        r["result"]["resultType"], "input_required",
        "a shared key lets any replica resume"
    );
}

#[tokio::test]
async fn a_rotated_key_still_verifies_until_it_is_retired() {
    let old = fixture_with(|b| b.request_state_key([1; 32]));
    let rotated = fixture_with(|b| {
        b.request_state_key([2; 32])
            .verify_request_state_key([1; 32])
    });
    let retired = fixture_with(|b| b.request_state_key([2; 32]));
    let r1 = RawPeer::over(&old.server, Wire::InProcess)
        .call(1, elicitation(), json!({"name": "full_name"}))
        .await;
    let retry = json!({"name": "full_name", "requestState": state_of(&r1),
        "inputResponses": {"first": {"action": "accept", "content": {"name": "A"}}}});

    let r = RawPeer::over(&rotated.server, Wire::InProcess)
        .call(2, elicitation(), retry.clone())
        .await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let r = RawPeer::over(&retired.server, Wire::InProcess)
        .call(2, elicitation(), retry)
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[tokio::test]
async fn the_client_gives_up_after_max_rounds() {
    let f = fixture();
    let prompts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = prompts.clone();
    let builder = presa::client::Client::builder()
        .max_rounds(3)
        .on_elicitation(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { ElicitResult::accept(json!({"ok": true})) }
        });
    let c = client(builder, &f.server, Wire::InProcess);
    let err = c.call_tool("endless", json!({})).await.unwrap_err();
    assert_eq!(
        prompts.load(Ordering::SeqCst),
        3,
        "the user is never asked in vain"
    );
    assert_eq!(err, ClientError::TooManyRounds { max_rounds: 3 });
    assert!(err.to_string().contains("more than 3 times"));
}

#[tokio::test]
async fn the_client_reports_a_missing_capability() {
    let f = fixture();
    let c = client(presa::client::Client::builder(), &f.server, Wire::Stdio);
    let err = c
        .call_tool("build", json!({"target": "docs"}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(-32021));
}

#[tokio::test]
async fn sampling_and_roots_round_trip() {
    let f = fixture();
    for wire in WIRES {
        let c = client(
            presa::client::Client::builder()
                .on_sampling(|input| async move {
                    assert_eq!(input.params.max_tokens, 64);
                    CreateMessageResult {
                        role: Role::Assistant,
                        content: SamplingContent::One(Content::text("Paris")),
                        model: "test-model".into(),
                        stop_reason: Some("endTurn".into()),
                    }
                })
                .on_roots(|_| async {
                    vec![
                        Root {
                            uri: "file:///a".into(),
                            name: None,
                        },
                        Root {
                            uri: "file:///b".into(),
                            name: Some("b".into()),
                        },
                    ]
                }),
            &f.server,
            wire,
        );
        let r = c
            .call_tool("ask_model", json!({"question": "Capital of France?"}))
            .await
            .unwrap();
        assert_eq!(r.text(), Some("Paris"));
        let r = c.call_tool("roots", json!({})).await.unwrap();
        assert_eq!(r.text(), Some("file:///a,file:///b"));
    }
}

#[tokio::test]
async fn a_step_at_a_time() {
    use presa::client::{CallStep, ToolCall};
    let f = fixture();
    let c = client(accepting(json!({"ok": true})), &f.server, Wire::InProcess);
    let mut call = ToolCall::new(
        "build",
        json!({"target": "web"}).as_object().unwrap().clone(),
    );
    let CallStep::InputRequired(input) = c.call_tool_step(&call).await.unwrap() else {
        panic!("expected input_required");
    };
    let state = input.request_state.clone().unwrap();
    call.input_responses = Some(
        c.answer_input_requests(input.input_requests.unwrap())
            .await
            .unwrap(),
    );
    call.request_state = Some(state);
    let CallStep::Complete(result) = c.call_tool_step(&call).await.unwrap() else {
        panic!("expected complete");
    };
    assert_eq!(result.text(), Some("built web"));
}

#[tokio::test]
async fn url_elicitation_needs_the_url_mode() {
    let f = fixture();
    let mut peer = RawPeer::over(&f.server, Wire::InProcess);
    let r = peer
        .call(1, elicitation(), json!({"name": "connect_account"}))
        .await;
    assert_eq!(
        r["error"]["code"], -32021,
        "form-only clients are not sent URLs"
    );
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );

    let url_client = json!({"elicitation": {"url": {}}});
    let r = peer
        .call(2, url_client, json!({"name": "connect_account"}))
        .await;
    assert_eq!(
        r["result"]["inputRequests"]["login"],
        json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in to continue", "url": "https://example.com/login"}})
    );

    let c = client(
        accepting(json!({})).url_elicitation(true),
        &f.server,
        Wire::Stdio,
    );
    let result = c.call_tool("connect_account", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("Accept"));
}
