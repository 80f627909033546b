//! `subscriptions/listen`: a long-lived stream of task status notifications.
//!
//! The stream opens with `notifications/subscriptions/acknowledged`, which
//! names the tasks the server agreed to follow (those the caller owns),
//! then sends each of them as it is now, then every change. Every message
//! carries the listen request's id as `io.modelcontextprotocol/subscriptionId`.
//! Once every followed task has ended, the server tears the stream down: it
//! sends `notifications/cancelled` for the listen request (the cancellation
//! spec requires it) and then answers the request with a `complete` result
//! (the subscriptions spec's graceful closure). Cancelling the request
//! (`notifications/cancelled` from the client) closes it from the client
//! side, with no response.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::engine::require_tasks_capability;
use super::store::TaskRecord;
use crate::server::connection::Caller;
use crate::server::dispatch::{internal_error, invalid_params, parse_params, to_value};
use crate::server::{ResponseStream, ServerInner};
use crate::wire::{
    AcknowledgedParams, ErrorObject, ListenParams, META_SUBSCRIPTION_ID, Message, Notification,
    RequestId, RequestMeta, Response, SubscriptionFilter, SubscriptionMeta, TaskNotificationParams,
    notifications, task_methods,
};

/// The most task ids one `subscriptions/listen` may name.
pub const MAX_LISTEN_TASK_IDS: usize = 100;

/// How many notifications may wait for the transport before the stream
/// stops reading changes.
const BUFFER: usize = 16;

/// Answers `subscriptions/listen`.
pub(crate) fn listen(
    inner: Arc<ServerInner>,
    id: RequestId,
    params: Option<Value>,
    meta: RequestMeta,
    caller: Caller,
) -> ResponseStream {
    let (tx, rx) = mpsc::channel(BUFFER);
    let handler = async move {
        let outcome = run(&inner, &id, params, &meta, &caller, &tx).await;
        match outcome {
            Ok(()) => Response::result(id.clone(), closing_result(&inner, &id)),
            Err(error) => Response::error(Some(id), error),
        }
    };
    ResponseStream::new(rx, Box::pin(handler))
}

async fn run(
    inner: &ServerInner,
    id: &RequestId,
    params: Option<Value>,
    meta: &RequestMeta,
    caller: &Caller,
    tx: &mpsc::Sender<Message>,
) -> Result<(), ErrorObject> {
    let params: ListenParams = parse_params(params)?;
    let requested = params.notifications.task_ids;
    // A server without tasks just leaves `taskIds` out of the acknowledgement.
    let follows_tasks = requested.is_some() && inner.tasks.is_some();
    if follows_tasks {
        require_tasks_capability(meta, "subscriptions/listen` with `taskIds")?;
    }
    let requested = requested.map(dedup).unwrap_or_default();
    if requested.len() > MAX_LISTEN_TASK_IDS {
        return Err(invalid_params(format!(
            "Invalid params: `notifications.taskIds` names {} tasks; at most {MAX_LISTEN_TASK_IDS} per subscription",
            requested.len()
        )));
    }
    let watches = visible_watches(inner, &requested, caller).await?;
    let subscription = SubscriptionMeta {
        subscription_id: id.clone(),
    };
    let acknowledged = AcknowledgedParams {
        meta: subscription.clone(),
        notifications: SubscriptionFilter {
            task_ids: follows_tasks.then(|| watches.iter().map(|(id, _)| id.clone()).collect()),
            other: Default::default(),
        },
    };
    let ack = Notification::new(
        task_methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
        acknowledged,
    );
    if tx.send(ack.into()).await.is_err() {
        return Ok(());
    }
    forward(watches, &subscription, tx).await;
    let teardown = Notification::new(
        notifications::CANCELLED,
        TeardownParams {
            meta: subscription,
            request_id: id.clone(),
            reason: "every task this subscription followed has ended",
        },
    );
    let _ = tx.send(teardown.into()).await;
    Ok(())
}

/// `notifications/cancelled` for the stream the server tears down.
#[derive(serde::Serialize)]
struct TeardownParams {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta,
    #[serde(rename = "requestId")]
    request_id: RequestId,
    reason: &'static str,
}

/// Each requested task the caller owns, with a watch that starts at its
/// current state. Others are silently left out.
async fn visible_watches(
    inner: &ServerInner,
    requested: &[String],
    caller: &Caller,
) -> Result<Vec<(String, super::TaskWatch)>, ErrorObject> {
    let Some(engine) = &inner.tasks else {
        return Ok(Vec::new());
    };
    let mut visible = Vec::new();
    for task_id in requested {
        let watch = engine
            .store
            .watch(task_id)
            .await
            .map_err(|e| internal_error("(task store)", &e.to_string()))?;
        let Some(mut watch) = watch else { continue };
        // The first item is the current record, available at once.
        let Some(current) = watch.next().await else {
            continue;
        };
        if current.owner != caller.subject {
            continue;
        }
        let watch = stream::once(async move { current }).chain(watch).boxed();
        visible.push((task_id.clone(), watch));
    }
    Ok(visible)
}

/// Sends every new version of the watched tasks until all have ended.
async fn forward(
    watches: Vec<(String, super::TaskWatch)>,
    subscription: &SubscriptionMeta,
    tx: &mpsc::Sender<Message>,
) {
    let mut open: HashSet<String> = watches.iter().map(|(id, _)| id.clone()).collect();
    let mut sent: HashMap<String, u64> = HashMap::new();
    let mut changes = stream::select_all(watches.into_iter().map(|(_, watch)| watch));
    while !open.is_empty() {
        // A watch ends when its task expires; that task is done too.
        let Some(record) = changes.next().await else {
            return;
        };
        if sent.get(&record.id).is_some_and(|&v| v >= record.version) {
            continue;
        }
        sent.insert(record.id.clone(), record.version);
        if record.status.is_terminal() {
            open.remove(&record.id);
        }
        if tx.send(notification(&record, subscription)).await.is_err() {
            return;
        }
    }
}

fn notification(record: &TaskRecord, subscription: &SubscriptionMeta) -> Message {
    let params = TaskNotificationParams {
        meta: subscription.clone(),
        task: record.to_detailed(),
    };
    Notification::new(task_methods::NOTIFICATION_TASKS, params).into()
}

/// The graceful end of a subscription.
fn closing_result(inner: &ServerInner, id: &RequestId) -> Value {
    let mut meta = inner.result_meta().unwrap_or_default();
    meta.other
        .insert(META_SUBSCRIPTION_ID.to_owned(), to_value(id));
    json!({ "resultType": "complete", "_meta": meta })
}

fn dedup(ids: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    ids.into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect()
}
