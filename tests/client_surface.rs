//! The client's side of prompts, resources, completion and listening,
//! against a real server on every wire.

use crate::common;

use common::surface::surface_server;
use common::{WIRES, accepting, client};
use presa::client::prelude::*;
use presa::client::{ClientError, SubscriptionEvent};
use presa::prelude::*;
use presa::wire::{CompleteParams, CompletionReference, Content, Role};
use serde_json::{Value, json};

#[tokio::test]
async fn lists_follow_their_cursors() {
    let server = surface_server(|b| b.page_size(2));
    for wire in WIRES {
        let client = client(Client::builder(), &server, wire);
        let prompts: Vec<_> = client.list_prompts().await.unwrap();
        let names: Vec<_> = prompts.iter().map(|p| p.name.as_str()).collect();
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
        assert!(prompts[0].argument("code").unwrap().is_required());
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.len(), 4);
        assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "users://{id}/profile");
        let first = client.list_prompts_page(None).await.unwrap();
        assert_eq!(first.items.prompts.len(), 2);
        assert!(first.next_cursor.is_some());
    }
}

#[tokio::test]
async fn get_prompt_resolves_and_drives_input_rounds() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let plain = client(Client::builder(), &server, wire);
        let review = plain
            .get_prompt(
                "code_review",
                json!({"code": "x = 1", "language": "python"}),
            )
            .await
            .unwrap();
        assert_eq!(
            review.text(),
            Some("Review this Python code:\nx = 1"),
            "{wire:?}"
        );
        let showcase = plain.get_prompt("showcase", Value::Null).await.unwrap();
        assert_eq!(showcase.messages.len(), 6);
        assert_eq!(showcase.messages[1].role, Role::Assistant);
        assert!(matches!(
            showcase.messages[3].content,
            Content::ResourceLink(_)
        ));

        let agreeing = client(accepting(json!({"ok": true})), &server, wire);
        let discussion = agreeing
            .get_prompt("discuss", json!({"topic": "tests"}))
            .await
            .unwrap();
        assert_eq!(
            discussion.description.as_deref(),
            Some("A discussion of tests")
        );

        let refusing = client(accepting(json!({"ok": false})), &server, wire);
        let refused = refusing
            .get_prompt("discuss", json!({"topic": "tests"}))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Some(-32602));
    }
}

#[tokio::test]
async fn prompt_arguments_are_strings() {
    let server = surface_server(|b| b);
    let client = client(Client::builder(), &server, common::Wire::InProcess);
    for bad in [json!({"times": 3}), json!(["word"])] {
        let error = client.get_prompt("repeat", bad).await.unwrap_err();
        assert!(matches!(error, ClientError::InvalidArguments(_)), "{error}");
    }
}

#[tokio::test]
async fn read_resource_reads_text_blobs_and_templates() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let plain = client(Client::builder(), &server, wire);
        let readme = plain
            .read_resource("file:///project/README.md")
            .await
            .unwrap();
        assert_eq!(readme.text(), Some("# Project"), "{wire:?}");
        assert_eq!(readme.ttl_ms, 60_000);
        let logo = plain
            .read_resource("file:///project/logo.png")
            .await
            .unwrap();
        assert_eq!(logo.contents[0].as_blob(), Some("iVBORw=="));
        let profile = plain.read_resource("users://2/profile").await.unwrap();
        assert_eq!(profile.text(), Some(r#"{"id":2,"name":"Grace"}"#));
        let missing = plain.read_resource("users://9/profile").await.unwrap_err();
        assert!(missing.is_resource_not_found());
        let ClientError::Rpc(error) = missing else {
            panic!("expected an error from the server, got {missing:?}");
        };
        assert_eq!(error.data, Some(json!({"uri": "users://9/profile"})));

        let agreeing = client(accepting(json!({"ok": true})), &server, wire);
        let note = agreeing.read_resource("notes://todo").await.unwrap();
        assert_eq!(note.text(), Some("the note todo"));
    }
}

#[tokio::test]
async fn complete_suggests_for_both_kinds_of_reference() {
    let server = surface_server(|b| b);
    for wire in WIRES {
        let client = client(Client::builder(), &server, wire);
        let languages =
            CompleteParams::new(CompletionReference::prompt("code_review"), "language", "")
                .with_argument("style", "strict");
        let completion = client.complete(languages).await.unwrap();
        assert_eq!(completion.values, ["rust"], "{wire:?}");
        let ids = CompleteParams::new(
            CompletionReference::resource("users://{id}/profile"),
            "id",
            "",
        );
        let completion = client.complete(ids).await.unwrap();
        assert_eq!(completion.values, ["1", "12", "2"]);
        assert_eq!(
            (completion.total, completion.has_more),
            (Some(3), Some(false))
        );
    }
}

/// A tool added while a client listens.
#[tool]
async fn added() -> &'static str {
    "added"
}

#[tokio::test]
async fn listen_yields_list_changes_and_resource_updates() {
    for wire in WIRES {
        let server = surface_server(|b| b);
        let client = client(Client::builder(), &server, wire);
        let filter = SubscriptionFilter::new()
            .tools_list_changed()
            .prompts_list_changed()
            .resource("users://1/profile");
        let mut subscription = client.listen(filter.clone()).await.unwrap();
        assert_eq!(subscription.acknowledged(), &filter, "{wire:?}");

        server.add_tool(AddedTool).unwrap();
        assert_eq!(
            subscription.next().await,
            Some(SubscriptionEvent::ToolsListChanged)
        );
        server.resource_updated("users://1/profile");
        assert_eq!(
            subscription.next().await,
            Some(SubscriptionEvent::ResourceUpdated {
                uri: "users://1/profile".into()
            })
        );
        server.remove_prompt("pick");
        assert_eq!(
            subscription.next().await,
            Some(SubscriptionEvent::PromptsListChanged)
        );
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.last().unwrap().name, "added");
        assert!(subscription.end().is_none());
    }
}
