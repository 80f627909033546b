//! Tasks as a legacy (2025-11-25) server runs them, behind the same
//! methods a modern task has.
//!
//! A legacy task's state (`tasks/get`) carries no outcome: `tasks/result`
//! waits for the task to end and answers exactly what the tool call would
//! have, result or JSON-RPC error. Input travels as the server's own
//! requests, answered through the handlers while `tasks/result` is open.
//! The rules, in order:
//!
//! 1. [`Client::await_task`](crate::client::Client::await_task) polls `tasks/get` at the task's pace while it
//!    works; once it needs input or has ended, it calls `tasks/result`,
//!    which waits (bounded by [`AwaitOptions::timeout`](crate::client::AwaitOptions::timeout()),
//!    not the request timeout) while the server asks its questions;
//! 2. a result is the task's result, `isError` or not: a legacy server
//!    marks a tool error `failed`, where a modern one completes the task
//!    with the error result, and the caller sees what a modern task gives;
//! 3. an error is the task's own error ([`ClientError::TaskFailed`]) when
//!    `tasks/get` then says `failed`, [`ClientError::TaskCancelled`] when
//!    it says `cancelled`, and otherwise the error as it came (an unknown
//!    or expired task, say);
//! 4. [`Client::get_task`](crate::client::Client::get_task) fills in the outcome of an ended task the same
//!    way, so that a `completed` task carries its result and a `failed`
//!    one its error; a task that needs input carries no `inputRequests`,
//!    since a legacy server sends them as requests;
//! 5. `tasks/update` and listening do not exist in the legacy era.

use serde_json::{Map, Value};
use tokio::time::sleep;

use crate::client::api::AwaitOptions;
use crate::client::api::{LegacyClient, poll_interval};
use crate::client::connection::Waiting;
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::link::LinkFailure;
use crate::client::protocol::parse_complete;
use crate::wire::legacy::tasks::LegacyGetTaskResult;
use crate::wire::legacy::{TASKS_CANCEL, TASKS_GET, TASKS_RESULT};
use crate::wire::{
    CallToolResult, DetailedTask, ErrorObject, TASKS_UPDATE, Task, TaskIdParams, TaskStatus,
};

/// What `tasks/result` answered: the tool call's result or its error.
enum Outcome {
    Result(Map<String, Value>),
    Error(ErrorObject),
}

impl LegacyClient<'_> {
    /// `tasks/get` of a legacy server, in the modern task's fields.
    async fn legacy_task(&self, task_id: &str) -> Result<Task, ClientError> {
        let result = self
            .client
            .request(TASKS_GET, &task_params(task_id))
            .await?;
        let got: LegacyGetTaskResult = parse_complete(TASKS_GET, result)?;
        if got.task.0.task_id != task_id {
            return Err(ClientError::InvalidResponse(format!(
                "tasks/get for task `{task_id}` returned task `{}`",
                got.task.0.task_id
            )));
        }
        Ok(got.task.into())
    }

    /// The task's state, with the outcome of an ended task (rule 4).
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        let mut task = DetailedTask {
            task: self.legacy_task(task_id).await?,
            input_requests: None,
            result: None,
            error: None,
        };
        if matches!(task.task.status, TaskStatus::Completed | TaskStatus::Failed) {
            match self.task_outcome(task_id).await? {
                Outcome::Result(result) => {
                    task.task.status = TaskStatus::Completed;
                    task.result = Some(result);
                }
                Outcome::Error(error) => {
                    task.task.status = TaskStatus::Failed;
                    task.error = Some(error);
                }
            }
        }
        Ok(task)
    }

    /// Follows a legacy task to its end (rule 1).
    pub async fn follow_task(
        &self,
        task_id: &str,
        options: &AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        loop {
            let task = self.legacy_task(task_id).await?;
            options.observe(&task);
            match task.status {
                TaskStatus::Working => sleep(poll_interval(&task)).await,
                TaskStatus::Cancelled => return Err(cancelled(task_id)),
                TaskStatus::InputRequired | TaskStatus::Completed | TaskStatus::Failed => {
                    return self.legacy_result(task_id).await;
                }
            }
        }
    }

    /// `tasks/cancel` of a legacy server. It answers with the task, which
    /// says nothing the caller needs.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        let result = self
            .client
            .request(TASKS_CANCEL, &task_params(task_id))
            .await?;
        parse_complete::<LegacyGetTaskResult>(TASKS_CANCEL, result).map(drop)
    }

    /// The task's result, or the error it ended with (rules 2 and 3).
    async fn legacy_result(&self, task_id: &str) -> Result<CallToolResult, ClientError> {
        let error = match self.task_outcome(task_id).await? {
            Outcome::Result(result) => {
                let answered = format!("tasks/result (the result of task `{task_id}`)");
                return parse_complete(&answered, Value::Object(result));
            }
            Outcome::Error(error) => error,
        };
        match self.legacy_task(task_id).await.map(|t| t.status) {
            Ok(TaskStatus::Failed) => Err(ClientError::TaskFailed(error)),
            Ok(TaskStatus::Cancelled) => Err(cancelled(task_id)),
            _ => Err(ClientError::Rpc(error)),
        }
    }

    /// `tasks/result`: waits for the task to end, answering its input
    /// requests meanwhile (through the answerer), with no time limit of
    /// its own.
    async fn task_outcome(&self, task_id: &str) -> Result<Outcome, ClientError> {
        let waiting = Waiting {
            limit: None,
            cancels: true,
        };
        let params = task_params(task_id);
        let answered = self
            .client
            .protocol()
            .request_waiting(TASKS_RESULT, &params, waiting)
            .await;
        match answered {
            Ok(Value::Object(result)) => Ok(Outcome::Result(result)),
            Ok(other) => Err(ClientError::InvalidResponse(format!(
                "tasks/result answered with {other}, which is not an object"
            ))),
            Err(ClientError::Rpc(error)) if LinkFailure::read(&error).is_none() => {
                Ok(Outcome::Error(error))
            }
            Err(other) => Err(other),
        }
    }
}

impl LegacyClient<'_> {
    /// `tasks/update`, which the legacy era lacks (rule 5).
    pub fn update_task(&self) -> Result<(), ClientError> {
        Err(ClientError::NotInEra {
            method: TASKS_UPDATE.name.to_owned(),
            era: Era::Legacy,
            hint: "; a legacy server asks for a task's input with requests of its own, \
                   which await_task answers through the handlers",
        })
    }
}

fn task_params(task_id: &str) -> TaskIdParams {
    TaskIdParams {
        task_id: task_id.to_owned(),
    }
}

fn cancelled(task_id: &str) -> ClientError {
    ClientError::TaskCancelled {
        task_id: task_id.to_owned(),
    }
}
