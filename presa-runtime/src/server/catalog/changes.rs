//! What changes on a running server, and how the `subscriptions/listen`
//! streams that follow it learn of it.
//!
//! Adding or removing a tool, a prompt or a resource, and
//! [`Server::resource_updated`](crate::server::Server::resource_updated), publish a
//! [`Change`] on one broadcast channel, the [`ChangeFeed`]. Each stream
//! that asked for list changes or resource updates holds a receiver,
//! subscribed before its acknowledgement is sent, so a change made after
//! the client saw the acknowledgement always reaches it.
//!
//! # A slow listener
//!
//! The channel keeps the last [`CHANGE_BACKLOG`] changes, whatever the
//! listeners do, so memory stays bounded. A listener that falls further
//! behind (its client reads slowly) loses its place and cannot know which
//! changes it missed, so it assumes the worst: it sends, once each, every
//! `list_changed` it follows and a `resources/updated` for every resource
//! it follows, then goes on from the newest change. A client may hear of
//! a change that did not happen, but never misses one that did; these
//! notifications only tell it to read again.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use crate::wire::{
    ListChangedParams, Message, Notification, ResourceUpdatedParams, SubscriptionMeta,
    notifications,
};

/// How many changes the feed keeps for listeners that fall behind.
pub(crate) const CHANGE_BACKLOG: usize = 64;

/// One change of what the server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// A tool was added or removed.
    Tools,
    /// A prompt was added or removed.
    Prompts,
    /// A resource or a resource template was added or removed.
    Resources,
    /// The application says the resource at this URI changed.
    ResourceUpdated(Arc<str>),
}

/// The broadcast channel of [`Change`]s.
pub(crate) struct ChangeFeed(broadcast::Sender<Change>);

impl ChangeFeed {
    pub fn new() -> Self {
        ChangeFeed(broadcast::channel(CHANGE_BACKLOG).0)
    }

    /// Tells every listener; nobody listening is fine.
    pub fn publish(&self, change: Change) {
        let _ = self.0.send(change);
    }

    /// A receiver of every change published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.0.subscribe()
    }
}

/// The changes one stream follows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Interests {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    /// Resource URIs, without repeats, in the order asked.
    pub uris: Vec<String>,
}

impl Interests {
    /// Whether the stream follows no change at all.
    pub fn is_empty(&self) -> bool {
        !self.tools && !self.prompts && !self.resources && self.uris.is_empty()
    }

    /// The notifications a listener that lost its place sends: everything
    /// it follows, once.
    fn everything(&self) -> Vec<Change> {
        let lists = [
            (self.tools, Change::Tools),
            (self.prompts, Change::Prompts),
            (self.resources, Change::Resources),
        ];
        let lists = lists
            .into_iter()
            .filter_map(|(followed, change)| followed.then_some(change));
        let uris = self
            .uris
            .iter()
            .map(|uri| Change::ResourceUpdated(Arc::from(uri.as_str())));
        lists.chain(uris).collect()
    }
}

/// Sends the changes `interests` follows, as notifications of
/// `subscription`, until the client goes away or the server does.
pub(crate) async fn forward(
    interests: &Interests,
    mut changes: broadcast::Receiver<Change>,
    subscription: &SubscriptionMeta,
    tx: &mpsc::Sender<Message>,
) {
    let uris: HashSet<&str> = interests.uris.iter().map(String::as_str).collect();
    let follows = |change: &Change| match change {
        Change::Tools => interests.tools,
        Change::Prompts => interests.prompts,
        Change::Resources => interests.resources,
        Change::ResourceUpdated(uri) => uris.contains(&**uri),
    };
    loop {
        let due = match changes.recv().await {
            Ok(change) if follows(&change) => vec![change],
            Ok(_) => continue,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(missed, "a listener fell behind; telling it everything");
                interests.everything()
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        for change in due {
            if tx.send(notification(change, subscription)).await.is_err() {
                return;
            }
        }
    }
}

fn notification(change: Change, subscription: &SubscriptionMeta) -> Message {
    let meta = Some(subscription.clone());
    let list = |method| Notification::new(method, ListChangedParams { meta: meta.clone() });
    let notification = match change {
        Change::Tools => list(notifications::TOOLS_LIST_CHANGED),
        Change::Prompts => list(notifications::PROMPTS_LIST_CHANGED),
        Change::Resources => list(notifications::RESOURCES_LIST_CHANGED),
        Change::ResourceUpdated(uri) => Notification::new(
            notifications::RESOURCES_UPDATED,
            ResourceUpdatedParams {
                meta: meta.clone(),
                uri: uri.to_string(),
            },
        ),
    };
    notification.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::RequestId;

    fn subscription() -> SubscriptionMeta {
        SubscriptionMeta {
            subscription_id: RequestId::Number(7),
        }
    }

    fn methods(rx: &mut mpsc::Receiver<Message>) -> Vec<String> {
        let mut methods = Vec::new();
        while let Ok(Message::Notification(n)) = rx.try_recv() {
            let uri = n.params.as_ref().and_then(|p| p.get("uri")).cloned();
            methods.push(match uri {
                Some(uri) => format!("{} {}", n.method, uri.as_str().unwrap()),
                None => n.method,
            });
        }
        methods
    }

    #[tokio::test]
    async fn a_stream_gets_what_it_follows_and_nothing_else() {
        let feed = ChangeFeed::new();
        let interests = Interests {
            prompts: true,
            uris: vec!["file:///a".into()],
            ..Default::default()
        };
        let (tx, mut rx) = mpsc::channel(16);
        let receiver = feed.subscribe();
        for change in [
            Change::Tools,
            Change::Prompts,
            Change::ResourceUpdated("file:///b".into()),
            Change::ResourceUpdated("file:///a".into()),
        ] {
            feed.publish(change);
        }
        drop(feed);
        forward(&interests, receiver, &subscription(), &tx).await;
        assert_eq!(
            methods(&mut rx),
            [
                "notifications/prompts/list_changed",
                "notifications/resources/updated file:///a"
            ]
        );
    }

    #[tokio::test]
    async fn a_listener_that_fell_behind_hears_of_everything_it_follows() {
        let feed = ChangeFeed::new();
        let interests = Interests {
            tools: true,
            uris: vec!["file:///a".into(), "file:///b".into()],
            ..Default::default()
        };
        let (tx, mut rx) = mpsc::channel(16);
        let receiver = feed.subscribe();
        for _ in 0..=CHANGE_BACKLOG {
            feed.publish(Change::Prompts);
        }
        drop(feed);
        forward(&interests, receiver, &subscription(), &tx).await;
        assert_eq!(
            methods(&mut rx),
            [
                "notifications/tools/list_changed",
                "notifications/resources/updated file:///a",
                "notifications/resources/updated file:///b"
            ]
        );
    }
}
