//! `presa prompt` and `presa read`: a prompt's messages, a resource's
//! contents.

use serde_json::Value;

use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::{line, say};
use crate::session::Session;
use crate::tool_arguments::arguments;

/// `presa prompt`: its arguments are strings, as prompts take them.
pub async fn prompt(session: &Session, name: &str, pairs: &[String]) -> Result<Exit, Failure> {
    let arguments = arguments(None, pairs, None).map_err(Failure::usage)?;
    let prompt = session
        .client
        .get_prompt(name, Value::Object(arguments))
        .await?;
    if session.json {
        render::json(&prompt);
        return Ok(Exit::Success);
    }
    let prompt = render::wire(&prompt);
    if let Some(description) = prompt.get("description").and_then(Value::as_str) {
        say!("{description}");
    }
    for message in prompt
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = line(message.get("role").and_then(Value::as_str).unwrap_or("?"));
        let content = message
            .get("content")
            .map(render::block)
            .unwrap_or_default();
        say!("{role}: {content}");
    }
    Ok(Exit::Success)
}

/// `presa read`.
pub async fn read(session: &Session, uri: &str) -> Result<Exit, Failure> {
    let read = session.client.read_resource(uri).await?;
    if session.json {
        render::json(&read);
        return Ok(Exit::Success);
    }
    let read = render::wire(&read);
    for contents in read
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        say!("{}", render::contents(contents));
    }
    Ok(Exit::Success)
}
