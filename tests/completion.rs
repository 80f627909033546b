//! `completion/complete` for prompt arguments and template variables, and
//! the capabilities `server/discover` advertises for the whole surface.

use crate::common;

use common::surface::surface_server;
use common::{RawPeer, WIRES, error_code, meta};
use serde_json::{Value, json};

fn complete(reference: Value, name: &str, value: &str, context: Option<Value>) -> Value {
    let mut params = json!({
        "ref": reference,
        "argument": {"name": name, "value": value},
        "_meta": meta(json!({}))
    });
    if let Some(arguments) = context {
        params["context"] = json!({"arguments": arguments});
    }
    params
}

fn prompt(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

fn template(uri: &str) -> Value {
    json!({"type": "ref/resource", "uri": uri})
}

#[tokio::test]
async fn a_prompt_argument_completes_with_the_other_arguments_as_context() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let r = peer
            .request(
                1,
                "completion/complete",
                complete(prompt("code_review"), "language", "", None),
            )
            .await;
        assert_eq!(
            r["result"]["completion"],
            json!({"values": ["python", "rust"], "total": 2, "hasMore": false}),
            "{wire:?}"
        );
        assert_eq!(r["result"]["resultType"], "complete");
        let strict = complete(
            prompt("code_review"),
            "language",
            "",
            Some(json!({"style": "strict"})),
        );
        let r = peer.request(2, "completion/complete", strict).await;
        assert_eq!(r["result"]["completion"]["values"], json!(["rust"]));
        let typed = complete(prompt("code_review"), "language", "py", None);
        let r = peer.request(3, "completion/complete", typed).await;
        assert_eq!(r["result"]["completion"]["values"], json!(["python"]));
    }
}

#[tokio::test]
async fn a_template_variable_completes_from_application_state() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let r = peer
            .request(
                1,
                "completion/complete",
                complete(template("users://{id}/profile"), "id", "1", None),
            )
            .await;
        assert_eq!(
            r["result"]["completion"]["values"],
            json!(["1", "12"]),
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn at_most_a_hundred_values_say_how_many_there_are() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::Stdio);
    let r = peer
        .request(
            1,
            "completion/complete",
            complete(prompt("pick"), "n", "", None),
        )
        .await;
    let completion = &r["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(completion["values"][0], "0");
    assert_eq!(completion["total"], 150);
    assert_eq!(completion["hasMore"], true);
}

#[tokio::test]
async fn arguments_without_a_completer_have_no_suggestions() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    for (id, reference, argument) in [
        (1, prompt("pick"), "other"),
        (2, template("file:///project/{+path}"), "path"),
    ] {
        let r = peer
            .request(
                id,
                "completion/complete",
                complete(reference, argument, "x", None),
            )
            .await;
        assert_eq!(r["result"]["completion"]["values"], json!([]));
    }
}

#[tokio::test]
async fn unknown_references_and_arguments_are_invalid_params() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let cases = [
            (prompt("nope"), "x"),
            (prompt("code_review"), "nope"),
            (template("users://{nope}"), "nope"),
            (template("users://{id}/profile"), "nope"),
            (template("file:///project/README.md"), "path"),
        ];
        for (id, (reference, argument)) in (1..).zip(cases) {
            let r = peer
                .request(
                    id,
                    "completion/complete",
                    complete(reference.clone(), argument, "", None),
                )
                .await;
            assert_eq!(error_code(&r), -32602, "{wire:?} {reference} {argument}");
        }
        let unknown = peer
            .request(
                9,
                "completion/complete",
                complete(template("users://{nope}"), "nope", "", None),
            )
            .await;
        assert_eq!(unknown["error"]["data"], json!({"uri": "users://{nope}"}));
    }
}

#[tokio::test]
async fn discover_advertises_what_the_server_offers() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let r = peer
            .request(1, "server/discover", json!({"_meta": meta(json!({}))}))
            .await;
        let capabilities = &r["result"]["capabilities"];
        assert_eq!(
            capabilities["tools"],
            json!({"listChanged": true}),
            "{wire:?}"
        );
        assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
        assert_eq!(
            capabilities["resources"],
            json!({"listChanged": true, "subscribe": true})
        );
        assert_eq!(capabilities["completions"], json!({}));
    }
}

#[tokio::test]
async fn a_server_without_prompts_resources_or_completers_does_not_serve_them() {
    let server = presa::Server::builder("bare", "1").build();
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let methods = [
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
    ];
    for (id, method) in (1..).zip(methods) {
        let r = peer
            .request(id, method, json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(error_code(&r), -32601, "{method}");
    }
    let r = peer
        .request(10, "server/discover", json!({"_meta": meta(json!({}))}))
        .await;
    let capabilities = r["result"]["capabilities"].as_object().unwrap();
    let mut names: Vec<_> = capabilities.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["logging", "tools"]);
}
