//! Following a task to its end, the way a person watches it.
//!
//! The rules, in order:
//!
//! 1. the client listens for the task's states (`notifications/tasks`),
//!    polling only as a fallback, or where the server cannot send them
//!    (a legacy server);
//! 2. each state it sees shows on the progress line: the spinner, the
//!    time since following began, the status and its message;
//! 3. questions the task asks (`input_required`) go through the same
//!    answerer as a plain call's;
//! 4. Ctrl-C asks whether to cancel the task (`tasks/cancel`, then the
//!    wait goes on until the server says it is cancelled) or to detach
//!    from it, leaving it running; with no terminal to ask, it detaches.

use presa::client::AwaitOptions;
use presa::wire::{CallToolResult, Task};

use crate::exit::Failure;
use crate::session::Session;

/// How following a task ended.
pub enum Followed {
    /// The task completed with this result.
    Done(Box<CallToolResult>),
    /// The person detached; the task goes on.
    Detached,
}

/// What the person chose on Ctrl-C.
enum Interrupt {
    Cancel,
    Detach,
}

/// Follows task `task_id` of `session`'s server to its end.
pub async fn follow(session: &Session, task_id: &str) -> Result<Followed, Failure> {
    session.status.start(format!("task {task_id}"));
    let status = std::sync::Arc::clone(&session.status);
    let options = AwaitOptions::default()
        .listen(true)
        .on_state(move |task| status.show(describe(task)));
    let awaiting = session.client.await_task(task_id, options);
    tokio::pin!(awaiting);
    let followed = loop {
        tokio::select! {
            result = &mut awaiting => break result.map(|r| Followed::Done(Box::new(r))),
            _ = tokio::signal::ctrl_c() => match interrupted(session).await {
                Interrupt::Cancel => {
                    session.status.show(format!("task {task_id}: cancelling"));
                    if let Err(e) = session.client.cancel_task(task_id).await {
                        break Err(e);
                    }
                }
                Interrupt::Detach => break Ok(Followed::Detached),
            },
        }
    };
    session.status.finish();
    followed.map_err(Failure::from)
}

/// Asks the person what Ctrl-C means (rule 4).
async fn interrupted(session: &Session) -> Interrupt {
    if !session.answerer.has_terminal() {
        return Interrupt::Detach;
    }
    let chosen = session
        .answerer
        .ask(|| {
            dialoguer::Select::with_theme(&dialoguer::theme::ColorfulTheme::default())
                .with_prompt("Interrupted: cancel the task, or detach and leave it running?")
                .items(["cancel the task", "detach"])
                .default(1)
                .interact_opt()
        })
        .await;
    match chosen {
        Ok(Some(0)) => Interrupt::Cancel,
        _ => Interrupt::Detach,
    }
}

/// The progress line's text for a state: `task ID: STATUS: MESSAGE`.
fn describe(task: &Task) -> String {
    match &task.status_message {
        Some(message) => format!("task {}: {}: {message}", task.task_id, task.status),
        None => format!("task {}: {}", task.task_id, task.status),
    }
}
