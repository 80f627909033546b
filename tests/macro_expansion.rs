//! `#[tool]` and `#[derive(Elicit)]` expansions that must compile, and the
//! listings they produce. Calls here run on a standalone `Context`, which
//! has no application state; calls through a server are tested end to end
//! elsewhere.

use presa::prelude::*;
use presa::server::{Elicit, ToolHandler, ToolPolicy};
use presa::server::{FromContext, StateType};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Application state for the `State` extractor.
#[derive(Clone)]
struct Db;

/// Builds a target.
///
///  Keeps this indentation.
#[tool(task = "optional")]
async fn build(
    ctx: Context,
    State(_db): State<Db>,
    #[param(description = "What to build")] target: String,
    level: Option<u8>,
) -> Result<String, ToolError> {
    let _ = ctx.request();
    Ok(format!("{target} {level:?}"))
}

/// Not shown: `description` overrides it.
#[tool(name = "say-hello", description = "Greets.")]
async fn greet(mut who: String, r#type: Option<String>) -> &'static str {
    who.push('!');
    let _ = r#type;
    "hello"
}

/// Statistics, as structured output.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Stats {
    pub count: u32,
}

/// Counts.
#[tool]
pub async fn stats(_ctx: &Context) -> Json<Stats> {
    Json(Stats { count: 1 })
}

#[tool(task = "required")]
async fn raw() -> CallToolResult {
    CallToolResult::from_text("raw")
}

#[tool]
async fn noop() {}

/// Looks things up.
#[tool(title = "Look up", read_only, idempotent, destructive = false)]
async fn lookup(key: String) -> String {
    key
}

/// Runs large deployments as tasks.
fn deploy_policy(args: &DeployArgs, _request: &RequestInfo) -> TaskPolicy {
    if args.replicas > 10 {
        TaskPolicy::Required
    } else {
        TaskPolicy::Sync
    }
}

/// Deploys.
#[tool(task = deploy_policy)]
async fn deploy(replicas: u32, State(_a): State<Db>, State(_b): State<Db>) -> String {
    replicas.to_string()
}

/// Types of the application's own that share a name with presa's
/// extractors.
mod mine {
    /// Where a text will be shown: a JSON argument, despite its name.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    pub struct Context {
        /// The reader's locale.
        pub locale: String,
    }
}

/// Translates a text for a context of the caller's.
#[tool]
async fn translate(
    #[param(arg, description = "Where the text is shown")] context: mine::Context,
    text: String,
) -> String {
    format!("{text} [{}]", context.locale)
}

/// The authenticated caller, or a tool error.
struct Subject(String);

impl FromContext for Subject {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.request()
            .caller
            .subject
            .clone()
            .map(Subject)
            .ok_or_else(|| ToolError::new("anonymous callers may not ask"))
    }
}

/// Says who is calling.
#[tool]
async fn whoami(#[param(extract)] Subject(who): Subject, ctx: &Context) -> String {
    format!("{who} on {}", ctx.request().protocol_version)
}

/// A select field.
#[derive(Deserialize, schemars::JsonSchema, Elicit)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
}

/// A form.
#[derive(Deserialize, schemars::JsonSchema, Elicit)]
#[allow(dead_code)]
struct Confirm {
    ok: bool,
    note: Option<String>,
    color: Color,
    extra: Vec<Color>,
    count: u32,
}

fn request() -> RequestInfo {
    RequestInfo {
        protocol_version: "2026-07-28".into(),
        client_capabilities: Default::default(),
        client_info: None,
        caller: presa::Caller::anonymous(),
    }
}

fn request_from(subject: &str) -> RequestInfo {
    RequestInfo {
        caller: presa::Caller::subject(subject),
        ..request()
    }
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

#[test]
fn build_definition() {
    let tool = BuildTool.definition();
    assert_eq!(tool.name, "build");
    assert_eq!(
        tool.description.as_deref(),
        Some("Builds a target.\n\n Keeps this indentation.")
    );
    let schema = &tool.input_schema;
    assert_eq!(schema["type"], "object");
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["level", "target"]);
    assert_eq!(schema["properties"]["target"]["type"], "string");
    assert_eq!(
        schema["properties"]["target"]["description"],
        "What to build"
    );
    assert!(schema["properties"]["level"].get("description").is_none());
    assert_eq!(schema["required"], json!(["target"]));
    assert!(tool.output_schema.is_none());
    assert_eq!(BuildTool.policy(), ToolPolicy::Fixed(TaskPolicy::Optional));
}

#[test]
fn build_args_parse() {
    let args = BuildArgs::__parse(arguments(json!({"target": "x"}))).unwrap();
    assert_eq!(args.target, "x");
    assert_eq!(args.level, None);
    let err = BuildArgs::__parse(arguments(json!({"level": 3})))
        .err()
        .unwrap();
    assert_eq!(err.field, "target");
}

#[test]
fn overridden_name_and_description() {
    let tool = GreetTool.definition();
    assert_eq!(tool.name, "say-hello");
    assert_eq!(tool.description.as_deref(), Some("Greets."));
    // Raw identifiers are listed without `r#`.
    assert_eq!(tool.input_schema["required"], json!(["who"]));
    assert!(tool.input_schema["properties"].get("type").is_some());
    assert_eq!(GreetTool.policy(), ToolPolicy::Fixed(TaskPolicy::Sync));
}

#[test]
fn structured_output() {
    let tool = StatsTool.definition();
    assert_eq!(tool.description.as_deref(), Some("Counts."));
    let output = tool.output_schema.expect("Json<T> has an output schema");
    assert_eq!(output["type"], "object");
    assert!(output["properties"].get("count").is_some());
    // No arguments: only `{}` is accepted.
    assert_eq!(
        tool.input_schema,
        json!({"type": "object", "additionalProperties": false})
    );
}

#[test]
fn no_doc_no_arguments() {
    let tool = RawTool.definition();
    assert_eq!(tool.name, "raw");
    assert_eq!(tool.description, None);
    assert!(tool.output_schema.is_none());
    assert_eq!(RawTool.policy(), ToolPolicy::Fixed(TaskPolicy::Required));

    let tool = NoopTool.definition();
    assert_eq!(tool.name, "noop");
    assert!(tool.output_schema.is_none());
    assert_eq!(NoopTool.policy(), ToolPolicy::Fixed(TaskPolicy::Sync));
}

#[test]
fn per_call_policy() {
    assert_eq!(DeployTool.policy(), ToolPolicy::PerCall);
    let ctx = presa::Context::standalone(request());
    let policy = |v| DeployTool.task_policy(&arguments(v), &ctx);
    assert_eq!(policy(json!({"replicas": 50})), Ok(TaskPolicy::Required));
    assert_eq!(policy(json!({"replicas": 2})), Ok(TaskPolicy::Sync));
    // Arguments that do not parse run synchronously, to fail fast.
    assert_eq!(policy(json!({"replicas": "many"})), Ok(TaskPolicy::Sync));
    let tool = DeployTool.definition();
    assert_eq!(
        tool.input_schema["properties"].as_object().unwrap().len(),
        1
    );
}

#[test]
fn elicit_form() {
    let schema = Confirm::requested_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["ok"]["type"], "boolean");
    assert!(schema["properties"].get("color").is_some());
}

#[test]
fn title_and_behaviour_hints() {
    let tool = LookupTool.definition();
    assert_eq!(tool.title.as_deref(), Some("Look up"));
    let value = serde_json::to_value(&tool).unwrap();
    assert_eq!(
        value["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true, "destructiveHint": false})
    );
    assert!(
        serde_json::to_value(BuildTool.definition())
            .unwrap()
            .get("annotations")
            .is_none(),
        "no hints, no annotations"
    );
}

#[test]
fn a_user_type_named_context_is_an_argument_with_param_arg() {
    let tool = TranslateTool.definition();
    let schema = &tool.input_schema;
    assert_eq!(schema["required"], json!(["context", "text"]));
    let context = &schema["properties"]["context"];
    assert_eq!(context["description"], "Where the text is shown");
    let args = TranslateArgs::__parse(arguments(json!({
        "context": {"locale": "fr"},
        "text": "hello",
    })))
    .unwrap();
    assert_eq!(args.context.locale, "fr");
    assert!(TranslateTool.required_state().is_empty());
}

#[tokio::test]
async fn a_user_type_named_context_is_parsed_from_the_arguments() {
    let ctx = presa::Context::standalone(request());
    let arguments = arguments(json!({"context": {"locale": "fr"}, "text": "hello"}));
    let result = TranslateTool.call(ctx, arguments).await.unwrap();
    assert_eq!(result.text(), Some("hello [fr]"));
}

#[tokio::test]
async fn a_custom_extractor_is_made_from_the_context() {
    assert_eq!(
        WhoamiTool.definition().input_schema,
        json!({"type": "object", "additionalProperties": false}),
        "extractors are not arguments"
    );
    let ctx = presa::Context::standalone(request_from("alice"));
    let result = WhoamiTool.call(ctx, Map::new()).await.unwrap();
    assert_eq!(result.text(), Some("alice on 2026-07-28"));

    let anonymous = presa::Context::standalone(request());
    let error = WhoamiTool.call(anonymous, Map::new()).await.unwrap_err();
    assert!(
        format!("{error:?}").contains("anonymous callers may not ask"),
        "{error:?}"
    );
}

#[test]
fn tools_list_the_state_their_extractors_read() {
    let db = vec![StateType::of::<Db>()];
    assert_eq!(BuildTool.required_state(), db);
    assert_eq!(DeployTool.required_state(), db, "listed once");
    assert!(WhoamiTool.required_state().is_empty());
    assert!(GreetTool.required_state().is_empty());
    assert_eq!(db[0].name(), std::any::type_name::<Db>());
}

/// Runs in a region, mirrored into a header over HTTP.
#[tool]
async fn regional(
    #[param(header = "Region", description = "Where to run")] region: String,
    #[param(header = "Retries")] retries: Option<u8>,
    query: String,
) -> String {
    format!("{region} {retries:?} {query}")
}

#[test]
fn a_header_parameter_is_marked_in_the_schema() {
    let schema = RegionalTool.definition().input_schema;
    assert_eq!(schema["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(
        schema["properties"]["region"]["description"],
        "Where to run"
    );
    assert_eq!(schema["properties"]["retries"]["x-mcp-header"], "Retries");
    assert!(schema["properties"]["query"].get("x-mcp-header").is_none());
    let params = presa::wire::headers::header_params(&schema).unwrap();
    assert_eq!(params.len(), 2);
}

/// Mirrors a float, which no header may carry.
#[tool]
async fn float_header(#[param(header = "Ratio")] ratio: f64) -> String {
    ratio.to_string()
}

#[test]
#[should_panic(expected = "tool `float_header` has an invalid inputSchema")]
fn a_header_on_a_non_primitive_is_refused_at_registration() {
    let _ = Server::builder("bad", "1").tool(FloatHeaderTool);
}
