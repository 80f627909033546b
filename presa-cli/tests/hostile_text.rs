//! `presa` against a server that writes terminal escapes into every kind
//! of text it sends: its name and instructions, tool, prompt and resource
//! listings, a tool's output and its error, a prompt's messages, a
//! resource's contents, a JSON-RPC error, a task's status message, and the
//! questions it asks (a form's message and field names, a URL question).
//!
//! Each text holds OSC 8 (a link to another URL than the one shown),
//! OSC 52 (a write to the clipboard), CSI (clear the screen, move the
//! cursor), the 8-bit CSI (U+009B), a carriage return, a backspace, a bell
//! and a bidi override. What `presa` prints must hold none of them raw,
//! and must show them escaped; `--json` must stay the exact JSON.
//!
//! The server runs in this test's process over HTTP, listening before any
//! `presa` starts, so nothing waits on a clock.

mod common;

use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use common::{Served, presa};
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::{
    FormSchema, PromptHandler, PromptResult, ReadRequest, ReadResult, ResourceDefinition,
    ResourceHandler, TaskSettings, ToolHandler, ToolResult,
};
use presa::wire::{PromptArguments, Resource};
use serde_json::{Map, Value, json};

/// Every attack at once: OSC 8, OSC 52, CSI, the 8-bit CSI, `\r`,
/// backspace, bell, a bidi override.
const HOSTILE: &str = "\x1b]8;;https://evil.example/\x1b\\https://good.example/\x1b]8;;\x1b\\ \
                       \x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b[2J\x1b[H \u{9b}31m \rfake\x08 \
                       \u{202e}exe.txt";

/// How `presa` shows the OSC 52 of [`HOSTILE`]: escaped, so visible.
const SHOWN: &str = r"\x1b]52;c;ZWNobyBwd25lZA==\x07";

/// Checks that `bytes` hold no control character but line breaks (and
/// tabs), no 8-bit control and no bidi override: nothing a terminal
/// would act on.
fn assert_inert(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let live: Vec<char> = text
        .chars()
        .filter(|c| {
            (c.is_control() && *c != '\n' && *c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(
        live.is_empty(),
        "{what} holds {live:?}, which a terminal acts on:\n{text}"
    );
}

/// Checks that `presa` printed nothing a terminal would act on, on
/// either stream, and showed the escaped OSC 52 on one of them.
fn assert_escaped(output: &Output) {
    assert_inert(&output.stdout, "stdout");
    assert_inert(&output.stderr, "stderr");
    let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(all.contains(SHOWN), "the escape is not shown:\n{all}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A tool whose every text is hostile: listed with a hostile description
/// and parameter, answering with hostile text, a link, an image type and
/// structured content.
struct LoudTool;

#[async_trait::async_trait]
impl ToolHandler for LoudTool {
    fn definition(&self) -> presa::wire::Tool {
        serde_json::from_value(json!({
            "name": "loud",
            "description": HOSTILE,
            "inputSchema": {
                "type": "object",
                "properties": {"what": {"type": "string", "description": HOSTILE}},
            },
        }))
        .unwrap()
    }

    async fn call(&self, _: Context, _: Map<String, Value>) -> ToolResult {
        Ok(serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": HOSTILE},
                {"type": "resource_link", "name": HOSTILE, "uri": "note://first"},
                {"type": "image", "mimeType": HOSTILE, "data": "AAAA"},
            ],
            "structuredContent": {"said": HOSTILE},
        }))
        .unwrap())
    }
}

/// Fails with hostile text (`isError`).
#[tool]
async fn failing() -> Result<String, ToolError> {
    Err(ToolError::new(HOSTILE))
}

/// Sets a hostile status message, then works until cancelled.
#[tool(task = "required")]
async fn busy(ctx: Context) -> String {
    ctx.set_status_message(HOSTILE).await;
    std::future::pending().await
}

/// Asks a form question whose message and field are hostile.
#[tool]
async fn ask(ctx: Context) -> Result<String, ToolError> {
    let form = FormSchema::new(json!({
        "type": "object",
        "properties": {
            "ok; touch pwned": {"type": "boolean", "title": HOSTILE, "description": HOSTILE},
        },
        "required": ["ok; touch pwned"],
    }))
    .map_err(ToolError::internal)?;
    ctx.elicit_form("confirm", HOSTILE, &form).await?;
    Ok("answered".into())
}

/// Sends the person to a URL whose user part looks like a host.
#[tool]
async fn visit(ctx: Context) -> Result<String, ToolError> {
    ctx.elicit_url("login", HOSTILE, "https://good.example@evil.example/login")
        .await?;
    Ok("visited".into())
}

/// A prompt whose description, argument and message are hostile.
struct LoudPrompt;

#[async_trait::async_trait]
impl PromptHandler for LoudPrompt {
    fn definition(&self) -> presa::wire::Prompt {
        serde_json::from_value(json!({
            "name": "loud",
            "description": HOSTILE,
            "arguments": [{"name": "who", "description": HOSTILE}],
        }))
        .unwrap()
    }

    async fn get(&self, _: Context, arguments: PromptArguments) -> PromptResult {
        if arguments.contains_key("who") {
            return Err(ToolError::new(HOSTILE));
        }
        Ok(serde_json::from_value(json!({
            "description": HOSTILE,
            "messages": [{"role": "user", "content": {"type": "text", "text": HOSTILE}}],
        }))
        .unwrap())
    }
}

/// A resource whose name, description, type and contents are hostile.
struct LoudResource;

#[async_trait::async_trait]
impl ResourceHandler for LoudResource {
    fn definition(&self) -> ResourceDefinition {
        let mut resource: Resource = serde_json::from_value(json!({
            "uri": "note://first",
            "name": HOSTILE,
            "description": HOSTILE,
        }))
        .unwrap();
        resource.mime_type = Some(HOSTILE.into());
        ResourceDefinition::Fixed(resource)
    }

    async fn read(&self, _: Context, request: ReadRequest) -> ReadResult {
        Ok(request.result(vec![request.text(HOSTILE)]))
    }
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let server = Server::builder(HOSTILE, HOSTILE)
            .instructions(HOSTILE)
            .tool(LoudTool)
            .tool(FailingTool)
            .tool(BusyTool)
            .tool(AskTool)
            .tool(VisitTool)
            .tool(ScriptTool)
            .prompt(LoudPrompt)
            .resource(LoudResource)
            .tasks(TaskSettings::default().poll_interval(Duration::from_millis(20)))
            .build();
        Served::new(server)
    })
}

/// `presa ARGS` for a person, then with `--json`: the text shows every
/// escape escaped; the JSON holds nothing raw either, and reads back as
/// the server's exact text wherever `pointer` points.
fn shown_both_ways(args: &[&str], status: i32, pointer: &str) {
    let output = presa(args);
    assert_eq!(
        output.status.code(),
        Some(status),
        "{}",
        text(&output.stderr)
    );
    assert_escaped(&output);

    let mut json_args = args.to_vec();
    json_args.push("--json");
    let output = presa(&json_args);
    assert_eq!(
        output.status.code(),
        Some(status),
        "{}",
        text(&output.stderr)
    );
    assert_inert(&output.stdout, "the JSON");
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {}", text(&output.stdout)));
    assert_eq!(
        document.pointer(pointer),
        Some(&Value::String(HOSTILE.into())),
        "{document}"
    );
}

#[test]
fn a_tool_listing_is_shown_escaped() {
    shown_both_ways(&["tools", &served().url], 0, "/0/description");
}

#[test]
fn a_tool_s_output_is_shown_escaped() {
    shown_both_ways(&["call", &served().url, "loud"], 0, "/content/0/text");
    let output = presa(&["call", &served().url, "loud"]);
    let out = text(&output.stdout);
    assert!(out.contains("[link: "), "{out}");
    assert!(out.contains("[image: "), "{out}");
}

#[test]
fn a_tool_s_error_is_shown_escaped() {
    shown_both_ways(&["call", &served().url, "failing"], 1, "/content/0/text");
}

#[test]
fn prompts_are_shown_escaped() {
    shown_both_ways(&["prompts", &served().url], 0, "/0/description");
    shown_both_ways(
        &["prompt", &served().url, "loud"],
        0,
        "/messages/0/content/text",
    );
}

#[test]
fn a_json_rpc_error_s_message_is_shown_escaped() {
    let output = presa(&["prompt", &served().url, "loud", "who=me"]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert_escaped(&output);
}

#[test]
fn resources_are_shown_escaped() {
    shown_both_ways(&["resources", &served().url], 0, "/0/name");
    shown_both_ways(
        &["read", &served().url, "note://first"],
        0,
        "/contents/0/text",
    );
}

#[test]
fn the_server_s_name_and_instructions_are_shown_escaped() {
    let output = presa(&["discover", &served().url]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_escaped(&output);
    let output = presa(&["discover", &served().url, "--json"]);
    assert_inert(&output.stdout, "the JSON");
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["instructions"], HOSTILE, "{document}");
}

/// A task of `busy`, once its hostile status message is set.
fn busy_task() -> String {
    let served = served();
    served.runtime.block_on(async {
        let client = Client::builder()
            .tasks(true)
            .connect(in_process(&served.server, Caller::anonymous()));
        let created = client.call_tool("busy", json!({})).await.expect("the call");
        let id = created.task().expect("a task").id().to_owned();
        let (said, mut heard) = tokio::sync::mpsc::unbounded_channel();
        let options = AwaitOptions::default().on_state(move |task| {
            if task.status_message.is_some() {
                let _ = said.send(());
            }
        });
        tokio::select! {
            _ = client.await_task(&id, options) => panic!("the task ended"),
            _ = heard.recv() => {}
        }
        client.close().await.expect("the client closes");
        id
    })
}

#[test]
fn a_task_s_status_message_is_shown_escaped() {
    let id = busy_task();
    shown_both_ways(&["task", &served().url, "get", &id], 0, "/statusMessage");
    let _ = presa(&["task", &served().url, "cancel", &id]);
}

#[test]
fn an_unanswered_form_is_told_escaped_with_a_quoted_answer() {
    let output = presa(&["call", &served().url, "ask"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output.stderr));
    assert_escaped(&output);
    let said = text(&output.stderr);
    assert!(
        said.contains("--answer 'confirm.ok; touch pwned'=true"),
        "the suggested answer is not quoted for a shell: {said}"
    );
}

#[test]
fn an_unanswered_url_question_is_told_escaped_with_its_real_host() {
    let output = presa(&["call", &served().url, "visit"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output.stderr));
    assert_escaped(&output);
    let said = text(&output.stderr);
    assert!(said.contains("host evil.example"), "{said}");
}

/// Sends the person to a `javascript:` URL.
#[tool]
async fn script(ctx: Context) -> Result<String, ToolError> {
    let action = ctx
        .elicit_url("run", "Open this", "javascript:alert(document.cookie)")
        .await?;
    Ok(format!("{action:?}"))
}

#[test]
fn a_url_that_is_not_http_is_declined_without_asking() {
    let output = presa(&["call", &served().url, "script"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let said = text(&output.stderr);
    assert!(
        said.contains("javascript:alert(document.cookie)")
            && said.contains("presa offers only http and https URLs; declined"),
        "{said}"
    );
    assert!(!said.contains("run presa in a terminal"), "{said}");
    assert_eq!(text(&output.stdout).trim(), "Decline");
}
