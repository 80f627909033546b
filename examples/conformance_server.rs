//! The fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), over Streamable HTTP at
//! `http://127.0.0.1:$PORT/mcp` (`PORT` from the environment, 3000 by
//! default). `scripts/conformance.sh` runs the suite against it.
//!
//! Each fixture is named and shaped as the suite's scenarios expect; the
//! comments say which scenario reads it. The first tool listed takes no
//! arguments and answers at once, as the header-validation scenario needs.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use presa::prelude::*;
use presa::server::http::{LegacySessions, StreamableHttp};
use presa::server::{CompletionContext, ToolHandler, ToolResult};
use presa::wire::{
    Content, CreateMessageParams, LoggingLevel, PromptMessage, ResourceContents, SamplingMessage,
    Tool,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A 1×1 transparent PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

fn text_resource(uri: &str, mime_type: &str, text: &str) -> Content {
    Content::embedded(ResourceContents::text(uri, text).with_mime_type(mime_type))
}

// --- tools-call-* --------------------------------------------------------

/// Returns a simple text response.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[tool]
async fn test_image_content() -> Content {
    Content::image(PNG, "image/png")
}

/// Returns audio.
#[tool]
async fn test_audio_content() -> Content {
    Content::audio(WAV, "audio/wav")
}

/// Returns an embedded resource.
#[tool]
async fn test_embedded_resource() -> Content {
    text_resource(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and a resource together.
#[tool]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        text_resource(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Fails as a tool, in band.
#[tool]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress three times, then answers.
#[tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        ctx.progress(step, Some(100.0), None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress completed"
}

/// A tool whose input schema uses JSON Schema 2020-12 keywords, listed as
/// written (`json-schema-2020-12`).
struct JsonSchemaTool;

#[async_trait::async_trait]
impl ToolHandler for JsonSchemaTool {
    fn definition(&self) -> Tool {
        let description = "A tool whose input schema uses JSON Schema 2020-12 keywords.";
        Tool {
            description: Some(description.into()),
            ..Tool::new(
                "json_schema_2020_12_tool",
                json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/address"},
                        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                        "phone": {"type": "string"},
                        "email": {"type": "string"}
                    },
                    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                    "then": {"required": ["phone"]},
                    "else": {"required": ["email"]},
                    "additionalProperties": false
                }),
            )
        }
    }

    async fn call(&self, _ctx: Context, arguments: Map<String, Value>) -> ToolResult {
        Ok(CallToolResult::from_text(
            Value::Object(arguments).to_string(),
        ))
    }
}

/// Mirrors its `region` argument into the `Mcp-Param-Region` header
/// (`http-custom-header-server-validation`).
#[tool]
async fn test_region_header(#[param(header = "Region")] region: String) -> String {
    format!("region: {region}")
}

// --- server-stateless ----------------------------------------------------

/// Needs sampling, which the scenario's client does not declare.
#[tool]
async fn test_missing_capability(ctx: Context) -> Result<String, ToolError> {
    let params = CreateMessageParams::new(vec![SamplingMessage::user("Hello")], 10);
    let reply = ctx.sample("sample", params).await?;
    Ok(reply.text().unwrap_or_default().to_owned())
}

/// Asks for input over MRTR, never with a request on the stream.
#[tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("confirm", "Continue streaming?")
        .await?;
    Ok(format!("confirmed: {}", answer.is_accepted()))
}

/// Logs, which a request without a log level never sees.
#[tool]
async fn test_logging_tool(ctx: Context) -> &'static str {
    ctx.log(LoggingLevel::Info, "a log message").await;
    "logged"
}

// --- input-required-result-* ---------------------------------------------

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Name {
    name: String,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Color {
    color: String,
}

fn capital_question() -> CreateMessageParams {
    CreateMessageParams::new(
        vec![SamplingMessage::user("What is the capital of France?")],
        100,
    )
}

/// Asks the user's name.
#[tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, ToolError> {
    match ctx
        .elicit::<Name>("user_name", "What is your name?")
        .await?
    {
        Elicitation::Accepted(Name { name }) => Ok(format!("Hello, {name}!")),
        _ => Err(ToolError::new("no name given")),
    }
}

/// Asks the client's model.
#[tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ToolError> {
    let reply = ctx.sample("capital", capital_question()).await?;
    Ok(format!(
        "The model said: {}",
        reply.text().unwrap_or_default()
    ))
}

/// Asks for the client's roots.
#[tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(format!("{} root(s)", roots.len()))
}

/// Asks for a confirmation carried across the retry in `requestState`.
#[tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Proceed?").await?;
    let ok = answer.accepted().is_some_and(|c| c.ok);
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks three things in one round.
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, ToolError> {
    let (name, reply, roots) = tokio::try_join!(
        ctx.elicit::<Name>("user_name", "What is your name?"),
        ctx.sample("capital", capital_question()),
        ctx.list_roots(),
    )?;
    Ok(format!(
        "name accepted: {}, model: {}, roots: {}",
        name.is_accepted(),
        reply.text().unwrap_or_default(),
        roots.len()
    ))
}

/// Asks a name, then a colour: two rounds.
#[tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit::<Name>("user_name", "What is your name?")
        .await?;
    let color = ctx
        .elicit::<Color>("favorite_color", "What is your favourite colour?")
        .await?;
    match (name, color) {
        (Elicitation::Accepted(n), Elicitation::Accepted(c)) => {
            Ok(format!("{} likes {}", n.name, c.color))
        }
        _ => Err(ToolError::new("both answers are needed")),
    }
}

/// Asks once; a tampered `requestState` is refused before it runs again.
#[tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Proceed?").await?;
    Ok(format!("confirmed: {}", answer.is_accepted()))
}

/// Asks only for the kinds of input the client declared it can give.
#[tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, ToolError> {
    let declared = &ctx.request().client_capabilities;
    let mut answers = Vec::new();
    if declared.supports_form_elicitation() {
        let name = ctx
            .elicit::<Name>("user_name", "What is your name?")
            .await?;
        answers.push(format!("elicitation: {}", name.is_accepted()));
    }
    if declared.sampling.is_some() {
        let reply = ctx.sample("capital", capital_question()).await?;
        answers.push(format!("sampling: {}", reply.text().unwrap_or_default()));
    }
    if declared.roots.is_some() {
        answers.push(format!("roots: {}", ctx.list_roots().await?.len()));
    }
    Ok(answers.join("; "))
}

// --- tasks-* -------------------------------------------------------------

/// Greets someone, never as a task.
#[tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds`, as a task when the client follows tasks.
#[tool(task = "optional")]
async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!(
        "{} computed after {seconds} s",
        label.unwrap_or_else(|| "result".into())
    )
}

/// Runs only as a task, and fails as a tool after a second.
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed"))
}

/// Runs only as a task, and fails with a protocol error.
#[tool(task = "required")]
async fn protocol_error_job() -> Result<String, ToolError> {
    Err(ToolError::internal("the job hit a protocol error"))
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct DeleteConfirmation {
    confirm: bool,
}

/// Asks before deleting a file, inside the task.
#[tool(task = "required")]
async fn confirm_delete(ctx: Context, filename: String) -> Result<String, ToolError> {
    let question = format!("Delete {filename}?");
    match ctx
        .elicit::<DeleteConfirmation>("confirm", question)
        .await?
    {
        Elicitation::Accepted(DeleteConfirmation { confirm: true }) => {
            Ok(format!("deleted {filename}"))
        }
        _ => Ok(format!("kept {filename}")),
    }
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct Part {
    name: Option<String>,
    confirm: Option<bool>,
}

/// Asks two questions at once, inside the task.
#[tool(task = "required")]
async fn multi_input(ctx: Context) -> Result<String, ToolError> {
    let (first, second) = tokio::try_join!(
        ctx.elicit::<Part>("first", "First part?"),
        ctx.elicit::<Part>("second", "Second part?"),
    )?;
    let describe = |part: Elicitation<Part>| match part.accepted() {
        Some(Part { name, confirm }) => {
            format!(
                "{} ({})",
                name.unwrap_or_default(),
                confirm.unwrap_or(false)
            )
        }
        None => "nothing".into(),
    };
    Ok(format!("got {} and {}", describe(first), describe(second)))
}

/// Asks the user's name over MRTR, then runs as a task.
#[tool(task = "required", task_start = "explicit")]
async fn test_tool_with_task(ctx: Context) -> Result<String, ToolError> {
    let name = match ctx
        .elicit::<Name>("user_name", "What is your name?")
        .await?
    {
        Elicitation::Accepted(Name { name }) => name,
        _ => return Err(ToolError::new("no name given")),
    };
    ctx.start_task().await;
    Ok(format!("Hello, {name}, from a task!"))
}

// --- prompts-* ------------------------------------------------------------

/// A prompt without arguments.
#[prompt]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two required arguments.
#[prompt]
async fn test_prompt_with_arguments(
    #[param(description = "The first argument", complete = complete_argument)] arg1: String,
    #[param(description = "The second argument")] arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Completes an argument among a few values (`completion-complete`).
fn complete_argument(partial: &str, _: &CompletionContext) -> Vec<String> {
    ["test", "testing", "tested"]
        .into_iter()
        .filter(|value| value.starts_with(partial))
        .map(str::to_owned)
        .collect()
}

/// A prompt that embeds the resource it is given.
#[prompt]
#[allow(non_snake_case)] // The suite names the argument `resourceUri`.
async fn test_prompt_with_embedded_resource(
    #[param(description = "The URI of the resource to embed")] resourceUri: String,
) -> Vec<PromptMessage> {
    let contents = ResourceContents::text(resourceUri, "Embedded resource content for testing.")
        .with_mime_type("text/plain");
    vec![
        PromptMessage::user(Content::embedded(contents)),
        PromptMessage::user(Content::text("Please process the embedded resource above.")),
    ]
}

/// A prompt with an image.
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image(PNG, "image/png")),
        PromptMessage::user(Content::text("Please analyze the image above.")),
    ]
}

#[derive(Deserialize, schemars::JsonSchema, Elicit)]
struct UserContext {
    context: String,
}

/// A prompt that asks for context over MRTR before it resolves.
#[prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, ToolError> {
    let question = "What context should the prompt use?";
    match ctx.elicit::<UserContext>("user_context", question).await? {
        Elicitation::Accepted(UserContext { context }) => {
            Ok(format!("Use this context: {context}"))
        }
        _ => Err(ToolError::new("no context given")),
    }
}

// --- resources-* ----------------------------------------------------------

/// A text resource; listed first, so `caching` reads it.
#[resource(
    uri = "test://static-text",
    mime_type = "text/plain",
    ttl_ms = 60000,
    cache_scope = "public"
)]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A binary resource.
#[resource(
    uri = "test://static-binary",
    mime_type = "image/png",
    ttl_ms = 60000,
    cache_scope = "public"
)]
async fn static_binary() -> ResourceContents {
    ResourceContents::blob("test://static-binary", PNG).with_mime_type("image/png")
}

/// Data for an id, from a template.
#[resource(uri = "test://template/{id}/data", mime_type = "application/json")]
async fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// --- server-stateless: list changes ---------------------------------------

/// The running server, for the triggers to change its lists.
#[derive(Clone, Default)]
struct Running(Arc<OnceLock<Server>>);

/// Appears and disappears when `test_trigger_tool_change` runs.
#[tool]
async fn test_transient_tool() -> &'static str {
    "here for a moment"
}

/// Appears and disappears when `test_trigger_prompt_change` runs.
#[prompt]
async fn test_transient_prompt() -> &'static str {
    "here for a moment"
}

/// Changes the tool list (a tool comes and goes), which listeners of
/// `toolsListChanged` hear about.
#[tool]
async fn test_trigger_tool_change(State(running): State<Running>) -> Result<String, ToolError> {
    let server = running.0.get().ok_or("the server is not running yet")?;
    server
        .add_tool(TestTransientToolTool)
        .map_err(ToolError::internal)?;
    server.remove_tool("test_transient_tool");
    Ok("the tool list changed".into())
}

/// Changes the prompt list, which listeners of `promptsListChanged` hear
/// about.
#[tool]
async fn test_trigger_prompt_change(State(running): State<Running>) -> Result<String, ToolError> {
    let server = running.0.get().ok_or("the server is not running yet")?;
    server
        .add_prompt(TestTransientPromptPrompt)
        .map_err(ToolError::internal)?;
    server.remove_prompt("test_transient_prompt");
    Ok("the prompt list changed".into())
}

// --- 2025-11-25: legacy sessions ------------------------------------------

/// Three info logs, 50 ms apart (tools-call-with-logging).
#[tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool execution completed")
        .await;
    "Tool with logging executed successfully"
}

/// Asks the client's model (tools-call-sampling).
#[tool]
async fn test_sampling(ctx: Context, prompt: String) -> Result<String, ToolError> {
    let params = CreateMessageParams::new(vec![SamplingMessage::user(prompt)], 100);
    let reply = ctx.sample("sampling", params).await?;
    Ok(format!(
        "LLM response: {}",
        reply.text().unwrap_or_default()
    ))
}

/// Asks the user through a form given at run time, and says what came
/// back.
async fn elicit_and_report(
    ctx: &Context,
    message: String,
    schema: Value,
    prefix: &str,
) -> Result<String, ToolError> {
    let form = FormSchema::new(schema).map_err(ToolError::internal)?;
    let answer = ctx.elicit_form("form", message, &form).await?;
    let (action, content) = match answer {
        Elicitation::Accepted(content) => ("accept", Value::Object(content)),
        Elicitation::Declined => ("decline", Value::Null),
        Elicitation::Cancelled => ("cancel", Value::Null),
    };
    Ok(format!("{prefix}action={action}, content={content}"))
}

/// Asks for a username and an email (tools-call-elicitation).
#[tool]
async fn test_elicitation(ctx: Context, message: String) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    elicit_and_report(&ctx, message, schema, "User response: ").await
}

/// A form with a default for every primitive type
/// (elicitation-sep1034-defaults).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                       "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    let message = "Please review and update the form fields with defaults".to_owned();
    elicit_and_report(&ctx, message, schema, "Elicitation completed: ").await
}

/// A form with every kind of enum (elicitation-sep1330-enums).
#[tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ToolError> {
    let titled = |values: [(&str, &str); 3]| -> Vec<Value> {
        values
            .iter()
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled([
                ("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")
            ])},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array",
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled([
                ("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")
            ])}}
        }
    });
    let message = "Please select options from the enum fields".to_owned();
    elicit_and_report(&ctx, message, schema, "Elicitation completed: ").await
}

/// Outlasts its event stream, which the endpoint closes after
/// `STREAM_POLL` for the client to poll (server-sse-polling).
#[tool]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(STREAM_POLL * 2).await;
    "Reconnection test completed"
}

/// When a legacy request's event stream is closed for the client to poll.
const STREAM_POLL: Duration = Duration::from_secs(1);

// --- sep-2640-skills-* ----------------------------------------------------

/// The fixture skills, embedded at compile time from `conformance/skills`.
/// The first listed (`acme/billing/refunds`) has a subfolder, which the
/// directory scenario reads; `pdf-processing` nests a skill and holds a
/// binary file.
fn skills() -> presa::server::skills::SkillLibrary {
    presa::embed_skills!("conformance/skills").expect("the fixture skills follow the spec")
}

fn server(running: Running) -> Server {
    Server::builder("presa-conformance", env!("CARGO_PKG_VERSION"))
        .instructions("The conformance suite's fixtures.")
        // Listed first: no arguments, answers at once.
        .tool(TestSimpleTextTool)
        .tool(TestImageContentTool)
        .tool(TestAudioContentTool)
        .tool(TestEmbeddedResourceTool)
        .tool(TestMultipleContentTypesTool)
        .tool(TestErrorHandlingTool)
        .tool(TestToolWithProgressTool)
        .tool(JsonSchemaTool)
        .tool(TestMissingCapabilityTool)
        .tool(TestStreamingElicitationTool)
        .tool(TestLoggingToolTool)
        .tool(TestInputRequiredResultElicitationTool)
        .tool(TestInputRequiredResultSamplingTool)
        .tool(TestInputRequiredResultListRootsTool)
        .tool(TestInputRequiredResultRequestStateTool)
        .tool(TestInputRequiredResultMultipleInputsTool)
        .tool(TestInputRequiredResultMultiRoundTool)
        .tool(TestInputRequiredResultTamperedStateTool)
        .tool(TestInputRequiredResultCapabilitiesTool)
        .tool(GreetTool)
        .tool(SlowComputeTool)
        .tool(FailingJobTool)
        .tool(ProtocolErrorJobTool)
        .tool(ConfirmDeleteTool)
        .tool(MultiInputTool)
        .tool(TestToolWithTaskTool)
        .tool(TestRegionHeaderTool)
        .tool(TestTriggerToolChangeTool)
        .tool(TestTriggerPromptChangeTool)
        .tool(TestToolWithLoggingTool)
        .tool(TestSamplingTool)
        .tool(TestElicitationTool)
        .tool(TestElicitationSep1034DefaultsTool)
        .tool(TestElicitationSep1330EnumsTool)
        .tool(TestReconnectionTool)
        .prompt(TestSimplePromptPrompt)
        .prompt(TestPromptWithArgumentsPrompt)
        .prompt(TestPromptWithEmbeddedResourcePrompt)
        .prompt(TestPromptWithImagePrompt)
        .prompt(TestInputRequiredResultPromptPrompt)
        .resource(StaticTextResource)
        .resource(StaticBinaryResource)
        .resource(TemplateDataResource)
        .skills(skills())
        .state(running)
        .tasks(TaskSettings::default().poll_interval(Duration::from_millis(100)))
        .build()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(3000);
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    eprintln!("conformance server at http://localhost:{port}/mcp");
    let running = Running::default();
    let server = server(running.clone());
    let _ = running.0.set(server.clone());
    StreamableHttp::new(server)
        .legacy_sessions(LegacySessions::new().close_streams_after(STREAM_POLL))
        .serve(address)
        .await
}
