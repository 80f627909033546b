//! `presa task SERVER get|cancel|watch TASK_ID`: one task, by its id, as
//! a detached call leaves it.

use presa::wire::{DetailedTask, TaskStatus};

use super::call::{detached, finished};
use crate::command_line::TaskAction;
use crate::exit::{Exit, Failure};
use crate::follow::{Followed, follow};
use crate::output::render;
use crate::output::shown::{line, say};
use crate::session::Session;

/// `presa task`.
pub async fn task(session: &Session, action: TaskAction, task_id: &str) -> Result<Exit, Failure> {
    act(session, action, task_id)
        .await
        .map_err(|failure| failure.about(&format!("task {task_id}")))
}

async fn act(session: &Session, action: TaskAction, task_id: &str) -> Result<Exit, Failure> {
    match action {
        TaskAction::Get => {
            let task = session.client.get_task(task_id).await?;
            Ok(show(session, &task))
        }
        TaskAction::Cancel => {
            session.client.cancel_task(task_id).await?;
            let task = session.client.get_task(task_id).await?;
            Ok(show(session, &task))
        }
        TaskAction::Watch => match follow(session, task_id).await? {
            Followed::Done(result) => Ok(finished(session, &result)),
            Followed::Detached => Ok(detached(session, task_id)),
        },
    }
}

/// Prints a task's state, and its outcome once it has one.
fn show(session: &Session, task: &DetailedTask) -> Exit {
    if session.json {
        render::json(task);
        return Exit::Success;
    }
    let state = &task.task;
    let id = line(&state.task_id);
    match &state.status_message {
        Some(message) => say!("task {id}: {}: {}", state.status, line(message)),
        None => say!("task {id}: {}", state.status),
    }
    if let Some(result) = &task.result {
        render::result(&serde_json::Value::Object(result.clone()));
    }
    if let Some(error) = &task.error {
        say!("error {}: {}", error.code, line(&error.message));
    }
    match state.status {
        TaskStatus::Failed => Exit::Protocol,
        _ => Exit::Success,
    }
}
