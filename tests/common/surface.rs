//! Fixtures for the rest of the server surface: prompts, resources,
//! resource templates and their completers.

use std::str::FromStr;

use presa::prelude::*;
use presa::server::ServerBuilder;
use presa::wire::{Content, ResourceContents};
use serde::Serialize;

use super::Confirm;

/// A language a review may be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Rust,
    Python,
}

impl FromStr for Language {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "rust" => Ok(Language::Rust),
            "python" => Ok(Language::Python),
            _ => Err("expected `rust` or `python`".into()),
        }
    }
}

/// Languages that start with what was typed; a strict style only allows
/// Rust.
pub fn languages(typed: &str, ctx: &CompletionContext) -> Vec<String> {
    let all = match ctx.arguments().get("style").map(String::as_str) {
        Some("strict") => vec!["rust"],
        _ => vec!["python", "rust"],
    };
    all.into_iter()
        .filter(|l| l.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// Asks for a review of a piece of code.
#[prompt(title = "Request a code review")]
pub async fn code_review(
    #[param(description = "The code to review")] code: String,
    #[param(description = "Its language", complete = languages)] language: Option<Language>,
    style: Option<String>,
) -> String {
    let language = language.map(|l| format!("{l:?} ")).unwrap_or_default();
    let style = style.map(|s| format!(" ({s})")).unwrap_or_default();
    format!("Review this {language}code{style}:\n{code}")
}

/// Every kind of content a prompt message can hold.
#[prompt]
pub async fn showcase() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user("Look at these:"),
        PromptMessage::assistant(Content::image("aW1n", "image/png")),
        PromptMessage::user(Content::audio("c25k", "audio/wav")),
        PromptMessage::user(Content::resource_link(
            "file:///project/README.md",
            "README",
        )),
        PromptMessage::user(Content::embedded(
            ResourceContents::text("file:///project/a.txt", "alpha").with_mime_type("text/plain"),
        )),
        PromptMessage::user(Content::embedded(ResourceContents::bytes(
            "file:///project/b.bin",
            b"beta",
        ))),
    ]
}

/// Asks the user before it resolves.
#[prompt]
pub async fn discuss(ctx: Context, topic: String) -> Result<GetPromptResult, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Discuss {topic}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => {
            Ok(GetPromptResult::new(vec![PromptMessage::user(format!(
                "Let us discuss {topic}."
            ))])
            .with_description(format!("A discussion of {topic}")))
        }
        _ => Err(ToolError::new("the user does not want to discuss it")),
    }
}

/// Repeats a word.
#[prompt(name = "repeat")]
pub async fn repeat_word(word: String, times: u8) -> String {
    vec![word; usize::from(times)].join(" ")
}

/// Fails with a secret.
#[prompt]
pub async fn broken_prompt() -> Result<String, ToolError> {
    Err(ToolError::internal("the prompt store password is hunter2"))
}

/// Numbers from 0 to 149 that start with what was typed.
pub fn numbers(typed: &str, _ctx: &CompletionContext) -> Vec<String> {
    (0..150)
        .map(|n| n.to_string())
        .filter(|n| n.starts_with(typed))
        .collect()
}

/// Picks a number.
#[prompt]
pub async fn pick(#[param(complete = numbers)] n: u32, other: Option<String>) -> String {
    let _ = other;
    format!("you picked {n}")
}

/// The project's readme.
#[resource(
    uri = "file:///project/README.md",
    mime_type = "text/markdown",
    ttl_ms = 60000,
    cache_scope = "public"
)]
pub async fn readme() -> &'static str {
    "# Project"
}

/// The project's logo.
#[resource(uri = "file:///project/logo.png", mime_type = "image/png")]
pub async fn logo() -> Vec<u8> {
    b"\x89PNG".to_vec()
}

/// The project's sources, as a directory.
#[resource(uri = "file:///project/src/", name = "sources")]
pub async fn sources() -> Vec<ResourceContents> {
    vec![
        ResourceContents::text("file:///project/src/main.rs", "fn main() {}"),
        ResourceContents::text("file:///project/src/lib.rs", "pub fn lib() {}"),
    ]
}

/// A user's profile.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Profile {
    pub id: u32,
    pub name: String,
}

/// The users the server knows, by id.
#[derive(Clone)]
pub struct Directory(pub Vec<(u32, &'static str)>);

/// User ids that start with what was typed, from the directory.
pub async fn user_ids(typed: String, ctx: CompletionContext) -> Vec<String> {
    let Some(State(directory)) = ctx.state::<Directory>() else {
        return Vec::new();
    };
    directory
        .0
        .iter()
        .map(|(id, _)| id.to_string())
        .filter(|id| id.starts_with(&typed))
        .collect()
}

/// A user's profile, as JSON.
#[resource(uri = "users://{id}/profile", mime_type = "application/json")]
pub async fn profile(
    State(directory): State<Directory>,
    #[param(complete = user_ids)] id: u32,
) -> Result<Json<Profile>, ToolError> {
    let Some((_, name)) = directory.0.iter().find(|(known, _)| *known == id) else {
        return Err(ToolError::new(format!("there is no user {id}")));
    };
    Ok(Json(Profile {
        id,
        name: (*name).to_owned(),
    }))
}

/// Any file of the project.
#[resource(uri = "file:///project/{+path}", title = "Project files")]
pub async fn project_file(path: String) -> String {
    format!("contents of {path}")
}

/// A private note, read after the user confirms.
#[resource(uri = "notes://{name}")]
pub async fn note(ctx: Context, name: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Show note {name}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("the note {name}")),
        _ => Err(ToolError::new("not shown")),
    }
}

/// Panics while reading.
#[resource(uri = "broken://resource")]
pub async fn broken_resource() -> String {
    panic!("the disk holds secret-resource-detail")
}

/// A server with every prompt, resource and template above.
pub fn surface_server(configure: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Server {
    let builder = Server::builder("surface", "1.0.0")
        .tool(super::AddTool)
        .prompt(CodeReviewPrompt)
        .prompt(ShowcasePrompt)
        .prompt(DiscussPrompt)
        .prompt(RepeatWordPrompt)
        .prompt(BrokenPromptPrompt)
        .prompt(PickPrompt)
        .resource(ReadmeResource)
        .resource(LogoResource)
        .resource(SourcesResource)
        .resource(ProfileResource)
        .resource(ProjectFileResource)
        .resource(NoteResource)
        .resource(BrokenResourceResource)
        .state(Directory(vec![(1, "Ada"), (12, "Brendan"), (2, "Grace")]));
    configure(builder).build()
}
