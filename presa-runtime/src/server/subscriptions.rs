//! `subscriptions/listen`: a long-lived stream of notifications.
//!
//! The stream opens with `notifications/subscriptions/acknowledged`, which
//! names what the server agreed to send: of the requested `taskIds`, those
//! the caller owns (on a server with tasks). It then sends each followed
//! task as it is now, then every change. Every message carries the listen
//! request's id as `io.modelcontextprotocol/subscriptionId`.
//!
//! How a stream ends:
//!
//! - the client cancels it (`notifications/cancelled`, or the connection
//!   closes): no response;
//! - it follows tasks and every one of them has ended: the server answers
//!   the request with a `complete` result (the subscriptions page's
//!   graceful closure) and *then* sends `notifications/cancelled` for it
//!   (the cancellation page's rule for a teardown). Clients read the result
//!   as the graceful end and ignore the notification for a request they no
//!   longer track; the other order makes them see an abrupt end first;
//! - a stream that follows no task stays open until the client ends it;
//!   following nothing is not the same as everything it follows having
//!   ended.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::{self};
use tokio::sync::mpsc;

use super::caller::Caller;
use super::reply::{invalid_params, parse_params, tasks_not_declared, to_value};
use super::stream::{Ending, ResponseStream};
use super::tasks::{TaskEngine, TaskRecord, TaskWatch};
use crate::wire::{
    AcknowledgedParams, EmptyResult, ErrorObject, ListenParams, Message, Method, Notification,
    RequestId, RequestMeta, Response, ResultMeta, ResultType, SubscriptionFilter, SubscriptionMeta,
    TASKS_EXTENSION, TaskNotificationParams, notifications,
};

/// The most task ids one `subscriptions/listen` may name.
pub const MAX_LISTEN_TASK_IDS: usize = 100;

/// How many notifications may wait for the transport before the stream
/// stops reading changes.
const BUFFER: usize = 16;

/// What one subscription needs from the server around it.
pub(crate) struct ListenEnv {
    pub engine: Option<Arc<TaskEngine>>,
    /// The `_meta` of results (`serverInfo`).
    pub meta: ResultMeta,
}

/// Answers `subscriptions/listen` request `id`.
pub(crate) fn listen(
    env: ListenEnv,
    id: RequestId,
    params: Option<serde_json::Value>,
    meta: RequestMeta,
    caller: Caller,
) -> ResponseStream {
    let (tx, rx) = mpsc::channel(BUFFER);
    let handler = async move {
        match run(&env, &id, params, &meta, &caller, &tx).await {
            Ok(()) => Ending {
                response: Response::result(id.clone(), closing_result(&env.meta, &id)),
                trailer: Some(teardown(&id)),
            },
            Err(error) => Response::error(Some(id), error).into(),
        }
    };
    ResponseStream::ending(rx, Box::pin(handler))
}

/// Acknowledges the subscription, then forwards what it follows; returns
/// once everything it follows has ended.
async fn run(
    env: &ListenEnv,
    id: &RequestId,
    params: Option<serde_json::Value>,
    meta: &RequestMeta,
    caller: &Caller,
    tx: &mpsc::Sender<Message>,
) -> Result<(), ErrorObject> {
    let params: ListenParams = parse_params(params)?;
    let subscription = SubscriptionMeta {
        subscription_id: id.clone(),
    };
    // A server without tasks just leaves `taskIds` out of the acknowledgement.
    let tasks = match (params.notifications.task_ids, &env.engine) {
        (Some(ids), Some(engine)) => Some(followed_tasks(engine, ids, meta, caller).await?),
        _ => None,
    };
    let acknowledged = AcknowledgedParams {
        meta: subscription.clone(),
        notifications: SubscriptionFilter {
            task_ids: tasks
                .as_ref()
                .map(|watches| watches.iter().map(|(id, _)| id.clone()).collect()),
            other: Default::default(),
        },
    };
    let ack = Notification::new(notifications::SUBSCRIPTIONS_ACKNOWLEDGED, acknowledged);
    if tx.send(ack.into()).await.is_err() {
        return Ok(());
    }
    match tasks {
        Some(watches) => forward(watches, &subscription, tx).await,
        // Nothing to forward yet; the client ends the stream.
        None => std::future::pending().await,
    }
    Ok(())
}

/// The requested tasks the caller may follow, each with its watch.
async fn followed_tasks(
    engine: &TaskEngine,
    requested: Vec<String>,
    meta: &RequestMeta,
    caller: &Caller,
) -> Result<Vec<(String, TaskWatch)>, ErrorObject> {
    if !meta.client_capabilities.has_extension(TASKS_EXTENSION) {
        let what = format!("{}` with `taskIds", Method::SubscriptionsListen);
        return Err(tasks_not_declared(&what));
    }
    let requested = dedup(requested);
    if requested.len() > MAX_LISTEN_TASK_IDS {
        return Err(invalid_params(format!(
            "Invalid params: `notifications.taskIds` names {} tasks; at most {MAX_LISTEN_TASK_IDS} per subscription",
            requested.len()
        )));
    }
    engine.watch_owned(&requested, caller).await
}

/// Sends every new version of the watched tasks until all have ended.
async fn forward(
    watches: Vec<(String, TaskWatch)>,
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
    Notification::new(notifications::TASKS, params).into()
}

/// The graceful end of subscription `id`.
fn closing_result(meta: &ResultMeta, id: &RequestId) -> serde_json::Value {
    let mut meta = meta.clone();
    meta.subscription_id = Some(id.clone());
    to_value(EmptyResult {
        result_type: ResultType::Complete,
        meta: Some(meta),
    })
}

/// `notifications/cancelled` for the subscription the server tore down.
fn teardown(id: &RequestId) -> Notification {
    Notification::new(
        notifications::CANCELLED,
        TeardownParams {
            meta: SubscriptionMeta {
                subscription_id: id.clone(),
            },
            request_id: id.clone(),
            reason: "every task this subscription followed has ended",
        },
    )
}

/// The params of the teardown notification: those of
/// `notifications/cancelled`, with the subscription's `_meta`.
#[derive(serde::Serialize)]
struct TeardownParams {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta,
    #[serde(rename = "requestId")]
    request_id: RequestId,
    reason: &'static str,
}

fn dedup(ids: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    ids.into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect()
}
