//! A legacy tool call, which asks for a task itself.
//!
//! The rules, in order:
//!
//! 1. a legacy server asks for input with requests of its own (see
//!    `connection::legacy::answerer`), so a tool call is a single request,
//!    answered by the result or, for a task, by the legacy
//!    `CreateTaskResult`;
//! 2. whether the call asks for a task is the tool's task support
//!    (`connection::legacy::tool_tasks`), when the session's server offers
//!    task-augmented `tools/call`;
//! 3. a legacy task (nested under `task`, with `ttl` and `pollInterval`)
//!    becomes the same [`TaskHandle`] a modern one does.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::client::api::call::{CallStep, TaskHandle};
use crate::client::error::ClientError;
use crate::client::protocol::{parse_complete, parse_result};
use crate::wire::Method;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::legacy::tasks::{LegacyCreateTaskResult, TaskParams};

/// `tools/call` params in a legacy session.
#[derive(Serialize)]
pub(crate) struct LegacyCallParams<'a> {
    pub name: &'a str,
    pub arguments: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<&'a TaskParams>,
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
/// and the server made it one, the result otherwise (rules 1 and 3).
pub(crate) fn read_call(result: Value, asked_task: bool) -> Result<CallStep, ClientError> {
    let method = Method::ToolsCall.as_str();
    if asked_task && result.get("task").is_some() {
        let created: LegacyCreateTaskResult = parse_result(result)?;
        return Ok(CallStep::Task(TaskHandle::from_task(created.task.into())));
    }
    Ok(CallStep::Complete(parse_complete(method, result)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
