//! `subscriptions/listen`: what a stream asks for, its acknowledgement, and
//! the `_meta` every message on it carries.
//!
//! Each kind of notification is opt-in: a stream receives only what its
//! [`SubscriptionFilter`] asks for and the acknowledgement grants.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::jsonrpc::RequestId;

/// Which notifications a `subscriptions/listen` stream asks for, and, in
/// the acknowledgement, which the server agreed to send.
///
/// ```
/// use presa_runtime::wire::SubscriptionFilter;
///
/// let filter = SubscriptionFilter::new()
///     .tools_list_changed()
///     .resource("file:///project/config.json");
/// assert_eq!(filter.tools_list_changed, Some(true));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed` when the tools change.
    #[serde(
        rename = "toolsListChanged",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed` when the prompts change.
    #[serde(
        rename = "promptsListChanged",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed` when the resources or
    /// resource templates change.
    #[serde(
        rename = "resourcesListChanged",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these resource URIs.
    #[serde(
        rename = "resourceSubscriptions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (Tasks extension).
    #[serde(rename = "taskIds", default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Filters this implementation does not know, kept untouched.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl SubscriptionFilter {
    /// A filter that asks for nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks for `notifications/tools/list_changed`.
    pub fn tools_list_changed(mut self) -> Self {
        self.tools_list_changed = Some(true);
        self
    }

    /// Asks for `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = Some(true);
        self
    }

    /// Asks for `notifications/resources/list_changed`.
    pub fn resources_list_changed(mut self) -> Self {
        self.resources_list_changed = Some(true);
        self
    }

    /// Asks for `notifications/resources/updated` for `uri`, besides any
    /// resource asked for before.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource_subscriptions
            .get_or_insert_with(Vec::new)
            .push(uri.into());
        self
    }

    /// Asks for `notifications/tasks` for these tasks.
    pub fn tasks<I, S>(mut self, task_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.task_ids = Some(task_ids.into_iter().map(Into::into).collect());
        self
    }
}

/// The params of `subscriptions/listen`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListenParams {
    /// What to listen for.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
}

/// The `_meta` of every message on a subscription stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionMeta {
    /// The JSON-RPC id of the `subscriptions/listen` request.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    pub subscription_id: RequestId,
}

/// The params of `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcknowledgedParams {
    /// Which subscription.
    #[serde(rename = "_meta")]
    pub meta: SubscriptionMeta,
    /// What the server agreed to send.
    pub notifications: SubscriptionFilter,
}

/// The params of the three `notifications/*/list_changed`: nothing but the
/// subscription they belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListChangedParams {
    /// The subscription; a server always sends it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<SubscriptionMeta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_filter_has_the_spec_shape_and_keeps_unknown_fields() {
        let filter = SubscriptionFilter::new()
            .tools_list_changed()
            .prompts_list_changed()
            .resources_list_changed()
            .resource("file:///a")
            .resource("file:///b")
            .tasks(["t1"]);
        assert_eq!(
            serde_json::to_value(&filter).unwrap(),
            json!({"toolsListChanged": true, "promptsListChanged": true,
                   "resourcesListChanged": true,
                   "resourceSubscriptions": ["file:///a", "file:///b"], "taskIds": ["t1"]})
        );
        let read: SubscriptionFilter =
            serde_json::from_value(json!({"toolsListChanged": false, "future": 1})).unwrap();
        assert_eq!(read.tools_list_changed, Some(false));
        assert_eq!(read.other["future"], 1);
    }
}
