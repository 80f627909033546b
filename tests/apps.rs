//! MCP Apps, server side (see `presa::server::apps`): a view served with
//! `resources/read` and listed with its `_meta.ui`, a tool's link to it,
//! app-only tools listed only to hosts that render views (in both eras),
//! the refusal of a link to a view the server does not serve, and the
//! text a linked tool still returns to hosts without Apps.

use crate::common;

use async_trait::async_trait;
use common::{RawPeer, WIRES, Wire, meta};
use presa::prelude::*;
use presa::server::apps::UiResource;
use presa::server::{ToolHandler, ToolResult};
use presa::wire::{
    CallToolResult, MCP_APP_MIME_TYPE, Tool, ToolUi, UI_EXTENSION, UiClientSettings, UiCsp,
    UiPermissions, UiUri, UiVisibility,
};
use serde_json::{Map, Value, json};

const VIEW: &str = "ui://jobs/dashboard";
const HTML: &str = "<!doctype html><title>Jobs</title><p id=jobs></p>";

/// Builds a target: linked to the view, callable by the model and the view.
#[tool(ui = "ui://jobs/dashboard")]
async fn build(target: String) -> String {
    format!("built {target}")
}

/// The jobs, for the view only.
#[tool(ui = "ui://jobs/dashboard", visibility = "app", read_only)]
async fn list_jobs() -> String {
    "no jobs".into()
}

/// Says hello, for the model only.
#[tool(ui = "ui://jobs/dashboard", visibility = "model")]
async fn hello() -> String {
    "hello".into()
}

fn view() -> UiResource {
    UiResource::html(VIEW, "Jobs dashboard", HTML)
        .description("The jobs, and a button")
        .csp(UiCsp::new().connect("https://api.example.com"))
        .permissions(UiPermissions {
            clipboard_write: true,
            ..Default::default()
        })
        .prefers_border(true)
}

fn server() -> Server {
    Server::builder("apps", "1")
        .tool(BuildTool)
        .tool(ListJobsTool)
        .tool(HelloTool)
        .ui(view())
        .build()
}

/// The capabilities of a host that renders views.
fn apps_host() -> Value {
    json!({"extensions": {UI_EXTENSION: UiClientSettings::html().to_settings()}})
}

fn with_meta(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    params
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

fn the_view_meta() -> Value {
    json!({"ui": {
        "csp": {"connectDomains": ["https://api.example.com"]},
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": true
    }})
}

#[tokio::test]
async fn a_view_is_read_with_its_mime_type_and_meta() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let params = with_meta(json!({"uri": VIEW}), json!({}));
        let response = peer.request(1, "resources/read", params).await;
        let contents = &response["result"]["contents"];
        assert_eq!(contents.as_array().unwrap().len(), 1, "{response}");
        assert_eq!(contents[0]["uri"], VIEW);
        assert_eq!(contents[0]["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(contents[0]["text"], HTML);
        assert_eq!(contents[0]["_meta"], the_view_meta());
        assert_eq!(response["result"]["cacheScope"], "public");
    }
}

#[tokio::test]
async fn a_view_is_listed_with_its_meta() {
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let params = with_meta(json!({}), json!({}));
    let response = peer.request(1, "resources/list", params).await;
    let resources = response["result"]["resources"].as_array().unwrap();
    let listed = resources.iter().find(|r| r["uri"] == VIEW).unwrap();
    assert_eq!(listed["mimeType"], MCP_APP_MIME_TYPE);
    assert_eq!(listed["name"], "Jobs dashboard");
    assert_eq!(listed["description"], "The jobs, and a button");
    assert_eq!(listed["size"], HTML.len());
    assert_eq!(listed["_meta"], the_view_meta());
}

#[tokio::test]
async fn a_linked_tool_names_its_view_and_who_may_call_it() {
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let response = peer
        .request(1, "tools/list", with_meta(json!({}), apps_host()))
        .await;
    let tools = &response["result"]["tools"];
    let tool = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} is listed: {tools}"))
            .clone()
    };
    assert_eq!(
        tool("build")["_meta"],
        json!({"ui": {"resourceUri": VIEW}, "ui/resourceUri": VIEW})
    );
    assert_eq!(
        tool("list_jobs")["_meta"]["ui"],
        json!({"resourceUri": VIEW, "visibility": ["app"]})
    );
    assert_eq!(
        tool("hello")["_meta"]["ui"],
        json!({"resourceUri": VIEW, "visibility": ["model"]})
    );
}

#[tokio::test]
async fn an_app_only_tool_is_listed_only_to_a_host_that_renders_views() {
    let server = server();
    let cases = [
        (json!({}), false),
        // Declared, but without the MIME type the views have.
        (json!({"extensions": {UI_EXTENSION: {}}}), false),
        (
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/uri-list"]}}}),
            false,
        ),
        (apps_host(), true),
    ];
    for (capabilities, shown) in cases {
        let mut peer = RawPeer::over(&server, Wire::InProcess);
        let response = peer
            .request(1, "tools/list", with_meta(json!({}), capabilities.clone()))
            .await;
        let listed = names(&response["result"]["tools"]);
        assert!(listed.contains(&"build"), "{listed:?}");
        assert!(listed.contains(&"hello"), "{listed:?}");
        assert_eq!(
            listed.contains(&"list_jobs"),
            shown,
            "{capabilities}: {listed:?}"
        );
        // `_meta.ui` goes to every caller: a host without Apps ignores it.
        let build = &response["result"]["tools"][0];
        assert_eq!(build["_meta"]["ui"]["resourceUri"], VIEW);
        // The list depends on the host, so no cache may share it.
        assert_eq!(
            response["result"]["cacheScope"], "private",
            "{capabilities}"
        );
    }
}

/// Echoes its text; linked to no view.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[tokio::test]
async fn a_server_without_views_keeps_its_tool_list_public() {
    let server = Server::builder("plain", "1").tool(EchoTool).build();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let response = peer
        .request(1, "tools/list", with_meta(json!({}), apps_host()))
        .await;
    assert_eq!(response["result"]["cacheScope"], "public", "{response}");
}

#[tokio::test]
async fn a_legacy_session_is_listed_what_its_initialize_declared() {
    let server = server();
    for (capabilities, shown) in [(json!({}), false), (apps_host(), true)] {
        let channel = common::connect(&server, Caller::anonymous(), Wire::InProcess);
        let (mut peer, _) = RawPeer::legacy(channel, "2025-11-25", capabilities).await;
        let response = peer.request(1, "tools/list", json!({})).await;
        let listed = names(&response["result"]["tools"]);
        assert!(listed.contains(&"build"), "{listed:?}");
        assert_eq!(listed.contains(&"list_jobs"), shown, "{listed:?}");
        let build = response["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "build")
            .unwrap()
            .clone();
        assert_eq!(build["_meta"]["ui"]["resourceUri"], VIEW);
    }
}

#[tokio::test]
async fn an_app_only_tool_answers_a_call_by_name_from_any_host() {
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    let response = peer
        .call(1, json!({}), json!({"name": "list_jobs", "arguments": {}}))
        .await;
    assert_eq!(response["result"]["content"][0]["text"], "no jobs");
}

#[tokio::test]
async fn a_linked_tool_still_answers_in_text_to_a_host_without_apps() {
    let server = server();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let params = json!({"name": "build", "arguments": {"target": "docs"}});
        let response = peer.call(1, json!({}), params).await;
        assert_eq!(
            response["result"]["content"],
            json!([{"type": "text", "text": "built docs"}])
        );
        assert!(response["result"].get("isError").is_none_or(|e| e == false));
    }
}

#[test]
#[should_panic(
    expected = "tool `build` links to the UI resource `ui://jobs/dashboard`, \
                           which this server does not serve; register it with \
                           ServerBuilder::ui before the server is built, or fix the URI"
)]
fn a_link_to_a_view_the_server_does_not_serve_is_refused_at_build() {
    Server::builder("apps", "1").tool(BuildTool).build();
}

#[test]
#[should_panic(expected = "links to the UI resource `ui://jobs/dashboard`")]
fn a_link_to_another_resource_uri_is_refused_at_build() {
    Server::builder("apps", "1")
        .ui(UiResource::html("ui://jobs/dashbord", "Typo", HTML))
        .tool(BuildTool)
        .build();
}

#[tokio::test]
async fn a_tool_added_later_must_link_to_a_view_the_server_serves() {
    let server = Server::builder("apps", "1").ui(view()).build();
    assert!(server.add_tool(BuildTool).is_ok());
    let plain = Server::builder("apps", "1").build();
    let error = plain.add_tool(ListJobsTool).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("tool `list_jobs` links to the UI resource `ui://jobs/dashboard`"),
        "{error}"
    );
}

/// A hand-written tool with whatever `_meta` it is given.
struct Raw(Value);

#[async_trait]
impl ToolHandler for Raw {
    fn definition(&self) -> Tool {
        let mut tool = Tool::new("raw", json!({"type": "object"}));
        tool.meta = self.0.as_object().cloned();
        tool
    }

    async fn call(&self, _ctx: Context, _args: Map<String, Value>) -> ToolResult {
        Ok(CallToolResult::from_text("raw"))
    }
}

#[tokio::test]
async fn a_tool_whose_meta_ui_is_invalid_is_refused() {
    let server = Server::builder("apps", "1").ui(view()).build();
    let cases = [
        (
            json!({"ui": {"resourceUri": "https://x"}}),
            "`https://x` is not a UI resource URI",
        ),
        (
            json!({"ui": {"resourceUri": VIEW, "visibility": []}}),
            "the visibility is empty",
        ),
        (
            json!({"ui": {"visibility": ["user"]}}),
            "unknown visibility `user`",
        ),
    ];
    for (meta, expected) in cases {
        let error = server.add_tool(Raw(meta.clone())).unwrap_err().to_string();
        assert!(
            error.starts_with("tool `raw` has an invalid `_meta.ui`: ") && error.contains(expected),
            "{meta}: {error}"
        );
    }
    // A hand-written tool links with `Tool::with_ui`.
    let link = ToolUi::new(UiUri::parse(VIEW).unwrap()).visibility(UiVisibility::App);
    let linked = Tool::new("raw", json!({"type": "object"})).with_ui(&link);
    assert!(
        server
            .add_tool(Raw(Value::Object(linked.meta.unwrap())))
            .is_ok()
    );
}
