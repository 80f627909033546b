//! A tool call and what it came to: one round's request ([`ToolCall`]) and
//! outcome ([`CallStep`]), and the outcome of a whole call
//! ([`CallOutcome`]): its result, or the [`TaskHandle`] of the task the
//! server made it, polled at the pace [`poll_interval`] gives.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::client::error::ClientError;
use crate::wire::{CallToolResult, CreateTaskResult, InputRequiredResult, InputResponses, Task};

/// One `tools/call` request, as [`Client::call_tool_step`](crate::client::Client::call_tool_step)
/// sends it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The tool.
    pub name: String,
    /// The arguments, checked by the server against the tool's input schema.
    pub arguments: Map<String, Value>,
    /// Answers to the previous round's input requests.
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, verbatim.
    pub request_state: Option<String>,
}

impl ToolCall {
    /// A first-round call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ToolCall {
            name: name.into(),
            arguments,
            ..Default::default()
        }
    }
}

/// The outcome of one round of a tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallStep {
    /// The final result.
    Complete(CallToolResult),
    /// The server needs input; answer it and call again.
    InputRequired(InputRequiredResult),
    /// The server made the call a task (only when the client declared
    /// [`ClientBuilder::tasks`](crate::client::ClientBuilder::tasks)); follow it
    /// with [`Client::await_task`](crate::client::Client::await_task).
    Task(TaskHandle),
}

/// What a tool call came to: its result, or a task that will produce it.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The final result.
    Complete(CallToolResult),
    /// The server runs the call as a task; follow it with
    /// [`Client::await_task`](crate::client::Client::await_task).
    Task(TaskHandle),
}

impl CallOutcome {
    /// Whether the server made the call a task.
    pub fn is_task(&self) -> bool {
        matches!(self, CallOutcome::Task(_))
    }

    /// The task, when the server made the call one.
    pub fn task(&self) -> Option<&TaskHandle> {
        match self {
            CallOutcome::Task(task) => Some(task),
            CallOutcome::Complete(_) => None,
        }
    }

    /// The result, when the call completed without a task.
    pub fn complete(&self) -> Option<&CallToolResult> {
        match self {
            CallOutcome::Complete(result) => Some(result),
            CallOutcome::Task(_) => None,
        }
    }

    /// The result, or [`ClientError::UnexpectedTask`] when the server made
    /// the call a task: for callers that do not follow tasks.
    pub fn into_complete(self) -> Result<CallToolResult, ClientError> {
        match self {
            CallOutcome::Complete(result) => Ok(result),
            CallOutcome::Task(task) => Err(ClientError::UnexpectedTask {
                task_id: task.task.task_id,
            }),
        }
    }

    /// The first text block of a complete result; `None` for a task.
    pub fn text(&self) -> Option<&str> {
        self.complete().and_then(CallToolResult::text)
    }
}

/// A task the server created for a call: the task's state when the server
/// answered. Its id is all [`Client::await_task`](crate::client::Client::await_task)
/// needs, so persist [`TaskHandle::id`] to resume after a restart.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskHandle {
    task: Task,
}

impl TaskHandle {
    pub(crate) fn from_created(created: CreateTaskResult) -> Self {
        Self::from_task(created.task)
    }

    pub(crate) fn from_task(task: Task) -> Self {
        TaskHandle { task }
    }

    /// The task id.
    pub fn id(&self) -> &str {
        &self.task.task_id
    }

    /// The task as created: status, TTL, suggested poll interval.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// Takes the task out.
    pub fn into_task(self) -> Task {
        self.task
    }
}

impl AsRef<str> for TaskHandle {
    fn as_ref(&self) -> &str {
        self.id()
    }
}

/// The poll interval when the task suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// Never poll more often than this, whatever the task suggests.
const MIN_POLL: Duration = Duration::from_millis(10);
/// Never wait longer than this between polls: a guard against absurd
/// values, far above any interval a real server suggests.
const MAX_POLL: Duration = Duration::from_secs(3600);

/// The task's suggested poll interval, within sane bounds: every second
/// when it suggests none, never more often than every 10 ms nor less than
/// hourly.
pub(crate) fn poll_interval(task: &Task) -> Duration {
    task.poll_interval_ms
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}
