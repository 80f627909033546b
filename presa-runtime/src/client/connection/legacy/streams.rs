//! The session streams of a legacy server: what it sends on the session,
//! naming no stream, given to each `Client::listen` that wants it.
//!
//! A legacy server sends its list changes, resource updates and task
//! states on the session. Each goes to every session stream whose granted
//! filter wants it, or, if none does, back to the caller (the user's
//! notification handler). A stream past its buffer misses a notification,
//! as a listen stream does: a later notification or a read catches up.
//! Once the connection closed, every stream ends, and one opened later
//! ends at once.
//!
//! This is the table the reader routes by; what a `Subscription` over the
//! session holds is `protocol::legacy::session_stream`.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::client::connection::routing::SUBSCRIPTION_CAPACITY;
use crate::util::lock;
use crate::wire::legacy::TASKS_STATUS;
use crate::wire::{Notification, RequestId, SubscriptionFilter, notifications};

/// The open session streams, by a local id, each with the filter it was
/// granted.
pub(crate) struct SessionStreams {
    /// `None` once the connection closed.
    streams: Mutex<Option<HashMap<RequestId, Route>>>,
}

impl Default for SessionStreams {
    /// No stream yet, on an open connection.
    fn default() -> Self {
        SessionStreams {
            streams: Mutex::new(Some(HashMap::new())),
        }
    }
}

/// Where a session stream's notifications go, and what it was granted.
struct Route {
    granted: SubscriptionFilter,
    sender: mpsc::Sender<Notification>,
}

impl SessionStreams {
    /// Routes what `granted` wants to the returned receiver, as stream
    /// `id`, until [`close`](Self::close) or the end of the connection.
    pub fn open(
        &self,
        id: &RequestId,
        granted: SubscriptionFilter,
    ) -> mpsc::Receiver<Notification> {
        let (sender, receiver) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        if let Some(streams) = lock(&self.streams).as_mut() {
            streams.insert(id.clone(), Route { granted, sender });
        }
        receiver
    }

    /// Narrows what stream `id` takes to `granted`.
    pub fn regrant(&self, id: &RequestId, granted: SubscriptionFilter) {
        if let Some(stream) = lock(&self.streams).as_mut().and_then(|s| s.get_mut(id)) {
            stream.granted = granted;
        }
    }

    /// Stops routing to stream `id`.
    pub fn close(&self, id: &RequestId) {
        if let Some(streams) = lock(&self.streams).as_mut() {
            streams.remove(id);
        }
    }

    /// Ends every stream: the connection is gone.
    pub fn clear(&self) {
        lock(&self.streams).take();
    }

    /// Gives a notification that names no stream to every session stream
    /// that wants it; hands it back when none does.
    pub fn deliver(&self, notification: Notification) -> Option<Notification> {
        let streams = lock(&self.streams);
        let mut taken = false;
        for stream in streams.iter().flat_map(HashMap::values) {
            if wants(&stream.granted, &notification) {
                taken = true;
                // As on a listen stream: past the buffer, the reader is
                // behind, and a later notification or a read catches up.
                let _ = stream.sender.try_send(notification.clone());
            }
        }
        (!taken).then_some(notification)
    }
}

/// Whether a stream granted `granted` wants `notification`, a legacy
/// server's list change, resource update or task state.
fn wants(granted: &SubscriptionFilter, notification: &Notification) -> bool {
    let param = |name: &str| {
        notification
            .params
            .as_ref()
            .and_then(|p| p.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let listed = |list: &Option<Vec<String>>, item: Option<String>| {
        item.is_some_and(|item| list.as_ref().is_some_and(|l| l.contains(&item)))
    };
    match notification.method.as_str() {
        notifications::TOOLS_LIST_CHANGED => granted.tools_list_changed == Some(true),
        notifications::PROMPTS_LIST_CHANGED => granted.prompts_list_changed == Some(true),
        notifications::RESOURCES_LIST_CHANGED => granted.resources_list_changed == Some(true),
        notifications::RESOURCES_UPDATED => listed(&granted.resource_subscriptions, param("uri")),
        TASKS_STATUS => listed(&granted.task_ids, param("taskId")),
        _ => false,
    }
}
