//! Scopes on handlers: `#[tool(scopes = [...])]` and its kin refuse the
//! callers that lack them, on every transport, in both eras; lists show
//! what the server is told to; a hierarchy counts broader scopes.

use crate::common;

use presa::prelude::*;
use presa::server::{Listing, ServerBuilder};
use serde_json::{Value, json};

use common::{RawPeer, Wire, connect};

/// Deploys a build.
#[tool(scopes = ["jobs:deploy", "jobs:read"])]
async fn deploy(target: String) -> String {
    format!("deployed {target}")
}

/// Reviews code.
#[prompt(scopes = ["review"])]
async fn code_review(#[param(complete = snippets)] code: String) -> String {
    format!("Review {code}")
}

/// The snippets a reviewer may pick, whatever was typed.
fn snippets(_typed: &str, _ctx: &presa::server::CompletionContext) -> Vec<String> {
    vec!["main.rs".into()]
}

/// The job log.
#[resource(uri = "jobs://log", scopes = ["jobs:read"])]
async fn job_log() -> String {
    "all good".into()
}

/// What the call's scopes are, by the extractor.
#[tool]
async fn my_scopes(scopes: Scopes) -> String {
    scopes.to_string()
}

fn server(configure: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Server {
    configure(
        Server::builder("scoped", "1.0.0")
            .tool(DeployTool)
            .tool(MyScopesTool)
            .prompt(CodeReviewPrompt)
            .resource(JobLogResource),
    )
    .build()
}

fn peer(server: &Server, caller: Caller) -> RawPeer {
    RawPeer::new(connect(server, caller, Wire::Stdio))
}

async fn deploy_as(server: &Server, caller: Caller) -> Value {
    let mut peer = peer(server, caller);
    peer.call(
        1,
        json!({}),
        json!({"name": "deploy", "arguments": {"target": "prod"}}),
    )
    .await
}

#[tokio::test]
async fn a_caller_without_every_scope_is_refused_before_the_tool_runs() {
    let server = server(|b| b);
    let reader = Caller::subject("rita").scopes(["jobs:read"]);
    let refused = deploy_as(&server, reader).await;
    assert_eq!(refused["error"]["code"], -31004, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["jobs:deploy", "jobs:read"])
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("tool `deploy`") && message.contains("jobs:deploy jobs:read"));

    let deployer = Caller::subject("dan").scopes(["jobs:read", "jobs:deploy"]);
    let done = deploy_as(&server, deployer).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed prod",
        "{done}"
    );
    // A local caller (stdio, in-process) holds every scope.
    let local = deploy_as(&server, Caller::anonymous()).await;
    assert_eq!(local["result"]["content"][0]["text"], "deployed prod");
}

#[tokio::test]
async fn a_broader_scope_counts_for_the_narrower_ones_it_implies() {
    let server = server(|b| b.scope_implies("jobs:admin", ["jobs:deploy", "jobs:read"]));
    let admin = Caller::subject("ada").scopes(["jobs:admin"]);
    let done = deploy_as(&server, admin).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed prod",
        "{done}"
    );
}

#[tokio::test]
async fn prompts_and_resources_are_scoped_the_same_way() {
    let server = server(|b| b);
    let mut stranger = peer(&server, Caller::subject("sam"));
    let meta = common::meta(json!({}));
    let prompt = stranger
        .request(
            1,
            "prompts/get",
            json!({"name": "code_review", "arguments": {"code": "x"}, "_meta": meta}),
        )
        .await;
    assert_eq!(prompt["error"]["code"], -31004, "{prompt}");
    let read = stranger
        .request(
            2,
            "resources/read",
            json!({"uri": "jobs://log", "_meta": meta}),
        )
        .await;
    assert_eq!(read["error"]["code"], -31004, "{read}");
    // Completing a scoped prompt's arguments is using the prompt.
    let complete = json!({
        "ref": {"type": "ref/prompt", "name": "code_review"},
        "argument": {"name": "code", "value": "x"},
        "_meta": meta,
    });
    let completion = stranger
        .request(3, "completion/complete", complete.clone())
        .await;
    assert_eq!(completion["error"]["code"], -31004, "{completion}");
    let mut reviewer = peer(
        &server,
        Caller::subject("rev").scopes(["review", "jobs:read"]),
    );
    let prompt = reviewer
        .request(
            1,
            "prompts/get",
            json!({"name": "code_review", "arguments": {"code": "x"}, "_meta": meta}),
        )
        .await;
    assert!(prompt["result"].is_object(), "{prompt}");
    let read = reviewer
        .request(
            2,
            "resources/read",
            json!({"uri": "jobs://log", "_meta": meta}),
        )
        .await;
    assert_eq!(read["result"]["contents"][0]["text"], "all good", "{read}");
    let completion = reviewer
        .request(3, "completion/complete", complete.clone())
        .await;
    assert_eq!(
        completion["result"]["completion"]["values"],
        json!(["main.rs"]),
        "{completion}"
    );
}

/// The tool names `tools/list` shows `caller`, and the list's cacheScope.
async fn listed(server: &Server, caller: Caller) -> (Vec<String>, Value) {
    let mut peer = peer(server, caller);
    let list = peer
        .request(1, "tools/list", json!({"_meta": common::meta(json!({}))}))
        .await;
    let names = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    (names, list["result"]["cacheScope"].clone())
}

#[tokio::test]
async fn lists_show_everything_by_default_and_only_what_is_permitted_when_asked() {
    let stranger = || Caller::subject("sam");
    let (all, scope) = listed(&server(|b| b), stranger()).await;
    assert_eq!(all, ["deploy", "my_scopes"]);
    assert_eq!(scope, "public");
    let hiding = server(|b| b.listing(Listing::Permitted));
    let (permitted, scope) = listed(&hiding, stranger()).await;
    assert_eq!(permitted, ["my_scopes"]);
    assert_eq!(
        scope, "private",
        "a list that depends on the caller is private"
    );
    let deployer = Caller::subject("dan").scopes(["jobs:read", "jobs:deploy"]);
    assert_eq!(listed(&hiding, deployer).await.0, ["deploy", "my_scopes"]);
}

#[tokio::test]
async fn the_scopes_extractor_sees_the_callers_scopes() {
    let server = server(|b| b);
    let mut peer = peer(&server, Caller::subject("x").scopes(["b", "a"]));
    let answer = peer
        .call(1, json!({}), json!({"name": "my_scopes", "arguments": {}}))
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "a b", "{answer}");
}

#[test]
#[should_panic(expected = "declares scope \"a\\\"b\", which is not an OAuth scope token")]
fn a_hand_written_handler_with_a_malformed_scope_is_refused_at_registration() {
    use presa::server::{ToolHandler, ToolResult};
    use presa::wire::Tool;
    struct Quoted;
    #[async_trait::async_trait]
    impl ToolHandler for Quoted {
        fn definition(&self) -> Tool {
            Tool::new("quoted", json!({"type": "object"}))
        }
        fn scopes(&self) -> &'static [&'static str] {
            &["a\"b"]
        }
        async fn call(&self, _: Context, _: serde_json::Map<String, Value>) -> ToolResult {
            unreachable!("never registered")
        }
    }
    let _ = Server::builder("s", "1").tool(Quoted);
}

/// Hides whatever a caller lacks the scopes of, and `my_scopes` from
/// `sam`: a visibility filter driven by the handlers' scopes and by a
/// rule of the application's own.
fn filtered() -> Server {
    server(|b| {
        b.visibility(|caller, item| {
            let permitted = item.scopes().iter().all(|s| caller.scopes.contains(s));
            let own_rule =
                !(item.name() == "my_scopes" && caller.subject.as_deref() == Some("sam"));
            permitted && own_rule
        })
    })
}

#[tokio::test]
async fn a_visibility_filter_hides_handlers_from_lists_and_makes_them_private() {
    let server = filtered();
    let (names, scope) = listed(&server, Caller::subject("sam")).await;
    assert!(names.is_empty(), "{names:?}");
    assert_eq!(scope, "private", "lists that differ by caller are private");
    let (names, _) = listed(&server, Caller::subject("rita").scopes(["jobs:read"])).await;
    assert_eq!(names, ["my_scopes"]);
    let deployer = Caller::subject("dan").scopes(["jobs:read", "jobs:deploy"]);
    assert_eq!(listed(&server, deployer).await.0, ["deploy", "my_scopes"]);

    let mut sam = peer(&server, Caller::subject("sam"));
    let meta = common::meta(json!({}));
    for (id, method) in [(1, "prompts/list"), (2, "resources/list")] {
        let list = sam.request(id, method, json!({"_meta": meta})).await;
        let items = list["result"]
            .as_object()
            .unwrap()
            .values()
            .find_map(Value::as_array)
            .unwrap();
        assert!(items.is_empty(), "{list}");
        assert_eq!(list["result"]["cacheScope"], "private", "{list}");
    }
}

#[tokio::test]
async fn a_hidden_handler_is_answered_as_unknown_not_refused() {
    let server = filtered();
    let hidden = deploy_as(&server, Caller::subject("rita").scopes(["jobs:read"])).await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    let mut peer_of_unknown = peer(&server, Caller::anonymous());
    let nothing = peer_of_unknown
        .call(
            1,
            json!({}),
            json!({"name": "no_such_tool", "arguments": {}}),
        )
        .await;
    assert_eq!(
        hidden["error"]["message"]
            .as_str()
            .unwrap()
            .replace("deploy", "X"),
        nothing["error"]["message"]
            .as_str()
            .unwrap()
            .replace("no_such_tool", "X"),
        "a hidden tool reads as one that does not exist"
    );

    let mut sam = peer(&server, Caller::subject("sam"));
    let meta = common::meta(json!({}));
    let mine = sam
        .call(2, json!({}), json!({"name": "my_scopes", "arguments": {}}))
        .await;
    assert_eq!(mine["error"]["code"], -32602, "{mine}");
    let prompt = sam
        .request(
            3,
            "prompts/get",
            json!({"name": "code_review", "arguments": {"code": "x"}, "_meta": meta}),
        )
        .await;
    assert_eq!(prompt["error"]["code"], -32602, "{prompt}");
    let read = sam
        .request(
            4,
            "resources/read",
            json!({"uri": "jobs://log", "_meta": meta}),
        )
        .await;
    assert_eq!(read["error"]["code"], -32602, "{read}");
    assert_eq!(read["error"]["data"]["uri"], "jobs://log", "{read}");
    let completion = sam
        .request(
            5,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "code_review"},
                   "argument": {"name": "code", "value": "x"}, "_meta": meta}),
        )
        .await;
    assert_eq!(completion["error"]["code"], -32602, "{completion}");

    let deployer = Caller::subject("dan").scopes(["jobs:read", "jobs:deploy"]);
    let deployed = deploy_as(&server, deployer).await;
    assert_eq!(deployed["result"]["content"][0]["text"], "deployed prod");
}
