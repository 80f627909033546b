//! `presa tools`, `prompts`, `resources`, `templates` and `discover`:
//! what the server offers.

use serde_json::Value;

use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::{line, say};
use crate::session::Session;

/// `presa tools`.
pub async fn tools(session: &Session) -> Result<Exit, Failure> {
    let tools = session.client.list_tools().await?;
    show(session, &render::wire(&tools), "name", "tools");
    Ok(Exit::Success)
}

/// `presa prompts`.
pub async fn prompts(session: &Session) -> Result<Exit, Failure> {
    let prompts = session.client.list_prompts().await?;
    show(session, &render::wire(&prompts), "name", "prompts");
    Ok(Exit::Success)
}

/// `presa resources`.
pub async fn resources(session: &Session) -> Result<Exit, Failure> {
    let resources = session.client.list_resources().await?;
    show(session, &render::wire(&resources), "uri", "resources");
    Ok(Exit::Success)
}

/// `presa templates`: the resource templates, each by its URI template.
pub async fn templates(session: &Session) -> Result<Exit, Failure> {
    let templates = session.client.list_resource_templates().await?;
    let templates = render::wire(&templates);
    show(session, &templates, "uriTemplate", "resource templates");
    Ok(Exit::Success)
}

/// `presa discover`.
pub async fn discover(session: &Session) -> Result<Exit, Failure> {
    let discovered = session.client.discover().await?;
    if session.json {
        render::json(&discovered);
        return Ok(Exit::Success);
    }
    let era = session.client.era().await?;
    if let Some(server) = discovered.server_info() {
        say!("{} {}", line(&server.name), line(&server.version));
    }
    say!(
        "speaks {} ({era:?} era)",
        line(&discovered.supported_versions.join(", "))
    );
    if let Some(instructions) = &discovered.instructions {
        say!("instructions: {instructions}");
    }
    say!(
        "capabilities: {}",
        render::pretty(&render::wire(&discovered.capabilities))
    );
    Ok(Exit::Success)
}

fn show(session: &Session, items: &Value, name: &str, noun: &str) {
    if session.json {
        render::json(items);
        return;
    }
    render::list(items.as_array().map_or(&[], Vec::as_slice), name, noun);
}
