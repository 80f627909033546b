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
//! 4. Ctrl-C, caught from the start, asks whether to cancel the task or
//!    to detach from it, which leaves it to its server (`interrupt`); with no
//!    terminal to ask, it detaches. While the person chooses, the wait
//!    stands still. A question's prompt that Ctrl-C cut short ends
//!    declined, and that answer waits for the choice (`answer::Choices`):
//!    cancelling sends it, detaching drops it with the wait, leaving the
//!    question open for `presa task … watch`; a legacy server, which asks
//!    with requests of its own that are answered apart from the wait,
//!    gets it once the choice is made;
//! 5. cancelling sends `tasks/cancel`, then the wait goes on until the
//!    task ends, since a task may still finish otherwise; a cancel the
//!    server refuses is told, and the wait goes on all the same, to tell
//!    how the task did end. A task that ends cancelled after the person
//!    cancelled it exits as Ctrl-C does; one cancelled by someone else, as
//!    a task that failed;
//! 6. a sampling request the person declined ends the wait: a 2026-07-28
//!    task cannot be told, and waits for the reply. Of an HTTP server's
//!    task the failure says how to cancel it or be asked again (a stdio
//!    server's ends with `presa`).

use presa::client::{AwaitOptions, ClientError};
use presa::wire::{CallToolResult, Task};

use crate::exit::{Exit, Failure};
use crate::interrupt::{Interrupt, Interrupts, ask};
use crate::output::shown::{line, note};
use crate::session::Session;

/// How following a task ended.
pub enum Followed {
    /// The task completed with this result.
    Done(Box<CallToolResult>),
    /// The person detached. The task goes on if its server does.
    Detached,
}

/// Follows task `task_id` of `session`'s server to its end.
pub async fn follow(session: &Session, task_id: &str) -> Result<Followed, Failure> {
    let mut interrupts = Interrupts::catch(&session.answerer);
    session.status.start(&format!("task {task_id}"));
    let status = std::sync::Arc::clone(&session.status);
    let options = AwaitOptions::default()
        .listen(true)
        .on_state(move |task| status.show(&describe(task)));
    let awaiting = session.client.await_task(task_id, options);
    tokio::pin!(awaiting);
    let mut cancelled_here = false;
    let followed = loop {
        tokio::select! {
            result = &mut awaiting => break result.map(|r| Followed::Done(Box::new(r))),
            () = interrupts.next() => match ask(&session.answerer).await {
                Interrupt::Cancel => {
                    cancelled_here = true;
                    cancel(session, task_id).await;
                }
                Interrupt::Detach => break Ok(Followed::Detached),
            },
        }
    };
    session.status.finish();
    followed.map_err(|error| failure(session, task_id, error, cancelled_here))
}

/// What to tell of `error` (rules 5 and 6).
fn failure(session: &Session, task_id: &str, error: ClientError, cancelled_here: bool) -> Failure {
    if cancelled_here && matches!(error, ClientError::TaskCancelled { .. }) {
        return Failure {
            exit: Exit::Cancelled,
            ..Failure::from(error)
        };
    }
    let ClientError::SamplingDeclined { key, .. } = &error else {
        return Failure::from(error);
    };
    if session.target.url().is_none() {
        return Failure::from(error);
    }
    Failure::protocol(format!(
        "the sampling request `{key}` of task {task_id} was declined, and the task still \
         waits for a reply: `{}` cancels it, `{}` asks again",
        session.target.task_command("cancel", task_id),
        session.target.task_command("watch", task_id)
    ))
}

/// Asks the server to cancel the task (rule 5).
async fn cancel(session: &Session, task_id: &str) {
    session.status.show(&format!("task {task_id}: cancelling"));
    if let Err(e) = session.client.cancel_task(task_id).await {
        session.status.suspend(|| {
            note!(
                "presa: cancelling task {}: {}; waiting for it to end",
                line(task_id),
                line(&e.to_string())
            );
        });
    }
}

/// The progress line's text for a state: `task ID: STATUS: MESSAGE`, as
/// the server wrote it; the progress line escapes it.
fn describe(task: &Task) -> String {
    match &task.status_message {
        Some(message) => format!("task {}: {}: {message}", task.task_id, task.status),
        None => format!("task {}: {}", task.task_id, task.status),
    }
}
