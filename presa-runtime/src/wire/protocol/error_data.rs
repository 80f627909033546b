//! The `data` of the errors whose shape the specification fixes, and of
//! presa's own codes. Error objects carry their data as JSON; these types
//! are how both sides write and read it.

use serde::{Deserialize, Serialize};

use super::meta::ClientCapabilities;

/// `data` of `-32022` (unsupported protocol version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedVersionData {
    /// The versions the server supports; the client picks one and retries.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}

/// `data` of `-32021` (a client capability the request needs is missing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MissingCapabilityData {
    /// What the client must declare for the request to succeed.
    #[serde(rename = "requiredCapabilities")]
    pub required_capabilities: ClientCapabilities,
}

/// `data` of presa's [`TOO_MANY_TASKS`](crate::wire::codes::TOO_MANY_TASKS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooManyTasksData {
    /// The limit that was reached.
    #[serde(rename = "maxTasks")]
    pub max_tasks: usize,
    /// Whose limit it is.
    pub scope: TaskLimitScope,
}

/// Whose limit of running tasks was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskLimitScope {
    /// The server's: every task it keeps is running.
    Server,
    /// The caller's own quota.
    Subject,
}

/// `data` of presa's
/// [`TASK_STORE_UNAVAILABLE`](crate::wire::codes::TASK_STORE_UNAVAILABLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStoreUnavailableData {
    /// How long to wait before retrying, in milliseconds; over HTTP the
    /// same wait is the `Retry-After` header.
    #[serde(rename = "retryAfterMs")]
    pub retry_after_ms: u64,
}

/// `data` of presa's [`SHUTTING_DOWN`](crate::wire::codes::SHUTTING_DOWN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuttingDownData {
    /// Whether the request had started: `false`, it never ran and may be
    /// sent again; `true`, it was cut short and may have done part of its
    /// work.
    pub started: bool,
}

/// `data` of presa's [`INSUFFICIENT_SCOPE`](crate::wire::codes::INSUFFICIENT_SCOPE).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InsufficientScopeData {
    /// Every scope the handler requires, of which the caller lacks some.
    #[serde(rename = "requiredScopes")]
    pub required_scopes: Vec<String>,
}
