//! `presa skills` and `presa skill`: the skills a server publishes
//! (SEP-2640), and one skill's entry and `SKILL.md`.
//!
//! Listing reads no file. `presa skill` loads one skill, as a host would
//! before it gave the skill to a model: it reads `SKILL.md` and checks it
//! against the entry (size, digest and frontmatter), and `--save` reads
//! and checks every other file too. A skill is named by its name, or by
//! its `SKILL.md` URI when two skills share a name.

use std::path::Path;

use presa::wire::{Skill, SkillResources};
use serde_json::{Value, json};

use super::saving::save;
use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::{line, lines, say};
use crate::session::Session;

/// `presa skills`: one line per skill.
pub async fn skills(session: &Session) -> Result<Exit, Failure> {
    let skills = session.client.list_skills().await?;
    if session.json {
        render::json(&skills);
        return Ok(Exit::Success);
    }
    if skills.is_empty() {
        say!("no skills");
        return Ok(Exit::Success);
    }
    let rows: Vec<[String; 5]> = skills.iter().map(row).collect();
    let header = ["NAME", "FILES", "SIZE", "URI", "DESCRIPTION"].map(str::to_owned);
    let mut widths = [0; 4];
    for cells in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for [name, files, size, uri, description] in std::iter::once(&header).chain(&rows) {
        say!(
            "{name:<w0$}  {files:>w1$}  {size:>w2$}  {uri:<w3$}  {description}",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
    }
    Ok(Exit::Success)
}

/// One skill's cells, the server's words made safe to show.
fn row(skill: &Skill) -> [String; 5] {
    let (files, size) = match &skill.resources {
        SkillResources::Listed(files) => (
            files.len().to_string(),
            bytes(skill.resources.total_size().unwrap_or_default()),
        ),
        SkillResources::Dynamic => ("dynamic".to_owned(), "-".to_owned()),
    };
    let description = skill.frontmatter.description();
    [
        line(skill.name()).to_string(),
        files,
        size,
        line(&skill.uri).to_string(),
        line(description.lines().next().unwrap_or_default()).to_string(),
    ]
}

/// `n` bytes for a person.
fn bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

/// What `presa skill` was asked to do beside showing the skill.
pub struct SkillOptions<'a> {
    /// Write the files under this folder.
    pub save: Option<&'a Path>,
    /// Replace the skill's folder there if it exists.
    pub force: bool,
    /// Load a skill whose files have no digests.
    pub allow_dynamic: bool,
}

/// `presa skill`: the entry, then `SKILL.md`, checked.
pub async fn skill(
    session: &Session,
    name: &str,
    options: SkillOptions<'_>,
) -> Result<Exit, Failure> {
    let entry = find(session, name).await?;
    let client = &session.client;
    let loaded = if options.allow_dynamic {
        client.load_skill_allowing_dynamic(entry).await
    } else {
        client.load_skill(entry).await
    };
    let skill = loaded.map_err(|error| Failure::from(error).about(name))?;
    let saved = match options.save {
        Some(dir) => Some(save(&skill, dir, options.force).await?),
        None => None,
    };
    let entry = skill.entry();
    let text = skill.skill_md().text().unwrap_or_default();
    if session.json {
        let mut shown = json!({"skill": entry, "skillMd": text});
        if let Some(saved) = &saved {
            shown["savedTo"] = json!(saved.display().to_string());
        }
        render::json(&shown);
        return Ok(Exit::Success);
    }
    say!("{}  {}", line(entry.name()), line(&entry.uri));
    for (field, value) in entry.frontmatter.fields() {
        if field == "name" {
            continue;
        }
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        say!("{}: {}", line(field), line(&value));
    }
    match &entry.resources {
        SkillResources::Listed(files) => {
            say!("files:");
            for file in files {
                say!(
                    "  {}  {}  {}",
                    line(&file.uri),
                    bytes(file.size),
                    file.digest
                );
            }
        }
        SkillResources::Dynamic => say!("files: dynamic (none of them can be verified)"),
    }
    say!("");
    say!("{}", lines(text));
    if let Some(saved) = saved {
        say!("saved to {}", saved.display());
    }
    Ok(Exit::Success)
}

/// The entry `name` names: a `SKILL.md` URI, or the one listed skill of
/// that name.
async fn find(session: &Session, name: &str) -> Result<Skill, Failure> {
    if name.contains("://") {
        return Ok(session.client.get_skill(name).await?);
    }
    let mut named: Vec<Skill> = session
        .client
        .list_skills()
        .await?
        .into_iter()
        .filter(|skill| skill.name() == name)
        .collect();
    match named.len() {
        0 => Err(Failure::usage(format!(
            "the server lists no skill named `{}`. `presa skills SERVER` shows the ones it \
             lists; name a skill it leaves out by its SKILL.md URI",
            line(name)
        ))),
        1 => Ok(named.remove(0)),
        _ => {
            let uris: Vec<String> = named.iter().map(|s| line(&s.uri).to_string()).collect();
            Err(Failure::usage(format!(
                "{} skills are named `{}`: {}. Name the one you mean by its URI",
                named.len(),
                line(name),
                uris.join(", ")
            )))
        }
    }
}
