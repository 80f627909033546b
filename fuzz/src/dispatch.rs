//! The `dispatch` harness: one input is what a client writes on one
//! connection, byte for byte.
//!
//! The bytes go through the same path as a stdio server's input:
//! `transport::byte_stream`'s newline framing (line limit, non-UTF-8 and
//! oversized lines), then `server::serve`'s connection loop (parsing,
//! backlog, cancellation, the close and its drain), then the server core
//! (validation, tools, MRTR and `requestState`, tasks, prompts, resources,
//! completion, subscriptions). The client's side is then closed, and
//! everything the server writes is read until it ends.
//!
//! # Placeholders
//!
//! A fuzzer cannot guess a task id or forge a signed `requestState`, so a
//! line holding `@TASK@` is sent once the server is idle, with the latest
//! task id the server gave in its place, and `@STATE@` likewise with the
//! latest `requestState` it issued. The seeds use them to reach `tasks/*`
//! on live tasks and MRTR retries.
//!
//! A blank line, which the server skips, makes the client wait until the
//! server is idle before it writes on: without one, the client writes
//! everything at once and closes, and a `subscriptions/listen` stream may
//! be cut before it says anything. Sequences and races are both inputs.
//!
//! # Time and state
//!
//! Tokio's clock is paused, so the connection's drain period, task TTLs
//! and the sweeper run instantly, in virtual time, whenever everything
//! else is idle. The runtime (current-thread) is built once per process; a
//! server is built per input, and each input ends only when every tokio
//! task it started is gone, so no input leaves state behind for the next
//! and every crash reproduces from its input alone. Set
//! `PRESA_FUZZ_SHARED_SERVER=1` to reuse one server instead (faster, but a
//! crash may then depend on the inputs before it).
//!
//! # What counts as a crash
//!
//! Any panic, in the harness or in a tokio task of the runtime (libFuzzer's
//! panic hook aborts on all of them), and these checks:
//!
//! - every line the server writes is a JSON-RPC response or notification,
//!   and every result is an object with a `resultType`;
//! - the server ends within a day of virtual time after the client closed
//!   its side (the drain period is 30 s), instead of hanging;
//! - once the server has ended and the TTLs have passed, no tokio task is
//!   left, and nothing is still charged to the server's memory budget.
//!
//! Set `PRESA_FUZZ_TRACE=1` to print every line each way on stderr.

use std::sync::LazyLock;
use std::time::Duration;

use presa::prelude::*;
use presa::server::{TaskSettings, serve};
use presa::transport::byte_stream;
use presa::wire::{LoggingLevel, Message, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;
use tokio::sync::watch;

/// The key that signs `requestState`, fixed so that the seeds can hold
/// states the server accepts.
pub const REQUEST_STATE_KEY: [u8; 32] = *b"presa-fuzz/request-state-key/v1!";

/// How long a `requestState` stays valid: long enough for a seed's.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The transport's line limit, and the server's smaller message limit: an
/// input can exceed either.
pub const TRANSPORT_LIMIT: usize = 2048;
/// See [`TRANSPORT_LIMIT`].
pub const MESSAGE_LIMIT: usize = 1024;

/// Stands for the latest task id the server gave.
pub const TASK_PLACEHOLDER: &[u8] = b"@TASK@";
/// Stands for the latest `requestState` the server issued.
pub const STATE_PLACEHOLDER: &[u8] = b"@STATE@";

/// What a blank line or a placeholder waits, in virtual time: enough for
/// the server to go idle, since paused time only moves then.
const IDLE: Duration = Duration::from_millis(1);

/// The virtual time an input may take before it counts as a hang.
const GUARD: Duration = Duration::from_secs(24 * 3600);

/// The tasks' TTL and the sweeper's period, short so that settling is
/// cheap (in virtual time, it is free anyway).
const TASK_TTL: Duration = Duration::from_secs(60);
const SWEEP: Duration = Duration::from_secs(10);

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime builds")
});

static SHARED: LazyLock<Option<Server>> = LazyLock::new(|| {
    std::env::var_os("PRESA_FUZZ_SHARED_SERVER")
        .is_some_and(|v| v != "0")
        .then(server)
});

static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("PRESA_FUZZ_TRACE").is_some_and(|v| v != "0"));

/// Runs one input; panics on a finding.
pub fn run(input: &[u8]) {
    RUNTIME.block_on(async {
        let server = SHARED.clone().unwrap_or_else(server);
        let shared = SHARED.is_some();
        let budget = presa_runtime::__fuzz::BudgetProbe::of(&server);
        match tokio::time::timeout(GUARD, exchange(server, input)).await {
            Ok(()) => {}
            Err(_) => panic!(
                "the server did not end within {GUARD:?} (virtual) of the client closing the connection"
            ),
        }
        // A shared server keeps its task sweeper.
        settle(usize::from(shared)).await;
        let held = budget.in_use();
        assert_eq!(
            held, 0,
            "{held} bytes still charged to the memory budget after the connection and every task ended"
        );
    });
}

/// Lets virtual time run until no more than `allowed` tokio tasks are left
/// (task runners end at their TTL, the sweeper once its store is gone).
async fn settle(allowed: usize) {
    let metrics = tokio::runtime::Handle::current().metrics();
    for _ in 0..8 {
        if metrics.num_alive_tasks() <= allowed {
            return;
        }
        tokio::time::sleep(TASK_TTL + SWEEP).await;
    }
    let left = metrics.num_alive_tasks();
    assert!(
        left <= allowed,
        "{left} tokio tasks still alive long after the connection and every task TTL ended"
    );
}

/// What the client has read so far that placeholders stand for.
#[derive(Default, Clone)]
struct Seen {
    task: Option<String>,
    state: Option<String>,
}

async fn exchange(server: Server, input: &[u8]) {
    let (client, server_io) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_io);
    let channel = byte_stream(sr, sw, TRANSPORT_LIMIT);
    let serving = tokio::spawn(serve(server, channel, Caller::anonymous()));

    let (cr, mut cw) = tokio::io::split(client);
    let (seen_tx, seen) = watch::channel(Seen::default());
    let reader = tokio::spawn(read_output(cr, seen_tx));

    for line in input.split_inclusive(|&b| b == b'\n') {
        let line = substitute(line, &seen).await;
        if *TRACE {
            eprintln!(">> {}", String::from_utf8_lossy(&line).trim_end());
        }
        if cw.write_all(&line).await.is_err() {
            break;
        }
        if line == b"\n" {
            // A blank line (which the server skips) waits until the server
            // is idle: then the clock moves, to this timer or an earlier one.
            tokio::time::sleep(IDLE).await;
        }
    }
    // End of input: the server sees the client close its side.
    let _ = cw.shutdown().await;
    reader.await.expect("the reader does not panic");
    serving.await.expect("serve does not panic");
}

/// `line` with its placeholders filled in, once the server is idle (a
/// placeholder with nothing to stand for yet stays as it is).
async fn substitute(line: &[u8], seen: &watch::Receiver<Seen>) -> Vec<u8> {
    let mut line = line.to_vec();
    let placeholders = [TASK_PLACEHOLDER, STATE_PLACEHOLDER];
    if placeholders.iter().all(|p| find(&line, p).is_none()) {
        return line;
    }
    tokio::time::sleep(IDLE).await;
    let seen = seen.borrow().clone();
    for (placeholder, value) in placeholders.into_iter().zip([seen.task, seen.state]) {
        let Some(value) = value else { continue };
        while let Some(at) = find(&line, placeholder) {
            line.splice(at..at + placeholder.len(), value.bytes());
        }
    }
    line
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads the server's output to its end, checking every line, and
/// publishes the task ids and states it sees.
async fn read_output(output: impl AsyncRead + Unpin, seen: watch::Sender<Seen>) {
    let mut output = BufReader::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        match output.read_until(b'\n', &mut line).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => panic!("reading the server's output failed: {e}"),
        }
        let text = std::str::from_utf8(&line).expect("the server writes UTF-8");
        if *TRACE {
            eprintln!("<< {}", text.trim_end());
        }
        let text = text
            .strip_suffix('\n')
            .expect("the server ends every message with a newline");
        check_output(text, &seen);
    }
}

fn check_output(text: &str, seen: &watch::Sender<Seen>) {
    let message: Message = text
        .parse()
        .unwrap_or_else(|e| panic!("the server wrote an invalid message {text}: {e:?}"));
    let result = match message {
        Message::Request(_) => panic!("the server sent a request: {text}"),
        Message::Notification(_) => return,
        Message::Response(response) => match response.outcome {
            Outcome::Error(_) => return,
            Outcome::Result(result) => {
                assert!(response.id.is_some(), "a result without an id: {text}");
                result
            }
        },
    };
    assert!(
        result.get("resultType").is_some_and(Value::is_string),
        "a result without a `resultType`: {text}"
    );
    let task = result.get("taskId").and_then(Value::as_str);
    let state = result.get("requestState").and_then(Value::as_str);
    if task.is_some() || state.is_some() {
        seen.send_modify(|seen| {
            if let Some(task) = task {
                seen.task = Some(task.to_owned());
            }
            if let Some(state) = state {
                seen.state = Some(state.to_owned());
            }
        });
    }
}

/// The server every input talks to.
pub fn server() -> Server {
    Server::builder("fuzz", "1")
        .tool(BuildTool)
        .tool(SurveyTool)
        .tool(JobTool)
        .tool(AddTool)
        .tool(ChattyTool)
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

/// Reports progress and logs.
#[tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.progress(1.0, Some(2.0), Some("half".into())).await;
    ctx.log(LoggingLevel::Info, serde_json::json!("halfway"))
        .await;
    ctx.progress(2.0, Some(2.0), None).await;
    "done"
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
