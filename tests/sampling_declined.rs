//! A sampling request the client declines, in each era, over each frame
//! wire: what the caller gets, and what the server's tool sees.
//!
//! - 2026-07-28, a plain call: nothing can say no in `inputResponses`, so
//!   the call is not sent again and ends on the client; the tool ran once,
//!   its first round, and never got a reply;
//! - 2026-07-28, a task: the round's other answer goes by `tasks/update`,
//!   the declined one is left out, and the wait ends; the task still asks
//!   for it, its tool parked on the question, until it is cancelled;
//! - 2025-11-25: the server's request gets `-1`, "User rejected sampling
//!   request"; the tool's question fails, and presa's server fails the
//!   call, or the task, with an internal error that names the refusal.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{Confirm, WIRES, Wire};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientBuilder, Era, SamplingDeclined};
use presa::prelude::*;
use presa::wire::{CreateMessageParams, CreateMessageResult, SamplingMessage, TaskStatus};
use serde_json::json;

/// What the tool's sampling request came to, each time the tool ran.
#[derive(Clone, Default)]
struct Sampled(Arc<Mutex<Vec<String>>>);

impl Sampled {
    fn runs(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Asks to go ahead and for a summary in the same round, and records what
/// the summary came to.
#[tool(task = "optional")]
async fn summarize(ctx: Context, State(sampled): State<Sampled>) -> Result<String, ToolError> {
    let params = CreateMessageParams::new(vec![SamplingMessage::user("Summarize the log")], 64);
    let (confirmed, summary) = tokio::join!(
        ctx.elicit::<Confirm>("confirm", "Summarize?"),
        ctx.sample("summary", params)
    );
    let came_to = match &summary {
        Ok(reply) => format!("reply: {}", reply.text().unwrap_or_default()),
        Err(_) => "no reply".to_owned(),
    };
    sampled.0.lock().unwrap().push(came_to);
    confirmed?;
    Ok(summary?.text().unwrap_or_default().to_owned())
}

fn server() -> (Server, Sampled) {
    let sampled = Sampled::default();
    let server = Server::builder("summaries", "1")
        .tool(SummarizeTool)
        .state(sampled.clone())
        .tasks(presa::server::TaskSettings::default())
        .build();
    (server, sampled)
}

const REASON: &str = "no model at hand";

/// A client that confirms and declines every sampling request; how many
/// it was asked.
fn declining(era: Era) -> (ClientBuilder, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let builder = Client::builder()
        .force_era(era)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .on_sampling(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { Err::<CreateMessageResult, _>(SamplingDeclined::because(REASON)) }
        });
    (builder, asked)
}

fn connect(builder: ClientBuilder, server: &Server, wire: Wire) -> Client {
    common::client(builder, server, wire)
}

#[tokio::test]
async fn a_modern_call_ends_on_the_client_and_is_not_sent_again() {
    for wire in WIRES {
        let (server, sampled) = server();
        let (builder, asked) = declining(Era::Modern);
        let client = connect(builder, &server, wire);
        let error = client.call_tool("summarize", json!({})).await.unwrap_err();
        let expected = ClientError::SamplingDeclined {
            key: "summary".into(),
            task_id: None,
            reason: Some(REASON.into()),
        };
        assert_eq!(error, expected, "{wire:?}");
        assert!(error.to_string().contains("`summary`"), "{error}");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{wire:?}");
        assert_eq!(sampled.runs(), ["no reply"], "one run, no retry: {wire:?}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_modern_task_takes_the_other_answer_and_keeps_asking() {
    for wire in WIRES {
        let (server, sampled) = server();
        let (builder, _) = declining(Era::Modern);
        let client = connect(builder.tasks(true), &server, wire);
        let (task, error) = a_task_that_ends_in_error(&client).await;
        let expected = ClientError::SamplingDeclined {
            key: "summary".into(),
            task_id: Some(task.clone()),
            reason: Some(REASON.into()),
        };
        assert_eq!(error, expected, "{wire:?}");

        let waiting = client.get_task(&task).await.unwrap();
        assert_eq!(waiting.task.status, TaskStatus::InputRequired, "{wire:?}");
        let asking: Vec<String> = waiting.input_requests.unwrap().into_keys().collect();
        assert_eq!(asking, ["summary"], "the confirmation was taken: {wire:?}");
        assert!(sampled.runs().is_empty(), "the tool waits: {wire:?}");

        client.cancel_task(&task).await.unwrap();
        let cancelled = client.await_task(&task, AwaitOptions::default()).await;
        assert_eq!(
            cancelled.unwrap_err(),
            ClientError::TaskCancelled { task_id: task },
            "{wire:?}"
        );
        assert!(sampled.runs().is_empty(), "{wire:?}");
        client.close().await.unwrap();
    }
}

/// Calls `summarize` as a task and follows it: the task's id, and the
/// error following it ended with.
async fn a_task_that_ends_in_error(client: &Client) -> (String, ClientError) {
    let created = client.call_tool("summarize", json!({})).await.unwrap();
    let task = created.task().expect("a task").id().to_owned();
    let error = client
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap_err();
    (task, error)
}

/// The error a legacy call or task fails with: presa's server fails the
/// run with `-32603`, naming the client's refusal (the refusal itself, on
/// the wire, is `client_legacy`'s to check, in presa-runtime).
fn assert_the_refusal_is_named(error: &ClientError, label: &str) {
    assert_eq!(error.code(), Some(-32603), "{label}: {error}");
    let (ClientError::Rpc(failure) | ClientError::TaskFailed(failure)) = error else {
        panic!("{label}: not the server's error: {error:?}");
    };
    let named = "`sampling/createMessage` with an error: User rejected sampling request (code -1)";
    assert!(
        failure.message.contains(named),
        "{label}: {}",
        failure.message
    );
}

#[tokio::test]
async fn a_legacy_server_is_told_and_fails_the_call() {
    for wire in WIRES {
        let (server, sampled) = server();
        let (builder, asked) = declining(Era::Legacy);
        let client = connect(builder, &server, wire);
        let error = client.call_tool("summarize", json!({})).await.unwrap_err();
        assert_the_refusal_is_named(&error, &format!("{wire:?}"));
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{wire:?}");
        assert_eq!(sampled.runs(), ["no reply"], "{wire:?}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_legacy_task_fails_with_the_refusal() {
    for wire in WIRES {
        let (server, sampled) = server();
        let (builder, _) = declining(Era::Legacy);
        let client = connect(builder.tasks(true), &server, wire);
        let (_, error) = a_task_that_ends_in_error(&client).await;
        assert_the_refusal_is_named(&error, &format!("{wire:?}"));
        assert_eq!(sampled.runs(), ["no reply"], "{wire:?}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_handler_that_may_decline_still_answers() {
    for era in [Era::Modern, Era::Legacy] {
        let (server, sampled) = server();
        let builder = Client::builder()
            .force_era(era)
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
            .on_sampling(|_| async {
                Ok::<_, SamplingDeclined>(CreateMessageResult {
                    role: presa::wire::Role::Assistant,
                    content: presa::wire::SamplingContent::One(Content::text("all green")),
                    model: "m".into(),
                    stop_reason: None,
                })
            });
        let client = connect(builder, &server, Wire::InProcess);
        let result = client.call_tool("summarize", json!({})).await.unwrap();
        assert_eq!(result.text(), Some("all green"), "{era:?}");
        assert_eq!(
            sampled.runs().last().unwrap(),
            "reply: all green",
            "{era:?}"
        );
        client.close().await.unwrap();
    }
}
