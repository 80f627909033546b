//! `notifications/tasks/status` for the tasks a legacy session created:
//! 2025-11-25 lets a server tell the status of a task as it changes, which
//! saves its client polls (the client may not rely on it, and presa's
//! client polls all the same).
//!
//! The rules, in order:
//!
//! 1. a task is followed from the moment the session's `tools/call` made it,
//!    as a `subscriptions/listen` stream would follow it: it takes one of the
//!    task's listener places, and a task that has them all is not followed;
//! 2. a notification goes out when the status a legacy client reads changes
//!    (`failed` for a tool's `isError` result, as `tasks/get` says), never
//!    for the `working` the `CreateTaskResult` told; it is the whole task,
//!    without `related-task` in `_meta`, as the revision asks;
//! 3. following ends with the task's terminal status, or when the session
//!    ends: the followers are the session's, and dropping it aborts them.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::server::caller::Caller;
use crate::server::task_engine::TaskEngine;
use crate::server::task_engine::store::TaskRecord;
use crate::util::lock;
use crate::wire::legacy::TASKS_STATUS;
use crate::wire::legacy::tasks::{LegacyTask, TaskStatusParams};
use crate::wire::{Message, Notification, Outcome, Response, ResultType, TaskStatus};

/// The followers of a session's tasks; dropping it stops them all (rule 3).
pub(super) struct TaskFollowers {
    queue: mpsc::Sender<Message>,
    running: Mutex<JoinSet<()>>,
}

impl TaskFollowers {
    /// Followers that write to the session's `queue`.
    pub(super) fn new(queue: mpsc::Sender<Message>) -> Self {
        TaskFollowers {
            queue,
            running: Mutex::new(JoinSet::new()),
        }
    }

    /// Follows the task `response` created, if it is a `CreateTaskResult`.
    pub(super) fn follow_created(
        &self,
        response: &Response,
        engine: &Arc<TaskEngine>,
        caller: &Caller,
    ) {
        let Some(task_id) = created_task(response) else {
            return;
        };
        let follower = follow(
            Arc::clone(engine),
            caller.clone(),
            task_id,
            self.queue.clone(),
        );
        let mut running = lock(&self.running);
        // Reap the followers whose tasks ended, so the set stays as small
        // as the session's live tasks.
        while running.try_join_next().is_some() {}
        running.spawn(follower);
    }
}

/// The id of the task a modern `tools/call` response created.
fn created_task(response: &Response) -> Option<String> {
    let Outcome::Result(result) = &response.outcome else {
        return None;
    };
    if result.get("resultType")?.as_str()? != ResultType::Task.as_str() {
        return None;
    }
    Some(result.get("taskId")?.as_str()?.to_owned())
}

/// Sends the status changes of `task_id` to `queue` until the task ends
/// (rules 1 and 2).
async fn follow(
    engine: Arc<TaskEngine>,
    caller: Caller,
    task_id: String,
    queue: mpsc::Sender<Message>,
) {
    let watches = engine
        .watch_owned(std::slice::from_ref(&task_id), &caller)
        .await;
    let mut watches = match watches {
        Ok(watches) => watches,
        Err(error) => {
            tracing::debug!(task = task_id, %error.message, "the task is not followed");
            return;
        }
    };
    let Some((_, mut watch)) = watches.pop() else {
        return;
    };
    let mut told = TaskStatus::Working;
    while let Some(record) = watch.next().await {
        let task = legacy_view(&record);
        if task.0.status == told {
            continue;
        }
        told = task.0.status;
        let params = TaskStatusParams { task, meta: None };
        let notice = Notification::new(
            TASKS_STATUS,
            crate::server::request::reply::to_value(params),
        );
        if queue.send(notice.into()).await.is_err() || told.is_terminal() {
            return;
        }
    }
}

/// The task as a legacy client sees it: in 2025-11-25 fields, and
/// `failed` when its tool returned an `isError` result.
pub(super) fn legacy_view(record: &TaskRecord) -> LegacyTask {
    let mut task = LegacyTask::from(record.to_task());
    let is_error = task.0.status == TaskStatus::Completed
        && record
            .result()
            .and_then(|result| result.get("isError").and_then(Value::as_bool))
            == Some(true);
    if task.0.status == TaskStatus::Completed && is_error {
        task.0.status = TaskStatus::Failed;
    }
    task
}
