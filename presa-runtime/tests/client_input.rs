//! Input handlers see where a request was filed: its key in
//! `inputRequests`, and the task that asked, if one did. One handler can
//! so answer two questions of the same kind differently, over MRTR and
//! inside a task alike.
//!
//! Each test scripts a fake server; time is paused.

mod scripted;

use scripted::*;

use std::sync::{Arc, Mutex};

use presa_runtime::client::{AwaitOptions, Client, PendingInput};
use presa_runtime::wire::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, InputRequests,
    Role, Root, SamplingContent,
};
use serde_json::{Value, json};

/// Where each request a handler got was filed: `(key, task id)`.
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

fn record<P>(seen: &Seen, input: &PendingInput<P>) {
    let filed = (input.key.clone(), input.task_id.clone());
    seen.lock().unwrap().push(filed);
}

/// What `seen` recorded, in key order.
fn filed(seen: &Seen) -> Vec<(String, Option<String>)> {
    let mut filed = seen.lock().unwrap().clone();
    filed.sort();
    filed
}

/// One elicitation handler for two questions: `confirm` gets a yes,
/// `region` a region.
fn answering_by_key(seen: Seen) -> impl Fn(PendingInput<ElicitRequestParams>) -> ElicitFuture {
    move |input| {
        record(&seen, &input);
        let answer = match input.key.as_str() {
            "confirm" => ElicitResult::accept(json!({"ok": true})),
            "region" => ElicitResult::accept(json!({"region": "eu-west"})),
            other => panic!("asked under an unexpected key {other:?}"),
        };
        std::future::ready(answer)
    }
}

type ElicitFuture = std::future::Ready<ElicitResult>;

fn region_request() -> Value {
    json!({"method": "elicitation/create",
           "params": {"mode": "form", "message": "Which region?",
                      "requestedSchema": {"type": "object",
                                          "properties": {"region": {"type": "string"}}}}})
}

fn two_questions() -> Value {
    json!({"confirm": confirm_request("Deploy?"), "region": region_request()})
}

/// The answers [`answering_by_key`] gives to [`two_questions`].
fn two_answers() -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": true}},
           "region": {"action": "accept", "content": {"region": "eu-west"}}})
}

#[tokio::test(start_paused = true)]
async fn one_handler_answers_two_keys_differently_over_mrtr() {
    let seen = Seen::default();
    let builder = Client::builder().on_elicitation(answering_by_key(Arc::clone(&seen)));
    let (client, mut peer) = connect(builder);
    let calling = tokio::spawn(async move { client.call_tool("deploy", json!({})).await });

    let first = peer.expect("tools/call").await;
    let input = json!({"resultType": "input_required", "requestState": "s1",
                       "inputRequests": two_questions()});
    peer.reply(&first, input).await;
    let retry = peer.expect("tools/call").await;
    assert_eq!(params(&retry, false)["inputResponses"], two_answers());
    peer.reply(&retry, completed_with("deployed")["result"].clone())
        .await;

    let outcome = calling.await.unwrap().unwrap();
    assert_eq!(outcome.text(), Some("deployed"));
    assert_eq!(
        filed(&seen),
        [("confirm".into(), None), ("region".into(), None)],
        "a plain call has no task id"
    );
}

#[tokio::test(start_paused = true)]
async fn inside_a_task_one_handler_answers_two_keys_and_sees_the_task() {
    let seen = Seen::default();
    let builder = Client::builder()
        .tasks(true)
        .on_elicitation(answering_by_key(Arc::clone(&seen)));
    let (client, mut peer) = connect(builder);
    let awaiting =
        tokio::spawn(async move { client.await_task("t1", AwaitOptions::default()).await });

    let get = peer.expect("tasks/get").await;
    let input = json!({"inputRequests": two_questions()});
    peer.reply(&get, got("t1", "input_required", input)).await;
    let update = peer.expect("tasks/update").await;
    assert_eq!(
        params(&update, true),
        json!({"taskId": "t1", "inputResponses": two_answers()})
    );
    peer.reply(&update, json!({"resultType": "complete"})).await;
    let get = peer.expect("tasks/get").await;
    peer.reply(&get, got("t1", "completed", completed_with("deployed")))
        .await;

    assert_eq!(awaiting.await.unwrap().unwrap().text(), Some("deployed"));
    let task = Some("t1".to_owned());
    assert_eq!(
        filed(&seen),
        [("confirm".into(), task.clone()), ("region".into(), task)]
    );
}

#[tokio::test(start_paused = true)]
async fn sampling_and_roots_handlers_see_key_and_task() {
    let seen = Seen::default();
    let sampled = Arc::clone(&seen);
    let rooted = Arc::clone(&seen);
    let builder = Client::builder()
        .on_sampling(move |input: PendingInput<CreateMessageParams>| {
            record(&sampled, &input);
            let reply = format!("summary of {} messages", input.params.messages.len());
            async move {
                CreateMessageResult {
                    role: Role::Assistant,
                    content: SamplingContent::One(presa_runtime::wire::Content::text(reply)),
                    model: "test-model".into(),
                    stop_reason: None,
                }
            }
        })
        .on_roots(move |input: PendingInput<()>| {
            record(&rooted, &input);
            let uri = format!("file:///{}", input.key);
            async move { vec![Root { uri, name: None }] }
        });
    let (client, _peer) = connect(builder);
    let requests: InputRequests = serde_json::from_value(json!({
        "summary": {"method": "sampling/createMessage",
                    "params": {"messages": [], "maxTokens": 10}},
        "workspace": {"method": "roots/list"}
    }))
    .unwrap();

    let plain = client.answer_input_requests(requests.clone()).await;
    let answers = serde_json::to_value(plain.unwrap()).unwrap();
    assert_eq!(
        answers["summary"]["content"]["text"],
        "summary of 0 messages"
    );
    assert_eq!(answers["workspace"]["roots"][0]["uri"], "file:///workspace");
    let in_task = client.answer_task_input_requests("t9", requests).await;
    assert_eq!(serde_json::to_value(in_task.unwrap()).unwrap(), answers);

    let task = Some("t9".to_owned());
    assert_eq!(
        filed(&seen),
        [
            ("summary".into(), None),
            ("summary".into(), task.clone()),
            ("workspace".into(), None),
            ("workspace".into(), task),
        ]
    );
}
