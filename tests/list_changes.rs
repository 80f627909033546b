//! What a running server offers can change: tools, prompts and resources
//! come and go, `subscriptions/listen` streams that asked hear of it, and
//! the application reports resource updates. Time is paused, so "nothing
//! arrives" is checked once every task is idle, not by waiting.

use crate::common;

use std::time::Duration;

use common::surface::{self, surface_server};
use common::{RawPeer, WIRES, error_code, meta};
use presa::prelude::*;
use presa::server::RegistrationError;
use serde_json::{Value, json};

/// Long enough that only an idle runtime lets it pass.
const QUIET: Duration = Duration::from_secs(5);

/// Opens subscription `id` with `filter` and returns what it acknowledged.
async fn listen(peer: &mut RawPeer, id: i64, filter: Value) -> Value {
    let params = json!({"notifications": filter, "_meta": meta(json!({}))});
    let ack = peer.request(id, "subscriptions/listen", params).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    ack["params"]["notifications"].clone()
}

/// The next message, which must be `method` on subscription `id`.
async fn expect_notification(peer: &mut RawPeer, method: &str, id: i64) -> Value {
    let message = peer.recv().await;
    assert_eq!(message["method"], method, "{message}");
    assert_eq!(
        message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
        "{message}"
    );
    message
}

/// A tool added at run time.
#[tool]
async fn late(word: String) -> String {
    word
}

#[tokio::test(start_paused = true)]
async fn list_changes_reach_the_streams_that_asked_for_them() {
    for wire in WIRES {
        let server = surface_server(|b| b);
        let mut peer = RawPeer::over(&server, wire);
        let all = json!({"toolsListChanged": true, "promptsListChanged": true,
                         "resourcesListChanged": true});
        assert_eq!(listen(&mut peer, 1, all.clone()).await, all, "{wire:?}");

        server.add_tool(LateTool).unwrap();
        expect_notification(&mut peer, "notifications/tools/list_changed", 1).await;
        assert!(server.remove_prompt("pick"));
        expect_notification(&mut peer, "notifications/prompts/list_changed", 1).await;
        assert!(server.remove_resource("users://{id}/profile"));
        expect_notification(&mut peer, "notifications/resources/list_changed", 1).await;
        assert!(server.remove_tool("late"));
        expect_notification(&mut peer, "notifications/tools/list_changed", 1).await;

        // Nothing changed, nothing said.
        assert!(!server.remove_tool("late"));
        assert!(!server.remove_resource("users://{id}/profile"));
        assert_eq!(peer.recv_within(QUIET).await, None);
    }
}

#[tokio::test(start_paused = true)]
async fn a_stream_hears_only_what_it_asked_for() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::Stdio);
    listen(&mut peer, 1, json!({})).await;
    let prompts_only = json!({"promptsListChanged": true, "toolsListChanged": false});
    assert_eq!(
        listen(&mut peer, 2, prompts_only).await,
        json!({"promptsListChanged": true})
    );
    server.add_tool(LateTool).unwrap();
    server.resource_updated("file:///project/README.md");
    assert!(server.remove_prompt("repeat"));
    expect_notification(&mut peer, "notifications/prompts/list_changed", 2).await;
    assert_eq!(peer.recv_within(QUIET).await, None);
}

#[tokio::test(start_paused = true)]
async fn resource_updates_reach_the_followers_of_that_uri() {
    for wire in WIRES {
        let server = surface_server(|b| b);
        let mut peer = RawPeer::over(&server, wire);
        let readme = "file:///project/README.md";
        let followed = json!({"resourceSubscriptions": [readme, "users://1/profile", readme]});
        assert_eq!(
            listen(&mut peer, 1, followed).await,
            json!({"resourceSubscriptions": [readme, "users://1/profile"]}),
            "{wire:?}"
        );
        server.resource_updated("file:///project/logo.png");
        server.resource_updated("users://1/profile");
        let update = expect_notification(&mut peer, "notifications/resources/updated", 1).await;
        assert_eq!(update["params"]["uri"], "users://1/profile");
        server.resource_updated(readme);
        let update = expect_notification(&mut peer, "notifications/resources/updated", 1).await;
        assert_eq!(update["params"]["uri"], readme);
        assert_eq!(peer.recv_within(QUIET).await, None);
    }
}

#[tokio::test]
async fn a_server_acknowledges_only_what_it_offers() {
    let server = Server::builder("bare", "1").build();
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let everything = json!({"toolsListChanged": true, "promptsListChanged": true,
                            "resourcesListChanged": true, "resourceSubscriptions": ["a:b"],
                            "somethingElse": true});
    assert_eq!(
        listen(&mut peer, 1, everything).await,
        json!({"toolsListChanged": true})
    );
}

#[tokio::test]
async fn too_many_resource_subscriptions_are_invalid_params() {
    let server = surface_server(|b| b);
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let uris: Vec<_> = (0..=presa::server::MAX_RESOURCE_SUBSCRIPTIONS)
        .map(|i| format!("notes://{i}"))
        .collect();
    let params = json!({"notifications": {"resourceSubscriptions": uris},
                        "_meta": meta(json!({}))});
    let r = peer.request(1, "subscriptions/listen", params).await;
    assert_eq!(error_code(&r), -32602);
}

#[tokio::test]
async fn the_lists_follow_the_changes_and_cursors_stay_valid() {
    let server = surface_server(|b| b.page_size(1).tool(common::BigTool));
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let first = peer
        .request(1, "tools/list", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(first["result"]["tools"][0]["name"], "add");
    let cursor = first["result"]["nextCursor"].clone();
    assert!(server.remove_tool("big"));
    server.add_tool(LateTool).unwrap();
    let next = peer
        .request(
            2,
            "tools/list",
            json!({"cursor": cursor, "_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(next["result"]["tools"][0]["name"], "late");
    assert!(next["result"].get("nextCursor").is_none());

    let call = json!({"name": "late", "arguments": {"word": "hi"}, "_meta": meta(json!({}))});
    let r = peer.request(3, "tools/call", call).await;
    assert_eq!(r["result"]["content"][0]["text"], "hi");
    server.remove_tool("late");
    let call = json!({"name": "late", "arguments": {"word": "hi"}, "_meta": meta(json!({}))});
    let r = peer.request(4, "tools/call", call).await;
    assert_eq!(error_code(&r), -32602);
}

/// Runs only as a task.
#[tool(task = "required")]
async fn batch() -> String {
    String::new()
}

/// A resource whose URI has no scheme.
struct Schemeless;

#[async_trait::async_trait]
impl presa::server::ResourceHandler for Schemeless {
    fn definition(&self) -> presa::server::ResourceDefinition {
        presa::server::ResourceDefinition::Fixed(presa::wire::Resource::new("notes", "notes"))
    }

    async fn read(
        &self,
        _ctx: Context,
        _request: presa::server::ReadRequest,
    ) -> presa::server::ReadResult {
        Err(ToolError::new("unreachable"))
    }
}

#[tokio::test]
async fn what_cannot_run_is_refused_at_run_time_without_a_panic() {
    let server = Server::builder("bare", "1").build();
    server.add_tool(LateTool).unwrap();
    let duplicate = server.add_tool(LateTool).unwrap_err();
    assert_eq!(duplicate.to_string(), "tool `late` is registered twice");
    assert!(matches!(
        server.add_tool(BatchTool),
        Err(RegistrationError::TasksNotEnabled { .. })
    ));
    let missing = server.add_resource(surface::ProfileResource).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("resource template `users://{id}/profile` needs state of type"),
        "{missing}"
    );
    let schemeless = server.add_resource(Schemeless).unwrap_err();
    assert!(
        matches!(schemeless, RegistrationError::InvalidUri { ref item, .. } if item == "resource `notes`"),
        "{schemeless}"
    );
}

#[tokio::test]
async fn the_first_prompt_makes_the_server_offer_prompts() {
    let server = Server::builder("bare", "1").build();
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    let discover = json!({"_meta": meta(json!({}))});
    let before = peer.request(1, "server/discover", discover.clone()).await;
    assert!(before["result"]["capabilities"].get("prompts").is_none());
    server.add_prompt(surface::RepeatWordPrompt).unwrap();
    server.add_prompt(surface::CodeReviewPrompt).unwrap();
    let after = peer.request(2, "server/discover", discover.clone()).await;
    assert_eq!(
        after["result"]["capabilities"]["prompts"],
        json!({"listChanged": true})
    );
    assert_eq!(after["result"]["capabilities"]["completions"], json!({}));
    assert!(server.remove_prompt("repeat"));
    assert!(server.remove_prompt("code_review"));
    let list = peer.request(3, "prompts/list", discover.clone()).await;
    assert_eq!(list["result"]["prompts"], json!([]));
    let still = peer.request(4, "server/discover", discover).await;
    assert!(still["result"]["capabilities"].get("prompts").is_some());
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_also_follows_a_list_outlives_its_tasks() {
    let f = common::fixture();
    let mut peer = RawPeer::over(&f.server, common::Wire::Stdio);
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let call = json!({"name": "long_job", "arguments": {}, "_meta": meta(tasks.clone())});
    let created = peer.request(1, "tools/call", call).await;
    let task_id = created["result"]["taskId"].clone();
    let params = json!({"notifications": {"taskIds": [task_id], "toolsListChanged": true},
                        "_meta": meta(tasks)});
    let ack = peer.request(2, "subscriptions/listen", params).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"taskIds": [task_id], "toolsListChanged": true})
    );
    loop {
        let update = expect_notification(&mut peer, "notifications/tasks", 2).await;
        if update["params"]["status"] == "completed" {
            break;
        }
    }
    // No closing result: the list is still followed.
    assert_eq!(peer.recv_within(QUIET).await, None);
    f.server.add_tool(LateTool).unwrap();
    expect_notification(&mut peer, "notifications/tools/list_changed", 2).await;
}
