//! `subscriptions/listen` streams: opening one for task ids, and routing the
//! server's notifications to it.
//!
//! A stream is a long-lived request. Its notifications carry the request's
//! id in `_meta["io.modelcontextprotocol/subscriptionId"]`; its response,
//! when the server sends one, ends it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{Client, ClientError, Inner, Reply, abandon, lock};
use crate::wire::{
    AcknowledgedParams, DetailedTask, ListenParams, META_SUBSCRIPTION_ID, Method, Notification,
    Outcome, RequestId, SubscriptionFilter, codes, notifications,
};

/// Open streams by the id of their `subscriptions/listen` request.
pub(crate) type Subscriptions = Arc<Mutex<HashMap<RequestId, mpsc::Sender<Notification>>>>;

/// How many notifications may wait for a slow subscriber; more are dropped.
const SUBSCRIPTION_CAPACITY: usize = 64;

/// Delivers `notification` to the open subscription its `_meta` names, or
/// hands it back when it belongs to none.
pub(crate) fn route(
    subscriptions: &Subscriptions,
    notification: Notification,
) -> Option<Notification> {
    let Some(id) = subscription_id(&notification) else {
        return Some(notification);
    };
    let Some(tx) = lock(subscriptions).get(&id).cloned() else {
        // The stream is closed; what the server still sends on it belongs
        // to no one (notably its own teardown).
        tracing::debug!(%id, method = notification.method, "notification for a closed subscription");
        return None;
    };
    match tx.try_send(notification) {
        Ok(()) => None,
        Err(mpsc::error::TrySendError::Full(n)) => {
            // Task states are snapshots; a later one or a poll replaces it.
            tracing::debug!(%id, method = n.method, "subscription full; notification dropped");
            None
        }
        Err(mpsc::error::TrySendError::Closed(n)) => Some(n),
    }
}

fn subscription_id(notification: &Notification) -> Option<RequestId> {
    let id = notification
        .params
        .as_ref()?
        .get("_meta")?
        .get(META_SUBSCRIPTION_ID)?;
    serde_json::from_value(id.clone()).ok()
}

/// A `subscriptions/listen` stream of `notifications/tasks`, opened by
/// [`Client::listen_tasks`]. Dropping it sends `notifications/cancelled`
/// for the listen request, which ends the stream on the server.
pub struct TaskSubscription {
    inner: Arc<Inner>,
    id: RequestId,
    acknowledged: Vec<String>,
    notifications: mpsc::Receiver<Notification>,
    /// The listen request's response; `None` once the stream ended.
    end: Option<oneshot::Receiver<Reply>>,
    /// The server answered the listen request, so it needs no cancelling.
    answered: bool,
}

impl std::fmt::Debug for TaskSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSubscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .field("open", &self.end.is_some())
            .finish()
    }
}

/// What the stream yields next, before interpretation.
enum Event {
    Notification(Notification),
    /// The server's answer to the listen request, or why none will come.
    End(Result<Outcome, ClientError>),
}

impl TaskSubscription {
    /// The JSON-RPC id of the `subscriptions/listen` request, which the
    /// server echoes as the subscription id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The task ids the server agreed to report on; it drops ids it does
    /// not know or will not show this client.
    pub fn acknowledged(&self) -> &[String] {
        &self.acknowledged
    }

    /// The next task state the server pushed, a [`DetailedTask`] as
    /// `tasks/get` would return it; `None` once the stream ended (the
    /// server closed it, answered it with an error, or the connection
    /// closed). Notifications arriving faster than they are read are
    /// dropped past a small buffer: poll `tasks/get` to catch up.
    pub async fn next(&mut self) -> Option<DetailedTask> {
        loop {
            match self.next_event().await? {
                Event::Notification(n) if n.method == notifications::TASKS => {
                    match serde_json::from_value(n.params.unwrap_or(Value::Null)) {
                        Ok(task) => return Some(task),
                        Err(e) => tracing::warn!(error = %e, "malformed notifications/tasks"),
                    }
                }
                Event::Notification(n) if self.cancelled_by(&n) => {
                    // The server tore the stream down; its closing response
                    // (a SHOULD) may or may not follow, and needs no cancel.
                    tracing::debug!(id = %self.id, "the server ended the subscription");
                    if let Some(pending) = lock(&self.inner.pending).as_mut() {
                        pending.remove(&self.id);
                    }
                    self.end = None;
                    return None;
                }
                Event::Notification(n) => {
                    tracing::debug!(method = n.method, "ignoring a subscription notification")
                }
                Event::End(end) => {
                    tracing::debug!(id = %self.id, ?end, "subscription ended");
                    return None;
                }
            }
        }
    }

    /// Whether `notification` is the server's `notifications/cancelled` for
    /// this stream.
    fn cancelled_by(&self, notification: &Notification) -> bool {
        notification.method == notifications::CANCELLED
            && notification
                .params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
                .is_some_and(|id| id == self.id)
    }

    /// Notifications that arrived before the response come first.
    async fn next_event(&mut self) -> Option<Event> {
        let end = self.end.as_mut()?;
        let reply = tokio::select! {
            biased;
            Some(n) = self.notifications.recv() => return Some(Event::Notification(n)),
            reply = end => reply,
        };
        self.end = None;
        let outcome = match reply {
            Ok(Ok(response)) => Ok(response.outcome),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(ClientError::Closed),
        };
        self.answered = outcome.is_ok();
        Some(Event::End(outcome))
    }

    /// Waits for `notifications/subscriptions/acknowledged`.
    async fn acknowledgement(&mut self) -> Result<AcknowledgedParams, ClientError> {
        loop {
            match self.next_event().await.ok_or(ClientError::Closed)? {
                Event::Notification(n) if n.method == notifications::SUBSCRIPTIONS_ACKNOWLEDGED => {
                    return serde_json::from_value(n.params.unwrap_or(Value::Null)).map_err(|e| {
                        ClientError::InvalidResponse(format!("malformed acknowledgement: {e}"))
                    });
                }
                Event::Notification(n) => {
                    tracing::debug!(method = n.method, "notification before the acknowledgement")
                }
                Event::End(Ok(Outcome::Error(e))) => return Err(ClientError::Rpc(e)),
                Event::End(Ok(Outcome::Result(_))) => {
                    return Err(ClientError::InvalidResponse(
                        "the server ended subscriptions/listen before acknowledging it".into(),
                    ));
                }
                Event::End(Err(e)) => return Err(e),
            }
        }
    }
}

impl Drop for TaskSubscription {
    fn drop(&mut self) {
        lock(&self.inner.subscriptions).remove(&self.id);
        if !self.answered {
            abandon(&self.inner, self.id.clone());
        }
    }
}

impl Client {
    /// Opens a `subscriptions/listen` stream of `notifications/tasks` for
    /// `task_ids`, and waits for the server's acknowledgement (within the
    /// request timeout, if one is set). The client must declare
    /// [`ClientBuilder::tasks`](super::ClientBuilder::tasks), or the server
    /// refuses with `-32021`. The stream stays open until the
    /// [`TaskSubscription`] is dropped or the server ends it.
    pub async fn listen_tasks(
        &self,
        task_ids: Vec<String>,
    ) -> Result<TaskSubscription, ClientError> {
        let params = ListenParams {
            notifications: SubscriptionFilter {
                task_ids: Some(task_ids),
                ..Default::default()
            },
        };
        match self.open_listen(&params).await {
            Err(ClientError::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                self.adopt_version(&e)?;
                self.open_listen(&params).await
            }
            other => other,
        }
    }

    async fn open_listen(&self, params: &ListenParams) -> Result<TaskSubscription, ClientError> {
        let id = self.next_request_id();
        let (tx, notifications) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        // Both routes exist before the request leaves, so nothing is missed.
        lock(&self.inner.subscriptions).insert(id.clone(), tx);
        let mut subscription = TaskSubscription {
            end: Some(self.register(&id)),
            inner: Arc::clone(&self.inner),
            id,
            acknowledged: Vec::new(),
            notifications,
            answered: false,
        };
        self.send_request(
            &subscription.id,
            Method::SubscriptionsListen.as_str(),
            params,
        )
        .await?;
        let ack = match self.inner.request_timeout {
            Some(limit) => tokio::time::timeout(limit, subscription.acknowledgement())
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => subscription.acknowledgement().await,
        }?;
        subscription.acknowledged = ack.notifications.task_ids.unwrap_or_default();
        Ok(subscription)
    }
}
