//! VS Code's `mcp.json`: the workspace's `.vscode/mcp.json` and the
//! user's `Code/User/mcp.json`, each with a top-level `servers` object
//! (not `mcpServers`) and VS Code's variables, `${input:ID}` among them,
//! which only VS Code can fill. No precedence between the two files is
//! documented; presa lets the workspace's entry win, as VS Code's
//! settings do.
//! <https://code.visualstudio.com/docs/agents/reference/mcp-configuration>

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::Configured;

/// The servers in VS Code's file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table::of_file(source, Syntax::Editor, Transport::Typed);
    servers(value, "servers", &table, found, warnings);
}
