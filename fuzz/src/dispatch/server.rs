//! The server every `dispatch` input talks to: tools that elicit, sample
//! and list roots, inline and as tasks, a prompt and resources, with small
//! limits so that short inputs reach them.

use std::time::Duration;

use presa::prelude::*;
use presa::server::TaskSettings;
use presa::wire::{CreateMessageParams, LoggingLevel, SamplingMessage};
use serde::{Deserialize, Serialize};

use super::{MESSAGE_LIMIT, REQUEST_STATE_KEY, REQUEST_STATE_TTL};

/// The tasks' TTL and the sweeper's period, short so that settling is
/// cheap (in virtual time, it is free anyway).
pub(super) const TASK_TTL: Duration = Duration::from_secs(60);
/// See [`TASK_TTL`].
pub(super) const SWEEP: Duration = Duration::from_secs(10);

/// The server every input talks to.
pub fn server() -> Server {
    Server::builder("fuzz", "1")
        .tool(BuildTool)
        .tool(SurveyTool)
        .tool(JobTool)
        .tool(AddTool)
        .tool(ChattyTool)
        .tool(ConsultTool)
        .prompt(ReviewPrompt)
        .resource(ReadmeResource)
        .resource(NoteResource)
        .resource(FileResource)
        .tasks(
            TaskSettings::default()
                .ttl(Some(TASK_TTL))
                .sweep_interval(SWEEP)
                .max_tasks(8)
                .max_tasks_per_subject(4)
                .max_record_size(4 * 1024)
                .max_store_size(16 * 1024)
                .max_reasks(2)
                .max_listeners_per_task(2),
        )
        .request_state_key(REQUEST_STATE_KEY)
        .request_state_ttl(REQUEST_STATE_TTL)
        .max_in_flight(4)
        .max_message_size(MESSAGE_LIMIT)
        .max_answer_size(512)
        .memory_limit(256 * 1024)
        .connection_memory_limit(16 * 1024)
        .page_size(2)
        .build()
}

/// A yes or no.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// A size.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
enum Size {
    /// Small
    S,
    /// Large
    L,
}

/// A form with constraints the server checks answers against.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Details {
    #[schemars(length(min = 1, max = 8))]
    name: String,
    #[schemars(email)]
    email: Option<String>,
    #[schemars(range(min = 1, max = 10))]
    count: u8,
    size: Size,
}

/// Builds a target once the user confirms; a task when the client can.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Two rounds of questions, the second only after the first.
#[tool]
async fn survey(ctx: Context) -> Result<String, ToolError> {
    let details = ctx.elicit::<Details>("details", "Who are you?").await?;
    let Elicitation::Accepted(details) = details else {
        return Err(ToolError::new("no details"));
    };
    let sure = ctx
        .elicit::<Confirm>(
            "sure",
            format!("Send {} x {:?}?", details.count, details.size),
        )
        .await?;
    Ok(format!("{} {:?} {sure:?}", details.name, details.email))
}

/// Runs only as a task: reports progress, then asks.
#[tool(task = "required")]
async fn job(ctx: Context, steps: u8) -> Result<String, ToolError> {
    for step in 0..steps.min(3) {
        ctx.progress(f64::from(step), Some(f64::from(steps)), None)
            .await;
    }
    match ctx.elicit::<Confirm>("finish", "Finish the job?").await? {
        Elicitation::Accepted(Confirm { ok: true }) => Ok("finished".into()),
        other => Err(ToolError::new(format!("stopped: {other:?}"))),
    }
}

/// A sum, as structured output.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Sum {
    total: i64,
}

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64, note: Option<String>) -> Json<Sum> {
    let _ = note;
    Json(Sum {
        total: a.wrapping_add(b),
    })
}

/// Reports progress and logs, working a second (of virtual time) in
/// between, so that it holds its slot while requests read after it wait.
#[tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.progress(1.0, Some(2.0), Some("half".into())).await;
    ctx.log(LoggingLevel::Info, serde_json::json!("halfway"))
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    ctx.progress(2.0, Some(2.0), None).await;
    "done"
}

/// Asks the client's model and lists the client's roots, both at once: a
/// round of two questions, or two requests of the server's in flight.
#[tool]
async fn consult(ctx: Context, question: String) -> Result<String, ToolError> {
    let params = CreateMessageParams::new(vec![SamplingMessage::user(question)], 16);
    let (reply, roots) = tokio::try_join!(ctx.sample("model", params), ctx.list_roots())?;
    Ok(format!(
        "{} with {} roots",
        reply.text().unwrap_or_default(),
        roots.len()
    ))
}

/// Languages that start with what was typed.
fn languages(typed: &str, _ctx: &CompletionContext) -> Vec<String> {
    ["python", "rust"]
        .into_iter()
        .filter(|l| l.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// Asks for a review, once the user confirms.
#[prompt]
async fn review(
    ctx: Context,
    code: String,
    #[param(complete = languages)] language: Option<String>,
) -> Result<String, ToolError> {
    match ctx.elicit::<Confirm>("confirm", "Review it?").await? {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!(
            "Review this {}code:\n{code}",
            language.map(|l| l + " ").unwrap_or_default()
        )),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// The readme.
#[resource(uri = "file:///readme.md", mime_type = "text/markdown")]
async fn readme() -> &'static str {
    "# fuzz"
}

/// A note, shown once the user confirms.
#[resource(uri = "notes://{name}")]
async fn note(ctx: Context, name: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Show {name}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("the note {name}")),
        _ => Err(ToolError::new("not shown")),
    }
}

/// Any file, by path.
#[resource(uri = "file:///project/{+path}")]
async fn file(path: String) -> String {
    format!("contents of {path}")
}
