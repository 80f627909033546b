//! Tasks as 2025-11-25 defines them in the core protocol.
//!
//! The same task, in other clothes than the modern extension's
//! ([`crate::wire::Task`]):
//!
//! - the fields are `ttl` and `pollInterval` (not `ttlMs`,
//!   `pollIntervalMs`), and there is no `resultType`;
//! - `CreateTaskResult` nests the task under `task`; `tasks/get` and
//!   `tasks/cancel` return it flat;
//! - a task's outcome is not part of its state: `tasks/result` waits for
//!   it and returns exactly what the request would have;
//! - a client asks for a task per request, with a `task` param, on a tool
//!   whose `execution.taskSupport` allows it.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser};
use serde_json::{Map, Value};

use crate::wire::extensions::Task;
use crate::wire::jsonrpc::strict::{self, StrictError};

/// `_meta` key tying a message to its task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// A task, in 2025-11-25 fields: the modern [`Task`], whose `ttlMs` and
/// `pollIntervalMs` this wire calls `ttl` and `pollInterval`.
///
/// The field list is [`Task`]'s: reading and writing rename those two
/// keys and leave the rest as they are. A modern name that a legacy peer
/// sends is ignored, as any unknown field.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyTask(pub Task);

/// The [`Task`] keys 2025-11-25 names otherwise, as (modern, legacy).
const LEGACY_NAMES: [(&str, &str); 2] = [("ttlMs", "ttl"), ("pollIntervalMs", "pollInterval")];

impl Serialize for LegacyTask {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = match serde_json::to_value(&self.0).map_err(ser::Error::custom)? {
            Value::Object(fields) => fields,
            other => return other.serialize(serializer),
        };
        for (modern, legacy) in LEGACY_NAMES {
            if let Some(value) = fields.remove(modern) {
                fields.insert(legacy.to_owned(), value);
            }
        }
        fields.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LegacyTask {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = strict::entries(deserializer)?;
        for (modern, legacy) in LEGACY_NAMES {
            fields.remove(modern);
            if let Some(value) = fields.remove(legacy) {
                fields.insert(modern.to_owned(), value);
            }
        }
        strict::from_value(Value::Object(fields))
            .map(LegacyTask)
            .map_err(|error| de::Error::custom(in_legacy_names(&error)))
    }
}

/// `error` as the peer should read it: a path that starts at a renamed
/// key names the key the peer sent.
fn in_legacy_names(error: &StrictError) -> String {
    for (modern, legacy) in LEGACY_NAMES {
        let rest = error
            .path()
            .strip_prefix('.')
            .and_then(|path| path.strip_prefix(modern));
        if let Some(rest) = rest.filter(|rest| rest.is_empty() || rest.starts_with(['.', '['])) {
            return format!("`.{legacy}{rest}`: {}", error.message());
        }
    }
    error.to_string()
}

impl From<Task> for LegacyTask {
    fn from(task: Task) -> Self {
        LegacyTask(task)
    }
}

impl From<LegacyTask> for Task {
    fn from(task: LegacyTask) -> Self {
        task.0
    }
}

/// The answer to a task-augmented request: the new task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacyCreateTaskResult {
    /// The new task, nested under `task` in this era.
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: LegacyTask,
    /// The result's `_meta`: the modern result's, without its
    /// modern-only keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The answer to `tasks/get` and `tasks/cancel`: the task, flat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacyGetTaskResult {
    /// The task as it is now, its fields at the result's top level.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: LegacyTask,
    /// The result's free-form `_meta`; presa sends none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The answer to `tasks/cancel`: the task as it now is.
pub type LegacyCancelTaskResult = LegacyGetTaskResult;

/// The answer to `tasks/list`: one page of the caller's tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListTasksResult {
    /// This page.
    pub tasks: Vec<LegacyTask>,
    /// Where the next page starts; absent on the last.
    #[serde(
        rename = "nextCursor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// The result's free-form `_meta`; presa sends none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The `task` param that asks for a request to run as a task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskParams {
    /// How long to keep the task, in milliseconds; the server may choose
    /// another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Params of `tasks/list`: only where the page starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListTasksParams {
    /// Where to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The value of the [`RELATED_TASK`] `_meta` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelatedTask {
    /// The id of the task the message belongs to.
    #[serde(rename = "taskId")]
    pub task_id: String,
}

impl RelatedTask {
    /// A `_meta` object holding only this key.
    pub fn meta(task_id: &str) -> Map<String, Value> {
        let related = RelatedTask {
            task_id: task_id.to_owned(),
        };
        let value = serde_json::to_value(related).expect("a related task serializes");
        Map::from_iter([(RELATED_TASK.to_owned(), value)])
    }

    /// The task a `_meta` object names, if any.
    pub fn in_meta(meta: &Map<String, Value>) -> Option<String> {
        let related = meta.get(RELATED_TASK)?.clone();
        crate::wire::jsonrpc::strict::from_value::<RelatedTask>(related)
            .ok()
            .map(|r| r.task_id)
    }
}

/// Whether a tool runs as a task, as `tools/list` tells a legacy client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never as a task (the default when absent).
    Forbidden,
    /// As a task when the client asks.
    Optional,
    /// Only as a task.
    Required,
}

/// A tool's `execution` in `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolExecution {
    /// Whether the tool runs as a task.
    #[serde(
        rename = "taskSupport",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub task_support: Option<TaskSupport>,
}

/// Params of `notifications/tasks/status`: the whole task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusParams {
    /// The task as it is now, its fields at the top level of the params.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub task: LegacyTask,
    /// The notification's `_meta`; presa sends none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::extensions::TaskStatus;
    use crate::wire::legacy::schema_check::assert_valid;
    use crate::wire::strict;
    use serde_json::json;

    fn task(status: TaskStatus, ttl: Option<u64>) -> LegacyTask {
        LegacyTask::from(Task {
            task_id: "t1".into(),
            status,
            status_message: Some("note".into()),
            created_at: "2025-11-25T10:30:00.000Z".into(),
            last_updated_at: "2025-11-25T10:40:00.000Z".into(),
            ttl_ms: ttl,
            poll_interval_ms: Some(20),
        })
    }

    #[test]
    fn a_legacy_task_is_a_task_with_two_keys_renamed() {
        let wire = json!({
            "taskId": "t1",
            "status": "working",
            "statusMessage": "note",
            "createdAt": "2025-11-25T10:30:00.000Z",
            "lastUpdatedAt": "2025-11-25T10:40:00.000Z",
            "ttl": 60000,
            "pollInterval": 20
        });
        let typed = task(TaskStatus::Working, Some(60_000));
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire);
        assert_eq!(strict::from_value::<LegacyTask>(wire).unwrap(), typed);

        let unlimited = json!({
            "taskId": "t1", "status": "completed", "createdAt": "c", "lastUpdatedAt": "u",
            "ttl": null
        });
        let read: LegacyTask = strict::from_value(unlimited.clone()).unwrap();
        assert_eq!((read.0.ttl_ms, read.0.poll_interval_ms), (None, None));
        assert_eq!(serde_json::to_value(&read).unwrap(), unlimited);
    }

    #[test]
    fn a_legacy_task_ignores_modern_names_and_reports_legacy_ones() {
        let modern_names = json!({
            "taskId": "t1", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
            "ttl": 5, "ttlMs": 7, "pollIntervalMs": 9
        });
        let read: LegacyTask = strict::from_value(modern_names).unwrap();
        assert_eq!((read.0.ttl_ms, read.0.poll_interval_ms), (Some(5), None));

        let bad_ttl = json!({
            "taskId": "t1", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
            "ttl": "soon"
        });
        let error = strict::from_value::<LegacyTask>(bad_ttl).unwrap_err();
        assert_eq!(error.path(), ".ttl", "{error}");
        let array = json!(["t1", "working", null, "c", "u", null, null]);
        assert!(strict::from_value::<LegacyTask>(array).is_err());
    }

    #[test]
    fn a_created_task_nests_under_task_and_keeps_a_null_ttl() {
        let created = LegacyCreateTaskResult {
            task: task(TaskStatus::Working, None),
            meta: None,
        };
        let value = serde_json::to_value(&created).unwrap();
        assert_valid("CreateTaskResult", &value);
        assert_eq!(value["task"]["ttl"], Value::Null);
        assert_eq!(value["task"]["pollInterval"], 20);
        assert!(value.get("resultType").is_none() && value["task"].get("ttlMs").is_none());
        let back: LegacyCreateTaskResult = strict::from_value(value).unwrap();
        assert_eq!(back, created);
        let modern = Task::from(back.task);
        assert_eq!((modern.ttl_ms, modern.poll_interval_ms), (None, Some(20)));
        assert_eq!(LegacyTask::from(modern), created.task);
    }

    #[test]
    fn get_cancel_list_and_status_match_the_legacy_schema() {
        let got = LegacyGetTaskResult {
            task: task(TaskStatus::InputRequired, Some(60_000)),
            meta: None,
        };
        let value = serde_json::to_value(&got).unwrap();
        assert_valid("GetTaskResult", &value);
        assert_valid("CancelTaskResult", &value);
        assert_eq!(value["ttl"], 60_000);
        assert_eq!(
            strict::from_value::<LegacyGetTaskResult>(value).unwrap(),
            got
        );
        let list = ListTasksResult {
            tasks: vec![task(TaskStatus::Completed, Some(1))],
            next_cursor: Some("c".into()),
            meta: None,
        };
        assert_valid("ListTasksResult", &serde_json::to_value(&list).unwrap());
        let status = TaskStatusParams {
            task: task(TaskStatus::Failed, None),
            meta: None,
        };
        let notification = json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
            "params": serde_json::to_value(&status).unwrap()});
        assert_valid("TaskStatusNotification", &notification);
    }

    #[test]
    fn the_related_task_key_round_trips() {
        let meta = RelatedTask::meta("t9");
        assert_valid("RelatedTaskMetadata", &meta[RELATED_TASK]);
        assert_eq!(RelatedTask::in_meta(&meta).as_deref(), Some("t9"));
        assert_eq!(RelatedTask::in_meta(&Map::new()), None);
    }

    #[test]
    fn execution_says_task_support_in_lowercase() {
        let execution = ToolExecution {
            task_support: Some(TaskSupport::Optional),
        };
        let value = serde_json::to_value(&execution).unwrap();
        assert_eq!(value, json!({"taskSupport": "optional"}));
        assert_valid("ToolExecution", &value);
        let params: TaskParams = strict::from_value(json!({"ttl": 5})).unwrap();
        assert_eq!(params.ttl, Some(5));
        assert_valid("TaskMetadata", &serde_json::to_value(params).unwrap());
    }
}
