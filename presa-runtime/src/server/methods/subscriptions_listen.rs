//! `subscriptions/listen`: a long-lived stream of notifications.
//!
//! The stream opens with `notifications/subscriptions/acknowledged`, which
//! names what the server agreed to send:
//!
//! - of the requested `taskIds`, those the caller owns (on a server with
//!   tasks); the stream then sends each followed task as it is now, then
//!   every change;
//! - `toolsListChanged`, and `promptsListChanged` and
//!   `resourcesListChanged` on a server that offers prompts or resources:
//!   the matching `notifications/*/list_changed` whenever an entry is
//!   added or removed;
//! - `resourceSubscriptions` on a server that offers resources: a
//!   `notifications/resources/updated` whenever the application reports
//!   one of those URIs changed
//!   ([`Server::resource_updated`](crate::server::Server::resource_updated)), by
//!   exact URI. Any URI is acknowledged, since a resource may appear
//!   later or be read through a template.
//!
//! Every message carries the listen request's id as
//! `io.modelcontextprotocol/subscriptionId`. Changes reach a stream
//! through the [`changes`](crate::server::catalog::changes) feed, which says what a slow
//! listener loses.
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
//! - serving ends (see `shutdown`): the same graceful closure, at once;
//! - a stream that follows no task, or also follows list changes or
//!   resources (which never end), stays open until the client ends it;
//!   following nothing is not the same as everything it follows having
//!   ended.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::{self};
use tokio::sync::{broadcast, mpsc};

use crate::server::caller::Caller;
use crate::server::catalog::changes::{self, Change, Interests};
use crate::server::catalog::registry::Offers;
use crate::server::request::reply::{invalid_params, parse_params, tasks_not_declared, to_value};
use crate::server::request::stream::{Ending, ResponseStream};
use crate::server::task_engine::TaskEngine;
use crate::server::task_engine::store::{TaskRecord, TaskWatch};
use crate::util::Charge;
use crate::wire::{
    AcknowledgedParams, EmptyResult, ErrorObject, ListenParams, Message, Method, Notification,
    RequestId, RequestMeta, Response, ResultMeta, ResultType, SubscriptionFilter, SubscriptionMeta,
    TASKS_EXTENSION, TaskNotificationParams, notifications,
};

/// The most task ids one `subscriptions/listen` may name.
pub const MAX_LISTEN_TASK_IDS: usize = 100;

/// The most resource URIs one `subscriptions/listen` may name.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 100;

/// How many notifications may wait for the transport before the stream
/// stops reading changes.
const BUFFER: usize = 16;

/// What one subscription needs from the server around it.
pub(crate) struct ListenEnv {
    pub engine: Option<Arc<TaskEngine>>,
    /// The `_meta` of results (`serverInfo`).
    pub meta: Arc<ResultMeta>,
    /// What the server offers, for the list filters it grants.
    pub offers: Offers,
    /// The server's changes from the moment the request arrived.
    pub changes: broadcast::Receiver<Change>,
}

/// Answers `subscriptions/listen` request `id`.
///
/// `charge`, the request's share of the memory budget, is held only until
/// the stream is acknowledged: from then on the stream holds its filter,
/// not the request, and it ends only when the client ends it, so holding
/// the charge would let open streams keep the connection from reading the
/// very request (a `tasks/update`, a cancellation's successor) that would
/// let them end.
pub(crate) fn listen(
    env: ListenEnv,
    id: RequestId,
    params: Option<serde_json::Value>,
    meta: RequestMeta,
    caller: Caller,
    charge: Charge,
) -> ResponseStream {
    let (tx, rx) = mpsc::channel(BUFFER);
    let shutting_down = closing(&env.meta, &id, "the server is shutting down");
    let handler = async move {
        let result_meta = env.meta.clone();
        match run(env, &id, params, &meta, &caller, &tx, charge).await {
            Ok(()) => closing(
                &result_meta,
                &id,
                "every task this subscription followed has ended",
            ),
            Err(error) => Response::error(Some(id), error).into(),
        }
    };
    ResponseStream::ending(rx, Box::pin(handler)).closes_with(shutting_down)
}

/// The graceful end of subscription `id`: its `complete` result, then the
/// teardown that says `why`.
fn closing(meta: &ResultMeta, id: &RequestId, why: &'static str) -> Ending {
    Ending {
        response: Response::result(id.clone(), closing_result(meta, id)),
        trailer: Some(teardown(id, why)),
    }
}

/// Acknowledges the subscription, then forwards what it follows; returns
/// once everything it follows has ended.
async fn run(
    env: ListenEnv,
    id: &RequestId,
    params: Option<serde_json::Value>,
    meta: &RequestMeta,
    caller: &Caller,
    tx: &mpsc::Sender<Message>,
    charge: Charge,
) -> Result<(), ErrorObject> {
    let ListenParams { notifications } = parse_params(params)?;
    let subscription = SubscriptionMeta {
        subscription_id: id.clone(),
    };
    let interests = granted_interests(&notifications, env.offers)?;
    // A server without tasks just leaves `taskIds` out of the acknowledgement.
    let tasks = match (notifications.task_ids, &env.engine) {
        (Some(ids), Some(engine)) => Some(followed_tasks(engine, ids, meta, caller).await?),
        _ => None,
    };
    let ack = Notification::new(
        notifications::SUBSCRIPTIONS_ACKNOWLEDGED,
        AcknowledgedParams {
            meta: subscription.clone(),
            notifications: acknowledged(&interests, tasks.as_deref()),
        },
    );
    if tx.send(ack.into()).await.is_err() {
        return Ok(());
    }
    drop(charge);
    follow(tasks, &interests, env.changes, &subscription, tx).await;
    Ok(())
}

/// Forwards what the stream follows; returns once all of it has ended,
/// which list changes and resource updates never do.
async fn follow(
    tasks: Option<Vec<(String, TaskWatch)>>,
    interests: &Interests,
    feed: broadcast::Receiver<Change>,
    subscription: &SubscriptionMeta,
    tx: &mpsc::Sender<Message>,
) {
    let changes = async {
        match interests.is_empty() {
            // Nothing to forward; the client ends the stream.
            true => std::future::pending().await,
            false => changes::forward(interests, feed, subscription, tx).await,
        }
    };
    match tasks {
        Some(watches) if interests.is_empty() => forward(watches, subscription, tx).await,
        Some(watches) => {
            futures::join!(forward(watches, subscription, tx), changes);
        }
        None => changes.await,
    }
}

/// The list changes and resources a stream asked for that the server
/// grants: tools always, prompts and resources when it offers them.
fn granted_interests(
    filter: &SubscriptionFilter,
    offers: Offers,
) -> Result<Interests, ErrorObject> {
    let asked = |flag: Option<bool>| flag == Some(true);
    let uris = dedup(filter.resource_subscriptions.clone().unwrap_or_default());
    if uris.len() > MAX_RESOURCE_SUBSCRIPTIONS {
        return Err(invalid_params(format!(
            "Invalid params: `notifications.resourceSubscriptions` names {} resources; at most \
             {MAX_RESOURCE_SUBSCRIPTIONS} per subscription",
            uris.len()
        )));
    }
    Ok(Interests {
        tools: asked(filter.tools_list_changed),
        prompts: offers.prompts && asked(filter.prompts_list_changed),
        resources: offers.resources && asked(filter.resources_list_changed),
        uris: if offers.resources { uris } else { Vec::new() },
    })
}

/// The acknowledged filter: what the stream will send.
fn acknowledged(
    interests: &Interests,
    tasks: Option<&[(String, TaskWatch)]>,
) -> SubscriptionFilter {
    let flag = |followed: bool| followed.then_some(true);
    SubscriptionFilter {
        tools_list_changed: flag(interests.tools),
        prompts_list_changed: flag(interests.prompts),
        resources_list_changed: flag(interests.resources),
        resource_subscriptions: (!interests.uris.is_empty()).then(|| interests.uris.clone()),
        task_ids: tasks.map(|watches| watches.iter().map(|(id, _)| id.clone()).collect()),
        other: Default::default(),
    }
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
        if sent.get(record.id()).is_some_and(|&v| v >= record.version) {
            continue;
        }
        sent.insert(record.id().to_owned(), record.version);
        if record.status.is_terminal() {
            open.remove(record.id());
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

/// `notifications/cancelled` for the subscription the server tore down,
/// and `why`.
fn teardown(id: &RequestId, why: &'static str) -> Notification {
    Notification::new(
        notifications::CANCELLED,
        TeardownParams {
            meta: SubscriptionMeta {
                subscription_id: id.clone(),
            },
            request_id: id.clone(),
            reason: why,
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
