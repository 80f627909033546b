//! The Tasks extension (`io.modelcontextprotocol/tasks`); its
//! notifications travel on a `subscriptions/listen` stream (see
//! [`SubscriptionFilter::task_ids`](crate::wire::SubscriptionFilter::task_ids)).
//!
//! A task is described by one flat object: the [`Task`] fields, plus, in a
//! [`DetailedTask`], the payload of its current status (`inputRequests`,
//! `result` or `error`). [`CreateTaskResult`] and [`GetTaskResult`] put
//! `resultType` beside those fields; `notifications/tasks` sends a
//! [`DetailedTask`] as its params.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::jsonrpc::ErrorObject;
use crate::wire::methods::SubscriptionMeta;
use crate::wire::protocol::{InputRequests, InputResponses, MethodSpec, ResultMeta, ResultType};

/// The extension identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `tasks/get`: a task's current state.
pub const TASKS_GET: MethodSpec = MethodSpec {
    name: "tasks/get",
    name_param: Some("taskId"),
};

/// `tasks/update`: answers to a task's input requests.
pub const TASKS_UPDATE: MethodSpec = MethodSpec {
    name: "tasks/update",
    name_param: Some("taskId"),
};

/// `tasks/cancel`: stop a task.
pub const TASKS_CANCEL: MethodSpec = MethodSpec {
    name: "tasks/cancel",
    name_param: Some("taskId"),
};

/// The methods of the Tasks extension.
pub const TASKS_METHODS: &[MethodSpec] = &[TASKS_GET, TASKS_UPDATE, TASKS_CANCEL];

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer `inputRequests` with `tasks/update`.
    InputRequired,
    /// Finished with a result (which may have `isError: true`).
    Completed,
    /// Finished with a JSON-RPC error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has finished: `completed`, `failed` or `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The metadata every task carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The server-generated, unguessable id.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// A human-readable note on the current status.
    #[serde(
        rename = "statusMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    #[serde(rename = "createdAt")]
    pub created_at: String,
    /// ISO 8601 time of the last change.
    #[serde(rename = "lastUpdatedAt")]
    pub last_updated_at: String,
    /// Milliseconds from creation the task is kept; `null` for unlimited.
    /// Always present on the wire.
    #[serde(rename = "ttlMs")]
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(
        rename = "pollIntervalMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
}

/// A [`Task`] with the payload of its status inlined: what `tasks/get`
/// returns and `notifications/tasks` carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetailedTask {
    /// The task's metadata.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: Task,
    /// Outstanding requests, when `input_required`.
    #[serde(
        rename = "inputRequests",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<InputRequests>,
    /// The final result (a `CallToolResult` for `tools/call`), when `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// The JSON-RPC error, when `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// `tools/call` answered with a task instead of a result
/// (`resultType: "task"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// Always `task`.
    #[serde(rename = "resultType")]
    pub result_type: ResultType,
    /// The new task.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: Task,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// The result of `tasks/get`: the [`DetailedTask`] with
/// `resultType: "complete"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetTaskResult {
    /// Always `complete`.
    #[serde(rename = "resultType")]
    pub result_type: ResultType,
    /// The task's state, with its result or error once it has ended.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: DetailedTask,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskIdParams {
    /// The id the server gave the task when it created it.
    #[serde(rename = "taskId")]
    pub task_id: String,
}

/// The params of `tasks/update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateTaskParams {
    /// The id of the task whose input requests these answer.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Answers to outstanding `inputRequests`, by key.
    #[serde(rename = "inputResponses")]
    pub input_responses: InputResponses,
}

/// The params of `notifications/tasks` as sent on a subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskNotificationParams {
    /// Which subscription.
    #[serde(rename = "_meta")]
    pub meta: SubscriptionMeta,
    /// The task, as `tasks/get` would return it.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: DetailedTask,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(status: TaskStatus) -> Task {
        Task {
            task_id: "t1".into(),
            status,
            status_message: None,
            created_at: "2026-11-30T00:00:00.000Z".into(),
            last_updated_at: "2026-11-30T00:00:01.000Z".into(),
            ttl_ms: None,
            poll_interval_ms: Some(20),
        }
    }

    #[test]
    fn create_task_result_is_flat_and_keeps_a_null_ttl() {
        let created = CreateTaskResult {
            result_type: ResultType::Task,
            task: task(TaskStatus::Working),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&created).unwrap(),
            json!({
                "resultType": "task",
                "taskId": "t1",
                "status": "working",
                "createdAt": "2026-11-30T00:00:00.000Z",
                "lastUpdatedAt": "2026-11-30T00:00:01.000Z",
                "ttlMs": null,
                "pollIntervalMs": 20
            })
        );
    }

    #[test]
    fn get_task_result_round_trips_with_its_payload() {
        let wire = json!({
            "resultType": "complete",
            "taskId": "t1",
            "status": "failed",
            "createdAt": "2026-11-30T00:00:00.000Z",
            "lastUpdatedAt": "2026-11-30T00:00:01.000Z",
            "ttlMs": 60000,
            "error": {"code": -32603, "message": "Internal error"}
        });
        let parsed: GetTaskResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(parsed.task.task.status, TaskStatus::Failed);
        assert_eq!(parsed.task.task.ttl_ms, Some(60000));
        assert_eq!(parsed.task.error.as_ref().unwrap().code, -32603);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), wire);
    }

    #[test]
    fn statuses_use_snake_case() {
        assert_eq!(
            serde_json::to_value(TaskStatus::InputRequired).unwrap(),
            json!("input_required")
        );
        assert!(TaskStatus::Cancelled.is_terminal());
        assert!(!TaskStatus::InputRequired.is_terminal());
    }
}
