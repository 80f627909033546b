//! [`Subscription`]: a `subscriptions/listen` stream of what the server
//! reports, as [`SubscriptionEvent`]s; [`TaskSubscription`]: one that
//! follows tasks only.
//!
//! A stream is a long-lived request. Its notifications carry the request's
//! id in `_meta["io.modelcontextprotocol/subscriptionId"]`, and the
//! connection routes them here. Notifications arriving faster than they are
//! read are dropped past a small buffer; each event only says to read again
//! (a list, a resource, a task), so reading again catches up. The stream
//! ends in one of three ways, kept as its [`SubscriptionEnd`]:
//!
//! - the server answers the request: with a `complete` result, the graceful
//!   end, or with an error;
//! - the server sends `notifications/cancelled` for the request (a server
//!   tearing a stream down sends it after the result; one that sends it
//!   without a result first ends the stream all the same);
//! - the connection closes.
//!
//! Only a stream the client itself gives up on, by dropping it while the
//! server still considers it open, is cancelled from this side.
//!
//! Where the transport offers the server in place (in process), the stream
//! is served there, as every 2026-07-28 request is: its notifications and
//! its response are read from the request's own answers, under the same
//! rules, with no routing; dropping it drops the server's stream, with no
//! notification to send.
//!
//! A legacy server has no `subscriptions/listen`: it sends the same
//! notifications on the session. A *session* stream (its state and its
//! reading are `legacy::listen`'s) takes those its granted filter wants,
//! with a legacy `notifications/tasks/status` read as the modern task
//! state; it ends when dropped or when the connection closes.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::client::connection::{
    AnswerInPlace, Connection, Reply, answer_in_place, cancelled_request, stream_of,
    unanswered_in_place,
};
use crate::client::error::ClientError;
use crate::client::protocol::{Protocol, SessionStream, expect_complete};
use crate::transport::Answers;
use crate::wire::{
    AcknowledgedParams, DetailedTask, ListenParams, Method, Notification, Outcome, RequestId,
    ResourceUpdatedParams, SubscriptionFilter, notifications, strict,
};

/// How a [`Subscription`] (or a [`TaskSubscription`]) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionEnd {
    /// The server answered the listen request with a `complete` result:
    /// the graceful end.
    Completed,
    /// The server sent `notifications/cancelled` for the listen request
    /// before answering it.
    CancelledByServer,
    /// The listen request failed: the server answered with an error or
    /// with an invalid result (such as an unknown `resultType`), or the
    /// connection closed.
    Failed(ClientError),
}

/// What a [`Subscription`] delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionEvent {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`: list the prompts again.
    PromptsListChanged,
    /// `notifications/resources/list_changed`: list the resources and
    /// templates again.
    ResourcesListChanged,
    /// `notifications/resources/updated`: read this resource again.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// `notifications/tasks`: a task's new state, as `tasks/get` would
    /// return it.
    Task(Box<DetailedTask>),
}

/// A `subscriptions/listen` stream, opened by
/// [`Client::listen`](crate::client::Client::listen).
///
/// Dropping it while the server still streams sends
/// `notifications/cancelled` for the listen request, which ends the stream
/// on the server; a stream that already ended is dropped silently. In a
/// legacy session, dropping it sends `resources/unsubscribe` for each
/// resource it follows.
pub struct Subscription {
    pub(crate) connection: Arc<Connection>,
    pub(crate) id: RequestId,
    pub(crate) acknowledged: SubscriptionFilter,
    pub(crate) state: StreamState,
}

/// A `subscriptions/listen` stream of `notifications/tasks`, opened by
/// [`Client::listen_tasks`](crate::client::Client::listen_tasks). Dropping it ends
/// the stream as dropping a [`Subscription`] does.
#[derive(Debug)]
pub struct TaskSubscription {
    stream: Subscription,
}

/// Whether the stream still runs.
pub(crate) enum StreamState {
    /// The server streams: the connection routes the stream's
    /// notifications to the first receiver, and the listen request's
    /// response to the second.
    Open {
        notifications: mpsc::Receiver<Notification>,
        response: oneshot::Receiver<Reply>,
    },
    /// The server streams in place (see the connection's module docs):
    /// the stream's notifications, then the response, are made as they
    /// are read here, and dropping them ends the stream on the server.
    InPlace(Answers),
    /// The stream ended; nothing remains to cancel.
    Ended(SubscriptionEnd),
    /// A legacy session's notifications flow.
    Session(SessionStream),
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .field("end", &self.end())
            .finish()
    }
}

impl From<Subscription> for TaskSubscription {
    fn from(stream: Subscription) -> Self {
        TaskSubscription { stream }
    }
}

impl TaskSubscription {
    /// The JSON-RPC id of the `subscriptions/listen` request, which the
    /// server echoes as the subscription id.
    pub fn id(&self) -> &RequestId {
        self.stream.id()
    }

    /// The task ids the server agreed to report on; it drops ids it does
    /// not know or will not show this client.
    pub fn acknowledged(&self) -> &[String] {
        self.stream
            .acknowledged
            .task_ids
            .as_deref()
            .unwrap_or_default()
    }

    /// How the stream ended, once [`next`](Self::next) returned `None`;
    /// `None` while it runs.
    pub fn end(&self) -> Option<&SubscriptionEnd> {
        self.stream.end()
    }

    /// The next task state the server pushed, a [`DetailedTask`] as
    /// `tasks/get` would return it; `None` once the stream ended (see
    /// [`end`](Self::end) for how). Notifications arriving faster than
    /// they are read are dropped past a small buffer: poll `tasks/get` to
    /// catch up.
    pub async fn next(&mut self) -> Option<DetailedTask> {
        loop {
            match self.stream.next().await? {
                SubscriptionEvent::Task(task) => return Some(*task),
                other => tracing::debug!(?other, "ignoring a subscription event"),
            }
        }
    }
}

impl Subscription {
    /// Opens a stream with `params` and waits for the server's
    /// acknowledgement, within the request timeout if one is set; for a
    /// modern server (a legacy one's streams are `legacy::listen`'s).
    pub(crate) async fn open(
        protocol: &Arc<Protocol>,
        params: &ListenParams,
    ) -> Result<Subscription, ClientError> {
        let connection = protocol.connection();
        let limit = protocol.waiting().limit;
        protocol
            .agreeing_on_version(|meta| Self::open_once(connection, params, meta, limit))
            .await
    }

    async fn open_once(
        connection: &Arc<Connection>,
        params: &ListenParams,
        meta: Arc<crate::wire::RequestMeta>,
        limit: Option<std::time::Duration>,
    ) -> Result<Subscription, ClientError> {
        let id = connection.next_request_id();
        let method = Method::SubscriptionsListen.as_str();
        let state = match connection.in_place() {
            Some(server) => {
                let answers = connection.serve_in_place(server, &id, method, params, &meta)?;
                StreamState::InPlace(answers)
            }
            None => {
                let (notifications, response) = connection.open_stream(&id);
                StreamState::Open {
                    notifications,
                    response,
                }
            }
        };
        // From here on, dropping the subscription (a timeout, an error
        // below) cancels the request.
        let mut subscription = Subscription {
            connection: Arc::clone(connection),
            id,
            acknowledged: SubscriptionFilter::default(),
            state,
        };
        if let StreamState::Open { .. } = subscription.state {
            connection
                .send_request(&subscription.id, method, params, Some(&meta))
                .await?;
        }
        let ack = match limit {
            Some(limit) => tokio::time::timeout(limit, subscription.acknowledgement())
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => subscription.acknowledgement().await,
        }?;
        subscription.acknowledged = ack.notifications;
        Ok(subscription)
    }

    /// The JSON-RPC id of the `subscriptions/listen` request, which the
    /// server echoes as the subscription id; for a legacy session's
    /// stream, an id of the client's own.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server agreed to send: of what was asked, what it supports
    /// (task ids it does not know or will not show this client, lists it
    /// does not offer, are left out).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// How the stream ended, once [`next`](Self::next) returned `None`;
    /// `None` while it runs.
    pub fn end(&self) -> Option<&SubscriptionEnd> {
        match &self.state {
            StreamState::Ended(end) => Some(end),
            _ => None,
        }
    }

    /// The next thing the server reported; `None` once the stream ended
    /// (see [`end`](Self::end) for how). Notifications this client does not
    /// know, or cannot read, are skipped.
    pub async fn next(&mut self) -> Option<SubscriptionEvent> {
        loop {
            let n = self.next_notification().await?;
            match event(n) {
                Ok(Some(event)) => return Some(event),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "malformed subscription notification"),
            }
        }
    }

    /// Waits for `notifications/subscriptions/acknowledged`.
    async fn acknowledgement(&mut self) -> Result<AcknowledgedParams, ClientError> {
        loop {
            let Some(n) = self.next_notification().await else {
                return Err(self.ended_before_acknowledging());
            };
            if n.method != notifications::SUBSCRIPTIONS_ACKNOWLEDGED {
                tracing::debug!(method = n.method, "notification before the acknowledgement");
                continue;
            }
            return strict::from_value(n.params.unwrap_or(Value::Null)).map_err(|e| {
                ClientError::InvalidResponse(format!("malformed acknowledgement: {e}"))
            });
        }
    }

    /// Why a stream that ended before its acknowledgement cannot be used.
    fn ended_before_acknowledging(&self) -> ClientError {
        match self.end() {
            Some(SubscriptionEnd::Failed(e)) => e.clone(),
            _ => ClientError::InvalidResponse(
                "the server ended subscriptions/listen before acknowledging it".into(),
            ),
        }
    }

    /// The stream's next notification, in the order the server sent it;
    /// `None` once the stream ended. Notifications that arrived before the
    /// response that ends the stream come first.
    async fn next_notification(&mut self) -> Option<Notification> {
        let end = match &mut self.state {
            StreamState::Open {
                notifications,
                response,
            } => tokio::select! {
                biased;
                Some(n) = notifications.recv() => {
                    if !is_teardown_of(&self.id, &n) {
                        return Some(n);
                    }
                    // A response may still follow (the server should have
                    // sent it first); it ends nothing more, so stop waiting
                    // for it.
                    self.connection.forget(&self.id);
                    SubscriptionEnd::CancelledByServer
                }
                reply = response => end_of(reply),
            },
            StreamState::InPlace(answers) => {
                match next_in_place(&self.connection, &self.id, answers).await {
                    Ok(n) => return Some(n),
                    Err(end) => end,
                }
            }
            StreamState::Ended(_) => return None,
            StreamState::Session(session) => {
                let next = session.next().await;
                if next.is_none() {
                    self.state = StreamState::Ended(SubscriptionEnd::Failed(ClientError::Closed));
                }
                return next;
            }
        };
        tracing::debug!(id = %self.id, ?end, "subscription ended");
        self.state = StreamState::Ended(end);
        None
    }
}

/// The next notification of stream `id`, served in place, from its
/// `answers`, or how the stream ended: the rules of the module docs, with
/// the answers in place of the connection's routing. A notification of no
/// concern to the stream is delivered as the reader would deliver it.
async fn next_in_place(
    connection: &Connection,
    id: &RequestId,
    answers: &mut Answers,
) -> Result<Notification, SubscriptionEnd> {
    use futures::StreamExt;
    while let Some(frame) = answers.next().await {
        match answer_in_place(&frame, id) {
            Some(AnswerInPlace::Notification(n)) if is_teardown_of(id, &n) => {
                return Err(SubscriptionEnd::CancelledByServer);
            }
            Some(AnswerInPlace::Notification(n)) if stream_of(&n).as_ref() == Some(id) => {
                return Ok(n);
            }
            Some(AnswerInPlace::Notification(n)) => connection.deliver(n),
            Some(AnswerInPlace::Response(response)) => return Err(end_of(Ok(Ok(response)))),
            Some(AnswerInPlace::Malformed(error)) => return Err(SubscriptionEnd::Failed(error)),
            None => {}
        }
    }
    Err(SubscriptionEnd::Failed(unanswered_in_place(id)))
}

/// What `notification` reports; `None` for a notification this client does
/// not know.
fn event(notification: Notification) -> Result<Option<SubscriptionEvent>, serde_json::Error> {
    let params = notification.params.unwrap_or(Value::Null);
    let event = match notification.method.as_str() {
        notifications::TOOLS_LIST_CHANGED => SubscriptionEvent::ToolsListChanged,
        notifications::PROMPTS_LIST_CHANGED => SubscriptionEvent::PromptsListChanged,
        notifications::RESOURCES_LIST_CHANGED => SubscriptionEvent::ResourcesListChanged,
        notifications::RESOURCES_UPDATED => {
            let ResourceUpdatedParams { uri, .. } = strict::from_value(params)?;
            SubscriptionEvent::ResourceUpdated { uri }
        }
        notifications::TASKS => SubscriptionEvent::Task(strict::from_value(params)?),
        other => {
            tracing::debug!(method = other, "ignoring a subscription notification");
            return Ok(None);
        }
    };
    Ok(Some(event))
}

/// Whether `notification` is the server's `notifications/cancelled` for
/// the listen request `id`.
fn is_teardown_of(id: &RequestId, notification: &Notification) -> bool {
    cancelled_request(notification).is_some_and(|cancelled| cancelled == *id)
}

/// How the listen request's reply ends the stream.
fn end_of(reply: Result<Reply, oneshot::error::RecvError>) -> SubscriptionEnd {
    let response = match reply {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return SubscriptionEnd::Failed(e),
        Err(_) => return SubscriptionEnd::Failed(ClientError::Closed),
    };
    match response.outcome {
        Outcome::Result(result) => {
            match expect_complete(Method::SubscriptionsListen.as_str(), &result) {
                Ok(()) => SubscriptionEnd::Completed,
                Err(invalid) => SubscriptionEnd::Failed(invalid),
            }
        }
        Outcome::Error(e) => SubscriptionEnd::Failed(ClientError::Rpc(e)),
    }
}

impl Drop for Subscription {
    /// Stops routing the stream's notifications and, when the server still
    /// streams, cancels the listen request; a legacy session's stream
    /// unsubscribes from its resources instead (as its state drops).
    fn drop(&mut self) {
        self.connection.close_stream(&self.id);
        if let StreamState::Open { .. } = &self.state {
            self.connection.abandon(self.id.clone());
        }
    }
}
