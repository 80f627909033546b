//! Extractors end to end: a user type that shares a name with presa's
//! `Context`, a custom extractor, and the state check at `build`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::{FromContext, ServerBuilder, StateType};
use serde_json::json;

/// The application's own types, named like presa's extractors.
mod mine {
    /// Where a text will be shown: a JSON argument, despite its name.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    pub struct Context {
        /// The reader's locale.
        pub locale: String,
    }
}

/// Translates a text for where it is shown.
#[tool]
async fn translate(
    #[param(arg, description = "Where the text is shown")] context: mine::Context,
    text: String,
) -> String {
    format!("{text} [{}]", context.locale)
}

/// The authenticated caller; anonymous calls are refused.
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
async fn whoami(#[param(extract)] Subject(who): Subject) -> String {
    who
}

/// Greetings per caller, registered as application state.
#[derive(Clone)]
struct Greetings(&'static str);

/// The caller's greeting: an extractor that reads application state, and
/// declares it.
struct Greeting(String);

impl FromContext for Greeting {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        let State(greetings) = State::<Greetings>::from_context(ctx)?;
        let Subject(who) = Subject::from_context(ctx)?;
        Ok(Greeting(format!("{} {who}", greetings.0)))
    }

    fn required_state() -> Vec<StateType> {
        State::<Greetings>::required_state()
    }
}

/// Greets the caller.
#[tool]
async fn greet(#[param(extract)] Greeting(text): Greeting) -> String {
    text
}

/// Counts, with a counter from application state.
#[tool]
async fn count(State(counter): State<Counter>) -> String {
    counter.0.to_string()
}

/// Application state that `count` needs.
#[derive(Clone)]
struct Counter(u32);

fn server() -> Server {
    Server::builder("extractors", "1")
        .tool(TranslateTool)
        .tool(WhoamiTool)
        .tool(GreetTool)
        .state(Greetings("hello"))
        .build()
}

fn client_as(server: &Server, caller: Caller) -> Client {
    Client::builder().connect(in_process(server, caller))
}

/// The panic message of `build`, if it panics.
fn build_panic(builder: ServerBuilder) -> Option<String> {
    let payload = catch_unwind(AssertUnwindSafe(|| builder.build())).err()?;
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
}

#[tokio::test]
async fn a_user_type_named_context_is_a_json_argument_with_param_arg() {
    let server = server();
    let client = client_as(&server, Caller::anonymous());
    let tools = client.list_tools().await.unwrap();
    let translate = tools.iter().find(|t| t.name == "translate").unwrap();
    let schema = &translate.input_schema;
    assert_eq!(schema["required"], json!(["context", "text"]));
    assert_eq!(
        schema["properties"]["context"]["description"],
        "Where the text is shown"
    );
    let arguments = json!({"context": {"locale": "fr"}, "text": "hello"});
    let result = client.call_tool("translate", arguments).await.unwrap();
    assert_eq!(result.text(), Some("hello [fr]"));
}

#[tokio::test]
async fn a_custom_extractor_reads_the_caller() {
    let server = server();
    let alice = client_as(&server, Caller::subject("alice"));
    let result = alice.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("alice"));
    let result = alice.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("hello alice"));

    let anonymous = client_as(&server, Caller::anonymous());
    let result = anonymous.call_tool("whoami", json!({})).await.unwrap();
    let result = result.complete().unwrap();
    assert!(result.is_error());
    assert_eq!(result.text(), Some("anonymous callers may not ask"));
}

#[test]
fn a_tool_whose_state_is_missing_stops_the_build() {
    let message = build_panic(Server::builder("s", "1").tool(CountTool))
        .expect("building without the state panics");
    assert_eq!(
        message,
        format!(
            "tool `count` needs state of type `{}`, but none was registered; call \
             ServerBuilder::state",
            std::any::type_name::<Counter>()
        )
    );
    let registered = Server::builder("s", "1").tool(CountTool).state(Counter(1));
    assert_eq!(build_panic(registered), None);
}

#[test]
fn a_custom_extractor_declares_the_state_it_reads() {
    let message = build_panic(Server::builder("s", "1").tool(GreetTool))
        .expect("building without the state panics");
    assert!(
        message.starts_with("tool `greet` needs state of type"),
        "{message}"
    );
    assert!(message.contains("Greetings"), "{message}");
}
