//! VS Code's `mcp.json`: the workspace's `.vscode/mcp.json` and the
//! user's `Code/User/mcp.json`, each with a top-level `servers` object
//! (not `mcpServers`) and VS Code's variables, `${input:ID}` among them,
//! which only VS Code can fill. No precedence between the two files is
//! documented; presa lets the workspace's entry win, as VS Code's
//! settings do.
//! <https://code.visualstudio.com/docs/agents/reference/mcp-configuration>

use serde_json::Value;

use super::entry::{Table, Transport, servers};
use super::expand::Syntax;
use super::places::Source;
use super::server::Configured;

/// The servers in VS Code's file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table {
        source,
        scope: source.scope,
        project: source.project.as_deref(),
        syntax: Syntax::Editor,
        transport: Transport::Typed,
    };
    servers(value, "servers", &table, found, warnings);
}
