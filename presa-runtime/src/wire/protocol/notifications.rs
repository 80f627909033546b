//! Notifications presa sends or receives, and their method names.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::meta::{LoggingLevel, ProgressToken};
use crate::wire::jsonrpc::RequestId;

/// Method name of [`CancelledParams`].
pub const CANCELLED: &str = "notifications/cancelled";
/// Method name of [`ProgressParams`].
pub const PROGRESS: &str = "notifications/progress";
/// Method name of [`LoggingMessageParams`].
pub const MESSAGE: &str = "notifications/message";
/// A task's status changed (Tasks extension); params are a
/// [`TaskNotificationParams`](crate::wire::TaskNotificationParams).
pub const TASKS: &str = "notifications/tasks";
/// The first message of a subscription stream; params are
/// [`AcknowledgedParams`](crate::wire::AcknowledgedParams).
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The tools changed; params are
/// [`ListChangedParams`](crate::wire::ListChangedParams).
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The prompts changed; params are
/// [`ListChangedParams`](crate::wire::ListChangedParams).
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// The resources or resource templates changed; params are
/// [`ListChangedParams`](crate::wire::ListChangedParams).
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// A resource changed; params are
/// [`ResourceUpdatedParams`](crate::wire::ResourceUpdatedParams).
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";

/// `notifications/cancelled`: stop work on a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelledParams {
    /// The request to cancel.
    #[serde(rename = "requestId")]
    pub request_id: RequestId,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `notifications/progress`: how far a request has come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressParams {
    /// The token from the request's `_meta.progressToken`.
    #[serde(rename = "progressToken")]
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// The total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `notifications/message`: a log entry, sent only to a request that set
/// `io.modelcontextprotocol/logLevel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// Severity.
    pub level: LoggingLevel,
    /// The logger's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
}
