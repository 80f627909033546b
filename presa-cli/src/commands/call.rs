//! `presa call`: a tool called with its arguments typed through its input
//! schema, its questions answered, its task followed.

use presa::client::CallOutcome;
use presa::wire::CallToolResult;
use serde_json::{Value, json};

use crate::exit::{Exit, Failure};
use crate::follow::{Followed, follow};
use crate::output::render;
use crate::output::shown::{line, note, say};
use crate::session::Session;
use crate::tool_arguments::arguments;

/// `presa call`.
pub async fn call(
    session: &Session,
    tool: &str,
    pairs: &[String],
    json_args: Option<&str>,
) -> Result<Exit, Failure> {
    let schema = input_schema(session, tool, pairs).await?;
    let arguments = arguments(json_args, pairs, Some(&schema)).map_err(Failure::usage)?;
    let outcome = session
        .client
        .call_tool(tool, Value::Object(arguments))
        .await?;
    match outcome {
        CallOutcome::Complete(result) => Ok(finished(session, &result)),
        CallOutcome::Task(task) => match follow(session, task.id()).await? {
            Followed::Done(result) => Ok(finished(session, &result)),
            Followed::Detached => Ok(detached(session, task.id())),
        },
    }
}

/// Prints a tool's result; a tool error exits with its own status.
pub fn finished(session: &Session, result: &CallToolResult) -> Exit {
    match session.json {
        true => render::json(result),
        false => render::result(&render::wire(result)),
    }
    if result.is_error() {
        note!("presa: the tool answered with an error");
        return Exit::ToolError;
    }
    Exit::Success
}

/// Tells how to pick a detached task up again. An HTTP server goes on
/// running the task. A stdio server is `presa`'s child and ends with it,
/// so its task's handler stops; the note says so. A server that keeps its
/// tasks in a shared store keeps the record, and another server on that
/// store fails the task once its lease lapses, or runs it again if its
/// tool is resumable. The server chose the task's id: the command to
/// paste quotes it for a shell.
pub fn detached(session: &Session, task_id: &str) -> Exit {
    let watch = session.target.task_command("watch", task_id);
    match session.target.url() {
        Some(_) => {
            note!("presa: detached. The task goes on. Follow it again with: {watch}")
        }
        None => note!(
            "presa: detached. The server's process ends with presa's, and the task stops \
             with it. If the server keeps its tasks in a shared store, another server on \
             that store reports the task as failed once its lease lapses, or runs it again \
             if the tool is resumable. To see the task: {watch}"
        ),
    }
    match session.json {
        true => render::json(&json!({"taskId": task_id, "detached": true})),
        false => say!("{}", line(task_id)),
    }
    Exit::Detached
}

/// The tool's input schema, to type the `KEY=VALUE` pairs by; an empty
/// one when there are none to type, or no tool of that name is listed.
async fn input_schema(session: &Session, tool: &str, pairs: &[String]) -> Result<Value, Failure> {
    if pairs.is_empty() {
        return Ok(json!({}));
    }
    let tools = session.client.list_tools().await?;
    let listed = tools.into_iter().find(|t| t.name == tool);
    Ok(listed.map_or_else(|| json!({}), |t| render::wire(&t.input_schema)))
}
