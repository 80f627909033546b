//! `#[prompt]` and `#[resource]` expansions that must compile, and the
//! handlers they produce, called directly on a standalone `Context`.

use std::collections::BTreeMap;
use std::time::Duration;

use presa::prelude::*;
use presa::server::{
    FromContext, PromptHandler, ReadCache, ReadRequest, ResourceDefinition, ResourceHandler,
    StateType,
};
use presa::wire::CacheScope;

/// Application state for the `State` extractor.
#[derive(Clone)]
struct Greeting(&'static str);

fn suggest(typed: &str, _ctx: &CompletionContext) -> Vec<String> {
    vec![format!("{typed}!")]
}

/// Greets someone
/// warmly.
#[prompt(title = "Greet")]
async fn greet(
    _ctx: &Context,
    State(greeting): State<Greeting>,
    #[param(description = "Who", complete = suggest)] r#who: String,
    r#type: Option<u8>,
) -> String {
    format!("{} {who} {type:?}", greeting.0)
}

#[prompt(name = "plain", description = "No arguments")]
async fn no_arguments() -> &'static str {
    "plain"
}

/// A note.
#[resource(
    uri = "notes://{id}/{+rest}",
    mime_type = "text/plain",
    cache_scope = "public"
)]
async fn note(#[param(complete = suggest)] id: u32, rest: String, _ctx: Context) -> String {
    format!("{id}:{rest}")
}

#[resource(uri = "file:///a.txt", name = "a", title = "A", ttl_ms = 1500)]
async fn fixed() -> Vec<u8> {
    b"a".to_vec()
}

fn request() -> RequestInfo {
    RequestInfo {
        protocol_version: "2026-07-28".into(),
        client_capabilities: Default::default(),
        client_info: None,
        caller: presa::Caller::anonymous(),
    }
}

#[test]
fn a_prompt_lists_its_arguments_in_order() {
    let prompt = GreetPrompt.definition();
    assert_eq!(prompt.name, "greet");
    assert_eq!(prompt.title.as_deref(), Some("Greet"));
    assert_eq!(
        prompt.description.as_deref(),
        Some("Greets someone\nwarmly.")
    );
    let arguments = prompt.arguments.unwrap();
    let listed: Vec<_> = arguments
        .iter()
        .map(|a| (a.name.as_str(), a.description.as_deref(), a.is_required()))
        .collect();
    assert_eq!(listed, [("who", Some("Who"), true), ("type", None, false)]);
    assert_eq!(GreetPrompt.required_state(), [StateType::of::<Greeting>()]);
    assert!(GreetPrompt.completer("who").is_some());
    assert!(GreetPrompt.completer("type").is_none());

    let plain = NoArgumentsPrompt.definition();
    assert_eq!((plain.name.as_str(), plain.arguments), ("plain", None));
    assert_eq!(plain.description.as_deref(), Some("No arguments"));
}

#[tokio::test]
async fn a_prompt_parses_its_arguments_before_it_runs() {
    let arguments = BTreeMap::from([("who".to_owned(), "Ada".to_owned())]);
    let ctx = Context::standalone(request());
    // The standalone context has no state: the extractor refuses.
    assert!(GreetPrompt.get(ctx, arguments.clone()).await.is_err());
    let result = NoArgumentsPrompt
        .get(Context::standalone(request()), arguments)
        .await
        .unwrap();
    assert_eq!(result.text(), Some("plain"));
}

#[test]
fn a_resource_with_variables_is_a_template() {
    let ResourceDefinition::Template(template) = NoteResource.definition() else {
        panic!("expected a template");
    };
    assert_eq!(template.uri_template, "notes://{id}/{+rest}");
    assert_eq!(template.name, "note");
    assert_eq!(template.mime_type.as_deref(), Some("text/plain"));
    assert_eq!(NoteResource.cache().scope, CacheScope::Public);
    assert!(NoteResource.completer("id").is_some());
    assert!(NoteResource.completer("rest").is_none());
    assert_eq!(<Context as FromContext>::required_state(), []);

    let ResourceDefinition::Fixed(fixed) = FixedResource.definition() else {
        panic!("expected a fixed resource");
    };
    assert_eq!(
        (fixed.uri.as_str(), fixed.name.as_str()),
        ("file:///a.txt", "a")
    );
    assert_eq!(fixed.title.as_deref(), Some("A"));
    assert_eq!(
        FixedResource.cache(),
        ReadCache::new(Duration::from_millis(1500), CacheScope::Private)
    );
}

#[tokio::test]
async fn a_resource_reads_its_typed_variables() {
    let request = |id: &str| ReadRequest {
        uri: format!("notes://{id}/x/y"),
        variables: BTreeMap::from([
            ("id".to_owned(), id.to_owned()),
            ("rest".to_owned(), "x/y".to_owned()),
        ]),
        mime_type: Some("text/plain".into()),
        cache: NoteResource.cache(),
    };
    let read = NoteResource
        .read(Context::standalone(self::request()), request("7"))
        .await
        .unwrap();
    assert_eq!(read.text(), Some("7:x/y"));
    assert_eq!(read.contents[0].mime_type.as_deref(), Some("text/plain"));
    assert!(
        NoteResource
            .read(Context::standalone(self::request()), request("seven"))
            .await
            .is_err()
    );
}
