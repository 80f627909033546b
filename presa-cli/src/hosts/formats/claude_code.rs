//! Claude Code's files: a project's `.mcp.json` (project scope), and the
//! user's `~/.claude.json`, whose top-level `mcpServers` is the user scope
//! and whose `projects."<folder>".mcpServers` is the local scope of that
//! folder. Local wins over project, project over user, whole entries.
//! <https://code.claude.com/docs/en/mcp> ("MCP installation scopes",
//! "Scope hierarchy and precedence"). The keys inside `~/.claude.json` are
//! as the file is observed to hold them; the page says only "under your
//! project's path".

use std::path::Path;

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::{Configured, Scope};

/// The servers in Claude Code's file `value`, read from `source`, with
/// `projects` the current folder and those above it, nearest first.
pub fn read<'a>(
    value: &Value,
    source: &Source,
    projects: impl Iterator<Item = &'a Path>,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = |scope, project| Table {
        source,
        scope,
        project,
        syntax: Syntax::Braces,
        transport: Transport::Typed,
    };
    if source.scope == Scope::Project {
        let project = source.project.as_deref();
        servers(
            value,
            "mcpServers",
            &table(Scope::Project, project),
            found,
            warnings,
        );
        return;
    }
    if let Some(Value::Object(known)) = value.get("projects") {
        for folder in projects {
            let entry = known.iter().find(|(key, _)| Path::new(key) == folder);
            if let Some((_, project)) = entry {
                let local = table(Scope::Local, Some(folder));
                servers(project, "mcpServers", &local, found, warnings);
            }
        }
    }
    servers(
        value,
        "mcpServers",
        &table(Scope::User, None),
        found,
        warnings,
    );
}
