//! The server's requests that are no form: a URL to visit, a message to
//! sample, the client's roots. Each is shown to the person at the
//! terminal to answer; `presa` declares sampling only when there is one,
//! and without one shares no roots and declines a URL, saying so. A URL
//! is shown as `link` checks it; the server's text, escaped (`shown`).
//!
//! A sampling request is first put as a question, whether to reply as the
//! model at all: no (or Escape) declines it, with a note. A 2026-07-28
//! server cannot be told (its input responses carry results only), so
//! the call ends there; a task is left waiting for the reply; a legacy
//! server is told with the spec's refusal, and answers for itself.

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input};
use presa::client::SamplingDeclined;
use presa::wire::{
    Content, CreateMessageParams, CreateMessageResult, ElicitResult, Role, Root, SamplingContent,
};

use super::ctrl_c::Prompted;
use super::link::Link;
use crate::output::shown::{self, note};

/// Shows a URL elicitation's message and link, and asks whether the
/// person finished there: yes accepts, anything else declines.
pub fn visit(message: &str, link: &Link) -> Prompted<ElicitResult> {
    note!("{message}\n{}", link.shown());
    let done = Confirm::with_theme(&ColorfulTheme::default())
        .with_prompt("Done there?")
        .interact_opt();
    match done {
        Ok(Some(true)) => Prompted::answered(ElicitResult::accept(serde_json::Value::Null)),
        Ok(_) => Prompted::answered(ElicitResult::decline()),
        Err(error) => Prompted::failed(ElicitResult::decline(), &error),
    }
}

/// Shows a sampling request's messages and, unless the person declines,
/// takes their reply as the model's.
pub fn sample(
    params: &CreateMessageParams,
) -> Prompted<Result<CreateMessageResult, SamplingDeclined>> {
    note!("the server asks for a model's reply to:");
    for message in &params.messages {
        let who = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        note!("  {who}: {}", content(&message.content));
    }
    let theme = ColorfulTheme::default();
    let reply_at_all = Confirm::with_theme(&theme)
        .with_prompt("Reply as the model? (no declines the request)")
        .interact_opt();
    let reply = match reply_at_all {
        Ok(Some(true)) => Input::<String>::with_theme(&theme)
            .with_prompt("Your reply, as the model")
            .interact_text()
            .map(Some),
        Ok(_) => Ok(None),
        Err(error) => Err(error),
    };
    let reply = match reply {
        Ok(Some(reply)) => reply,
        Ok(None) => return Prompted::answered(sampling_declined()),
        Err(error) => return Prompted::failed(sampling_declined(), &error),
    };
    Prompted::answered(Ok(CreateMessageResult {
        role: Role::Assistant,
        content: SamplingContent::One(Content::text(reply)),
        model: "a person at the presa command line".into(),
        stop_reason: Some("endTurn".into()),
    }))
}

/// A sampling request the person declined, with the note that says so.
fn sampling_declined() -> Result<CreateMessageResult, SamplingDeclined> {
    note!("presa: declined the sampling request; the server gets no reply from a model");
    Err(SamplingDeclined::because(
        "the person at the terminal said no",
    ))
}

/// Asks whether to share the working directory as the one root.
pub fn roots() -> Prompted<Vec<Root>> {
    let Some(root) = working_directory() else {
        note!("the server asks for roots; presa shares none (no working directory)");
        return Prompted::answered(Vec::new());
    };
    let share = Confirm::with_theme(&ColorfulTheme::default())
        .with_prompt(format!(
            "The server asks for roots. Share {}?",
            shown::line(&root.uri)
        ))
        .default(false)
        .interact_opt();
    match share {
        Ok(Some(true)) => Prompted::answered(vec![root]),
        Ok(_) => Prompted::answered(Vec::new()),
        Err(error) => Prompted::failed(Vec::new(), &error),
    }
}

/// The note when roots are asked with no one to ask.
pub fn no_roots() -> Vec<Root> {
    note!("the server asks for roots; with no terminal to ask, presa shares none");
    Vec::new()
}

fn working_directory() -> Option<Root> {
    let path = std::env::current_dir().ok()?;
    let slashed = path.to_string_lossy().replace('\\', "/");
    let uri = match slashed.starts_with('/') {
        true => format!("file://{slashed}"),
        false => format!("file:///{slashed}"),
    };
    Some(Root {
        uri,
        name: Some("the working directory".into()),
    })
}

/// A sampled message's text, as the server sent it: `note!` escapes it.
fn content(content: &SamplingContent) -> String {
    let text = |c: &Content| c.as_text().map_or("[not text]".to_owned(), str::to_owned);
    match content {
        SamplingContent::One(c) => text(c),
        SamplingContent::Many(cs) => cs.iter().map(text).collect::<Vec<_>>().join(" "),
        SamplingContent::Raw(value) => value.to_string(),
        _ => "[not text]".to_owned(),
    }
}
