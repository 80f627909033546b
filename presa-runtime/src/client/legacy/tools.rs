//! A legacy tool call, which asks for a task itself.
//!
//! The rules, in order:
//!
//! 1. a legacy server asks for input with requests of its own (see
//!    `answerer`), so a tool call is a single request, answered by the
//!    result or, for a task, by the legacy `CreateTaskResult`;
//! 2. a client that declared tasks asks for one (the `task` param) when
//!    the server offers task-augmented `tools/call` and the tool allows it
//!    (`execution.taskSupport` `optional` or `required`), just as a modern
//!    server makes such a call a task for a client that declares the
//!    extension;
//! 3. a tool's support is learnt from `tools/list`: every listing teaches
//!    it, for at most [`MAX_KNOWN_TOOLS`] tools, and a call of a tool not
//!    yet seen lists the tools first. A tool still unknown is called
//!    without a task;
//! 4. a legacy task (nested under `task`, with `ttl` and `pollInterval`)
//!    becomes the same [`TaskHandle`] a modern one does.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::client::call::{CallStep, TaskHandle};
use crate::client::error::ClientError;
use crate::client::result::{parse_complete, parse_result};
use crate::util::lock;
use crate::wire::Method;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::legacy::tasks::{CreateTaskResult, TaskParams, TaskSupport};

/// How many tools' task support a client remembers (rule 3).
pub(crate) const MAX_KNOWN_TOOLS: usize = 10_000;

/// What the client learnt of each tool's task support (rule 3).
#[derive(Default)]
pub(crate) struct ToolTasks {
    known: Mutex<HashMap<String, TaskSupport>>,
}

impl ToolTasks {
    /// Learns the task support of the tools a `tools/list` page lists.
    pub fn learn(&self, page: &Value) {
        let Some(tools) = page.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut known = lock(&self.known);
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if known.len() >= MAX_KNOWN_TOOLS && !known.contains_key(name) {
                tracing::debug!(tool = name, "too many tools to remember their task support");
                continue;
            }
            let support = tool
                .pointer("/execution/taskSupport")
                .and_then(|s| serde_json::from_value(s.clone()).ok())
                .unwrap_or(TaskSupport::Forbidden);
            known.insert(name.to_owned(), support);
        }
    }

    /// The task support of tool `name`, if a listing showed it.
    pub fn support(&self, name: &str) -> Option<TaskSupport> {
        lock(&self.known).get(name).copied()
    }
}

/// `tools/call` params in a legacy session.
#[derive(Serialize)]
pub(crate) struct LegacyCallParams<'a> {
    pub name: &'a str,
    pub arguments: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<&'a TaskParams>,
}

/// Whether a call of a tool with `support` asks for a task, when the
/// client declared tasks and the server offers them (rule 2).
pub(crate) fn asks_for_task(support: Option<TaskSupport>) -> bool {
    matches!(support, Some(TaskSupport::Optional | TaskSupport::Required))
}

/// Whether the session's server runs `tools/call` as a task on request.
pub(crate) fn offers_tool_tasks(server: &InitializeResult) -> bool {
    server
        .capabilities
        .tasks
        .as_ref()
        .is_some_and(|t| t.allows_tool_calls())
}

/// Reads a legacy `tools/call` answer: a task when the call asked for one
/// and the server made it one, the result otherwise (rules 1 and 4).
pub(crate) fn read_call(result: Value, asked_task: bool) -> Result<CallStep, ClientError> {
    let method = Method::ToolsCall.as_str();
    if asked_task && result.get("task").is_some() {
        let created: CreateTaskResult = parse_result(result)?;
        return Ok(CallStep::Task(TaskHandle::from_task(created.task.into())));
    }
    Ok(CallStep::Complete(parse_complete(method, result)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn listings_teach_each_tools_task_support() {
        let tasks = ToolTasks::default();
        tasks.learn(&json!({"tools": [
            {"name": "a", "execution": {"taskSupport": "optional"}},
            {"name": "b", "execution": {"taskSupport": "required"}},
            {"name": "c"},
            {"name": "d", "execution": {"taskSupport": "sometimes"}},
            {"nameless": true}
        ]}));
        assert_eq!(tasks.support("a"), Some(TaskSupport::Optional));
        assert_eq!(tasks.support("b"), Some(TaskSupport::Required));
        assert_eq!(tasks.support("c"), Some(TaskSupport::Forbidden));
        assert_eq!(tasks.support("d"), Some(TaskSupport::Forbidden));
        assert_eq!(tasks.support("e"), None);
        assert!(asks_for_task(tasks.support("a")) && asks_for_task(tasks.support("b")));
        assert!(!asks_for_task(tasks.support("c")) && !asks_for_task(None));
    }

    #[test]
    fn a_created_task_reads_as_a_modern_task_only_when_asked_for() {
        let created = json!({"task": {"taskId": "t1", "status": "working",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
            "ttl": 60000, "pollInterval": 500}});
        let Ok(CallStep::Task(handle)) = read_call(created.clone(), true) else {
            panic!("not a task");
        };
        assert_eq!(handle.id(), "t1");
        assert_eq!(handle.task().ttl_ms, Some(60000));
        assert_eq!(handle.task().poll_interval_ms, Some(500));
        let plain = json!({"content": [{"type": "text", "text": "hi"}]});
        assert!(
            matches!(read_call(plain, true), Ok(CallStep::Complete(r)) if r.text() == Some("hi"))
        );
    }
}
