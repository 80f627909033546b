//! Resources and resource templates: listing, reading text and binary
//! contents, template matching and typed variables, caching hints, MRTR
//! inside `resources/read`, and the errors, on every wire.

use crate::common;

use common::surface::surface_server;
use common::{RawPeer, WIRES, elicitation, error_code, meta};
use serde_json::{Value, json};

fn read(uri: &str) -> Value {
    json!({"uri": uri, "_meta": meta(json!({}))})
}

/// Every entry of a paginated list, following the cursors.
async fn list_all(peer: &mut RawPeer, method: &str, field: &str) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut cursor = Value::Null;
    let mut id = 0;
    loop {
        id += 1;
        let mut params = json!({"_meta": meta(json!({}))});
        if !cursor.is_null() {
            params["cursor"] = cursor.clone();
        }
        let result = peer.request(id, method, params).await["result"].take();
        assert_eq!(result["cacheScope"], "public");
        entries.extend(result[field].as_array().unwrap().iter().cloned());
        cursor = result.get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            return entries;
        }
    }
}

#[tokio::test]
async fn resources_and_templates_are_listed_apart_and_paged() {
    let server = surface_server(|b| b.page_size(2));
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let resources = list_all(&mut peer, "resources/list", "resources").await;
        assert_eq!(
            resources,
            [
                json!({"uri": "file:///project/README.md", "name": "readme",
                       "description": "The project's readme.", "mimeType": "text/markdown"}),
                json!({"uri": "file:///project/logo.png", "name": "logo",
                       "description": "The project's logo.", "mimeType": "image/png"}),
                json!({"uri": "file:///project/src/", "name": "sources",
                       "description": "The project's sources, as a directory."}),
                json!({"uri": "broken://resource", "name": "broken_resource",
                       "description": "Panics while reading."}),
            ],
            "{wire:?}"
        );
        let templates = list_all(&mut peer, "resources/templates/list", "resourceTemplates").await;
        let uris: Vec<_> = templates.iter().map(|t| t["uriTemplate"].clone()).collect();
        assert_eq!(
            uris,
            [
                "users://{id}/profile",
                "file:///project/{+path}",
                "notes://{name}"
            ]
        );
        assert_eq!(templates[1]["title"], "Project files");
        assert_eq!(templates[0]["mimeType"], "application/json");
    }
}

#[tokio::test]
async fn text_and_binary_contents_carry_their_type_and_caching_hints() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let readme = peer
            .request(1, "resources/read", read("file:///project/README.md"))
            .await;
        assert_eq!(
            readme["result"]["contents"],
            json!([{"uri": "file:///project/README.md", "mimeType": "text/markdown",
                    "text": "# Project"}]),
            "{wire:?}"
        );
        assert_eq!(readme["result"]["ttlMs"], 60000);
        assert_eq!(readme["result"]["cacheScope"], "public");
        assert_eq!(readme["result"]["resultType"], "complete");

        let logo = peer
            .request(2, "resources/read", read("file:///project/logo.png"))
            .await;
        assert_eq!(
            logo["result"]["contents"],
            json!([{"uri": "file:///project/logo.png", "mimeType": "image/png",
                    "blob": "iVBORw=="}])
        );
        // Without hints a read is immediately stale and private.
        assert_eq!(logo["result"]["ttlMs"], 0);
        assert_eq!(logo["result"]["cacheScope"], "private");

        let sources = peer
            .request(3, "resources/read", read("file:///project/src/"))
            .await;
        let uris: Vec<_> = sources["result"]["contents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["uri"].clone())
            .collect();
        assert_eq!(
            uris,
            ["file:///project/src/main.rs", "file:///project/src/lib.rs"]
        );
    }
}

#[tokio::test]
async fn templates_match_and_type_their_variables() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let profile = peer
            .request(1, "resources/read", read("users://12/profile"))
            .await;
        let contents = &profile["result"]["contents"][0];
        assert_eq!(contents["uri"], "users://12/profile", "{wire:?}");
        assert_eq!(contents["mimeType"], "application/json");
        let body: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
        assert_eq!(body, json!({"id": 12, "name": "Brendan"}));

        let file = peer
            .request(
                2,
                "resources/read",
                read("file:///project/docs/my%20notes.md"),
            )
            .await;
        assert_eq!(
            file["result"]["contents"][0]["text"],
            "contents of docs/my notes.md"
        );
        // The fixed resource wins over the template that also matches it.
        let readme = peer
            .request(3, "resources/read", read("file:///project/README.md"))
            .await;
        assert_eq!(readme["result"]["contents"][0]["text"], "# Project");
    }
}

#[tokio::test]
async fn unknown_uris_and_refused_reads_are_invalid_params_naming_the_uri() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        for (id, uri) in [
            (1, "file:///elsewhere/x"),
            (2, "users:///profile"),
            (3, "nope"),
        ] {
            let r = peer.request(id, "resources/read", read(uri)).await;
            assert_eq!(error_code(&r), -32602, "{wire:?} {uri}");
            assert_eq!(r["error"]["data"], json!({"uri": uri}));
        }
        let not_a_number = peer
            .request(4, "resources/read", read("users://ada/profile"))
            .await;
        assert_eq!(error_code(&not_a_number), -32602);
        assert_eq!(
            not_a_number["error"]["data"],
            json!({"uri": "users://ada/profile"})
        );
        let message = not_a_number["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`id`") && message.contains("\"ada\""),
            "{message}"
        );

        let no_such_user = peer
            .request(5, "resources/read", read("users://7/profile"))
            .await;
        assert_eq!(error_code(&no_such_user), -32602);
        assert_eq!(no_such_user["error"]["message"], "there is no user 7");
        assert_eq!(
            no_such_user["error"]["data"],
            json!({"uri": "users://7/profile"})
        );

        let broken = peer
            .request(6, "resources/read", read("broken://resource"))
            .await;
        assert_eq!(error_code(&broken), -32603);
        assert_eq!(broken["error"]["message"], "Internal error");
        assert!(broken["error"].get("data").is_none());
    }
}

#[tokio::test]
async fn a_read_asks_for_input_over_mrtr() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let mut params = read("notes://diary");
        params["_meta"] = meta(elicitation());
        let first = peer.request(1, "resources/read", params.clone()).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{wire:?}");
        assert!(first["result"].get("ttlMs").is_none());
        let state = first["result"]["requestState"].clone();

        let mut retry = params.clone();
        retry["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        retry["requestState"] = state.clone();
        let done = peer.request(2, "resources/read", retry.clone()).await;
        assert_eq!(done["result"]["contents"][0]["text"], "the note diary");

        // The state is bound to the URI.
        retry["uri"] = json!("notes://secrets");
        let refused = peer.request(3, "resources/read", retry).await;
        assert_eq!(error_code(&refused), -32602);
    }
}

/// Answers travel by key: a first `resources/read` may answer its question
/// ahead, without a `requestState`.
#[tokio::test]
async fn a_first_read_may_answer_ahead() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let mut params = read("notes://diary");
        params["_meta"] = meta(elicitation());
        params["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let first = peer.request(1, "resources/read", params).await;
        assert_eq!(
            first["result"]["resultType"], "complete",
            "{wire:?}: {first}"
        );
    }
}
