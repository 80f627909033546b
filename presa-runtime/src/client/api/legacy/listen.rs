//! [`Client::listen`](crate::client::Client::listen) with a legacy server, which
//! has no `subscriptions/listen` but sends the same notifications on its
//! session.
//!
//! The stream is granted, as a modern acknowledgement would say, what the
//! session can deliver. The rules, in order:
//!
//! 1. a list's changes, when the server declared `listChanged` for it;
//! 2. a resource's updates, once `resources/subscribe` for it succeeded,
//!    which needs a server that declared `resources.subscribe`; a resource
//!    the server refuses is left out, as a modern server leaves out what
//!    it will not follow;
//! 3. a task's states, when the server runs tasks: a legacy server may
//!    send `notifications/tasks/status`, read as the modern task state
//!    (without the outcome, which only `tasks/result` gives), or not, so a
//!    follower polls all the same;
//! 4. the stream lasts until it is dropped or the connection ends;
//!    dropping it sends `resources/unsubscribe` for each resource it
//!    follows, without waiting for the answers.
//!
//! The stream is a [`Subscription`] whose state is a session stream (see
//! `protocol::legacy::session_stream`).

use std::sync::Arc;

use super::methods::LegacyClient;
use crate::client::api::subscription::{StreamState, Subscription};
use crate::client::connection::{Connection, SessionStreams};
use crate::client::error::ClientError;
use crate::client::protocol::SessionStream;
use crate::wire::legacy::RESOURCES_SUBSCRIBE;
use crate::wire::legacy::lifecycle::{LegacyServerCapabilities, SubscribeParams};
use crate::wire::{RequestId, SubscriptionFilter};

impl LegacyClient<'_> {
    /// A stream of what the session sends that `filter` asks for.
    pub async fn listen(
        &self,
        mut filter: SubscriptionFilter,
    ) -> Result<Subscription, ClientError> {
        let session = self.session.current();
        let offered = &session.server.capabilities;
        let can_subscribe = offered.core.resources.as_ref().and_then(|r| r.subscribe) == Some(true);
        let wanted = filter
            .resource_subscriptions
            .take()
            .filter(|_| can_subscribe)
            .unwrap_or_default();
        let mut granted = granted_lists_and_tasks(filter, offered);
        // Opened before subscribing, so that no update is missed; the
        // resources the server refuses are taken out below.
        granted.resource_subscriptions = Some(wanted.clone());
        let protocol = self.client.protocol();
        let connection = protocol.connection();
        let id = connection.next_request_id();
        let streams = Arc::clone(&self.session.streams);
        let mut stream = over_session(connection, streams, id, granted);
        let mut subscribed = Vec::new();
        for uri in wanted {
            let params = SubscribeParams { uri: uri.clone() };
            match protocol.request(RESOURCES_SUBSCRIBE, &params).await {
                Ok(_) => subscribed.push(uri),
                Err(error @ ClientError::Closed) => return Err(error),
                Err(error) => tracing::debug!(uri, %error, "the server will not follow a resource"),
            }
        }
        settle(&mut stream, subscribed);
        Ok(stream)
    }
}

/// A stream of what the session sends, as `granted` says, routed by
/// `streams` under the local id `id`; it follows no resource yet.
fn over_session(
    connection: &Arc<Connection>,
    streams: Arc<SessionStreams>,
    id: RequestId,
    granted: SubscriptionFilter,
) -> Subscription {
    let notifications = streams.open(&id, granted.clone());
    let state = SessionStream {
        connection: Arc::clone(connection),
        streams,
        id: id.clone(),
        notifications,
        subscribed: Vec::new(),
    };
    Subscription {
        connection: Arc::clone(connection),
        id,
        acknowledged: granted,
        state: StreamState::Session(state),
    }
}

/// Settles `stream` on the resources the server agreed to follow: what it
/// grants, and what it unsubscribes from on drop.
fn settle(stream: &mut Subscription, subscribed: Vec<String>) {
    let granted = (!subscribed.is_empty()).then(|| subscribed.clone());
    stream.acknowledged.resource_subscriptions = granted;
    if let StreamState::Session(state) = &mut stream.state {
        state
            .streams
            .regrant(&state.id, stream.acknowledged.clone());
        state.subscribed = subscribed;
    }
}

/// What of `filter` a server that `offered` these capabilities sends on
/// its session, but resources (rules 1 and 3).
fn granted_lists_and_tasks(
    filter: SubscriptionFilter,
    offered: &LegacyServerCapabilities,
) -> SubscriptionFilter {
    let follows = |asked: Option<bool>, changes: Option<bool>| {
        (asked == Some(true) && changes == Some(true)).then_some(true)
    };
    SubscriptionFilter {
        tools_list_changed: follows(
            filter.tools_list_changed,
            offered.core.tools.as_ref().and_then(|t| t.list_changed),
        ),
        prompts_list_changed: follows(
            filter.prompts_list_changed,
            offered.core.prompts.as_ref().and_then(|p| p.list_changed),
        ),
        resources_list_changed: follows(
            filter.resources_list_changed,
            offered.core.resources.as_ref().and_then(|r| r.list_changed),
        ),
        resource_subscriptions: None,
        task_ids: filter.task_ids.filter(|_| offered.tasks.is_some()),
        other: Default::default(),
    }
}
