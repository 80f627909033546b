//! A legacy session's share of the server's changes: every
//! `notifications/*/list_changed`, and `notifications/resources/updated`
//! for the URIs the session subscribed to, on the session's queue.
//!
//! The feed is the server's bounded broadcast channel (see `changes`), so
//! a session whose client reads slowly loses its place rather than
//! growing memory; it then says, once, that every list changed and every
//! subscribed resource was updated, so the client reads again more than it
//! needs, never less.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};

use crate::server::catalog::changes::Change;
use crate::util::lock;
use crate::wire::{Message, Notification, notifications};

/// The drop guard of a session's feed: the forwarding task ends with the
/// session.
pub(crate) struct FeedGuard(tokio::task::AbortHandle);

impl Drop for FeedGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Forwards `changes` to `queue` until the session or its queue ends.
pub(super) fn start(
    changes: broadcast::Receiver<Change>,
    queue: mpsc::Sender<Message>,
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
) -> FeedGuard {
    let task = tokio::spawn(forward(changes, queue, subscriptions));
    FeedGuard(task.abort_handle())
}

async fn forward(
    mut changes: broadcast::Receiver<Change>,
    queue: mpsc::Sender<Message>,
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
) {
    loop {
        let messages = match changes.recv().await {
            Ok(change) => notices(&change, &subscriptions),
            Err(RecvError::Lagged(_)) => everything(&subscriptions),
            Err(RecvError::Closed) => return,
        };
        for message in messages {
            if queue.send(message).await.is_err() {
                return;
            }
        }
    }
}

/// What the session hears of `change`.
fn notices(change: &Change, subscriptions: &Mutex<BTreeSet<String>>) -> Vec<Message> {
    let method = match change {
        Change::Tools => notifications::TOOLS_LIST_CHANGED,
        Change::Prompts => notifications::PROMPTS_LIST_CHANGED,
        Change::Resources => notifications::RESOURCES_LIST_CHANGED,
        Change::ResourceUpdated(uri) => {
            let followed = lock(subscriptions).contains(&**uri);
            return followed.then(|| updated(uri)).into_iter().collect();
        }
    };
    vec![list_changed(method)]
}

/// Every notice there could have been, for a session that fell behind.
fn everything(subscriptions: &Mutex<BTreeSet<String>>) -> Vec<Message> {
    let lists = [
        notifications::TOOLS_LIST_CHANGED,
        notifications::PROMPTS_LIST_CHANGED,
        notifications::RESOURCES_LIST_CHANGED,
    ]
    .map(list_changed);
    let uris: Vec<String> = lock(subscriptions).iter().cloned().collect();
    lists
        .into_iter()
        .chain(uris.iter().map(|uri| updated(uri)))
        .collect()
}

fn list_changed(method: &str) -> Message {
    Notification {
        jsonrpc: crate::wire::JsonRpcVersion,
        method: method.to_owned(),
        params: None,
    }
    .into()
}

fn updated(uri: &str) -> Message {
    Notification::new(notifications::RESOURCES_UPDATED, json!({ "uri": uri })).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_subscribed_resources_are_announced() {
        let subscriptions = Mutex::new(BTreeSet::from(["file:///a".to_owned()]));
        let a = Change::ResourceUpdated(Arc::from("file:///a"));
        let b = Change::ResourceUpdated(Arc::from("file:///b"));
        assert_eq!(notices(&a, &subscriptions).len(), 1);
        assert!(notices(&b, &subscriptions).is_empty());
        assert_eq!(notices(&Change::Tools, &subscriptions).len(), 1);
        assert_eq!(everything(&subscriptions).len(), 4);
    }
}
