//! `resultType` as the client reads it, against a scripted fake server: a
//! value the client does not recognize is an invalid response, whichever
//! method it answers, and an absent one means `complete`.
//!
//! Time is paused, so a hang shows up as a guard timeout.

mod scripted;

use scripted::*;

use presa_runtime::client::{AwaitOptions, Client, ClientError, SubscriptionEnd};
use presa_runtime::wire::{ElicitResult, InputResponse, InputResponses};
use serde_json::{Value, json};

/// Checks that `outcome` failed as an invalid response whose message names
/// `method` and the `resultType` the server sent.
#[track_caller]
fn assert_rejected<T: std::fmt::Debug>(
    outcome: Result<T, ClientError>,
    method: &str,
    result_type: &str,
) {
    match outcome {
        Err(ClientError::InvalidResponse(message)) => {
            assert!(message.contains(method), "no `{method}` in: {message}");
            let quoted = format!("`{result_type}`");
            assert!(message.contains(&quoted), "no {quoted} in: {message}");
        }
        other => panic!("expected an invalid response, got {other:?}"),
    }
}

/// `result` with its `resultType` replaced, or removed for `None`.
fn typed(mut result: Value, result_type: Option<&str>) -> Value {
    let fields = result.as_object_mut().unwrap();
    match result_type {
        Some(kind) => fields.insert("resultType".into(), kind.into()),
        None => fields.remove("resultType"),
    };
    result
}

fn discovered(result_type: Option<&str>) -> Value {
    let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {},
                        "ttlMs": 0, "cacheScope": "public"});
    typed(result, result_type)
}

fn tools_page(result_type: Option<&str>) -> Value {
    typed(json!({"tools": []}), result_type)
}

fn acknowledged(result_type: Option<&str>) -> Value {
    typed(json!({}), result_type)
}

fn declined(key: &str) -> InputResponses {
    [(
        key.to_owned(),
        InputResponse::Elicit(ElicitResult::decline()),
    )]
    .into_iter()
    .collect()
}

#[tokio::test(start_paused = true)]
async fn discover_rejects_an_unknown_result_type() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move { client.discover().await });
    let request = peer.expect("server/discover").await;
    peer.reply(&request, discovered(Some("vintage"))).await;
    assert_rejected(asking.await.unwrap(), "server/discover", "vintage");
}

#[tokio::test(start_paused = true)]
async fn tools_list_rejects_an_unknown_result_type() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move { client.list_tools().await });
    let request = peer.expect("tools/list").await;
    peer.reply(&request, tools_page(Some("partial"))).await;
    assert_rejected(asking.await.unwrap(), "tools/list", "partial");
}

#[tokio::test(start_paused = true)]
async fn tasks_get_rejects_an_unknown_result_type() {
    let (client, mut peer, _) = tasks_client();
    let asking = tokio::spawn(async move { client.get_task("t1").await });
    let request = peer.expect("tasks/get").await;
    let working = got("t1", "working", json!({}));
    peer.reply(&request, typed(working, Some("snapshot"))).await;
    assert_rejected(asking.await.unwrap(), "tasks/get", "snapshot");
}

#[tokio::test(start_paused = true)]
async fn tasks_update_rejects_an_unknown_result_type() {
    let (client, mut peer, _) = tasks_client();
    let asking = tokio::spawn(async move { client.update_task("t1", declined("k")).await });
    let request = peer.expect("tasks/update").await;
    peer.reply(&request, acknowledged(Some("queued"))).await;
    assert_rejected(asking.await.unwrap(), "tasks/update", "queued");
}

#[tokio::test(start_paused = true)]
async fn tasks_cancel_rejects_an_unknown_result_type() {
    let (client, mut peer, _) = tasks_client();
    let asking = tokio::spawn(async move { client.cancel_task("t1").await });
    let request = peer.expect("tasks/cancel").await;
    peer.reply(&request, acknowledged(Some("cancelling"))).await;
    assert_rejected(asking.await.unwrap(), "tasks/cancel", "cancelling");
}

#[tokio::test(start_paused = true)]
async fn a_listen_ended_with_an_unknown_result_type_did_not_end_gracefully() {
    let (client, mut peer, _) = tasks_client();
    let listening = tokio::spawn(async move { client.listen_tasks(vec!["a".into()]).await });
    let listen = peer.expect("subscriptions/listen").await;
    peer.acknowledge(&listen, json!(["a"])).await;
    let mut subscription = listening.await.unwrap().unwrap();

    let closing = json!({"_meta": { SUBSCRIPTION_ID: listen["id"] }});
    peer.reply(&listen, typed(closing, Some("paused"))).await;
    assert_eq!(subscription.next().await, None, "the stream ended");
    let end = match subscription.end() {
        Some(SubscriptionEnd::Failed(e)) => Err::<(), _>(e.clone()),
        other => panic!("expected a failed end, got {other:?}"),
    };
    assert_rejected(end, "subscriptions/listen", "paused");
    drop(subscription);
    assert_eq!(
        peer.sent_next().await,
        None,
        "an answered stream is not cancelled"
    );
}

#[tokio::test(start_paused = true)]
async fn tools_call_rejects_an_unknown_result_type() {
    let (client, mut peer, _) = tasks_client();
    let calling = tokio::spawn(async move { client.call_tool("build", json!({})).await });
    let call = peer.expect("tools/call").await;
    let result = json!({"resultType": "streaming", "content": []});
    peer.reply(&call, result).await;
    assert_rejected(calling.await.unwrap(), "tools/call", "streaming");
}

#[tokio::test(start_paused = true)]
async fn a_completed_tasks_result_with_an_unknown_result_type_is_rejected() {
    let (client, mut peer, _) = tasks_client();
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });
    let get = peer.expect("tasks/get").await;
    let mut completed = completed_with("built");
    completed["result"]["resultType"] = json!("draft");
    peer.reply(&get, got("t1", "completed", completed)).await;
    assert_rejected(awaiting.await.unwrap(), "task `t1`", "draft");
}

#[tokio::test(start_paused = true)]
async fn a_method_without_rounds_rejects_input_required() {
    let (client, mut peer, _) = tasks_client();
    let asking = tokio::spawn(async move { client.update_task("t1", declined("k")).await });
    let request = peer.expect("tasks/update").await;
    peer.reply(&request, acknowledged(Some("input_required")))
        .await;
    assert_rejected(asking.await.unwrap(), "tasks/update", "input_required");
}

#[tokio::test(start_paused = true)]
async fn a_result_type_that_is_not_a_string_is_rejected() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move { client.discover().await });
    let request = peer.expect("server/discover").await;
    let mut result = discovered(None);
    result["resultType"] = json!(7);
    peer.reply(&request, result).await;
    match asking.await.unwrap() {
        Err(ClientError::InvalidResponse(m)) => {
            assert!(m.contains("server/discover") && m.contains('7'), "{m}")
        }
        other => panic!("expected an invalid response, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn an_absent_result_type_means_complete() {
    let (client, mut peer, _) = tasks_client();
    let asking = tokio::spawn(async move {
        let discovered = client.discover().await?;
        let tools = client.list_tools().await?;
        let task = client.get_task("t1").await?;
        client.update_task("t1", declined("k")).await?;
        client.cancel_task("t1").await?;
        Ok::<_, ClientError>((discovered, tools, task))
    });
    let request = peer.expect("server/discover").await;
    peer.reply(&request, discovered(None)).await;
    let request = peer.expect("tools/list").await;
    peer.reply(&request, tools_page(None)).await;
    let request = peer.expect("tasks/get").await;
    peer.reply(&request, typed(got("t1", "working", json!({})), None))
        .await;
    for method in ["tasks/update", "tasks/cancel"] {
        let request = peer.expect(method).await;
        peer.reply(&request, acknowledged(None)).await;
    }

    let (discovered, tools, task) = asking.await.unwrap().unwrap();
    assert_eq!(discovered.supported_versions, ["2026-07-28"]);
    assert!(tools.is_empty());
    assert_eq!(task.task.task_id, "t1");
}

#[tokio::test(start_paused = true)]
async fn the_surface_lists_reject_an_unknown_result_type() {
    let (client, mut peer) = connect(Client::builder());
    let listing = tokio::spawn(async move {
        let prompts = client.list_prompts().await;
        let resources = client.list_resources().await;
        let templates = client.list_resource_templates().await;
        (prompts.map(drop), resources.map(drop), templates.map(drop))
    });
    let page = |field: &str, kind| {
        typed(
            json!({ field: [], "ttlMs": 0, "cacheScope": "public" }),
            kind,
        )
    };
    let request = peer.expect("prompts/list").await;
    peer.reply(&request, page("prompts", Some("draft"))).await;
    let request = peer.expect("resources/list").await;
    peer.reply(&request, page("resources", Some("input_required")))
        .await;
    let request = peer.expect("resources/templates/list").await;
    peer.reply(&request, page("resourceTemplates", Some("task")))
        .await;
    let (prompts, resources, templates) = listing.await.unwrap();
    assert_rejected(prompts, "prompts/list", "draft");
    assert_rejected(resources, "resources/list", "input_required");
    assert_rejected(templates, "resources/templates/list", "task");
}

#[tokio::test(start_paused = true)]
async fn prompts_get_and_resources_read_reject_a_task_or_an_unknown_result_type() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move {
        let prompt = client.get_prompt("p", json!({"a": "1"})).await;
        let read = client.read_resource("file:///a").await;
        let prompt_again = client.get_prompt("p", Value::Null).await;
        (prompt.map(drop), read.map(drop), prompt_again.map(drop))
    });
    let request = peer.expect("prompts/get").await;
    assert_eq!(request["params"]["arguments"], json!({"a": "1"}));
    peer.reply(&request, typed(json!({"messages": []}), Some("task")))
        .await;
    let request = peer.expect("resources/read").await;
    let contents = json!({"contents": [], "ttlMs": 0, "cacheScope": "private"});
    peer.reply(&request, typed(contents, Some("streaming")))
        .await;
    let request = peer.expect("prompts/get").await;
    // Absent means complete.
    peer.reply(&request, typed(json!({"messages": []}), None))
        .await;
    let (prompt, read, prompt_again) = asking.await.unwrap();
    assert_rejected(prompt, "prompts/get", "task");
    assert_rejected(read, "resources/read", "streaming");
    assert!(prompt_again.is_ok());
}

#[tokio::test(start_paused = true)]
async fn completion_rejects_an_unknown_result_type() {
    let (client, mut peer) = connect(Client::builder());
    let asking = tokio::spawn(async move {
        let reference = presa_runtime::wire::CompletionReference::prompt("p");
        let request = presa_runtime::wire::CompleteParams::new(reference, "a", "x");
        client.complete(request).await
    });
    let request = peer.expect("completion/complete").await;
    let completion = json!({"completion": {"values": []}});
    peer.reply(&request, typed(completion, Some("partial")))
        .await;
    assert_rejected(asking.await.unwrap(), "completion/complete", "partial");
}
