//! Cursor's `mcp.json`: the project's `.cursor/mcp.json` and the user's
//! `~/.cursor/mcp.json`, top-level `mcpServers`, with `${env:NAME}`,
//! `${userHome}` and `${workspaceFolder}`. A `url` is Streamable HTTP
//! unless `type` says `sse`. The project's entry wins, as Cursor is
//! reported to do. <https://cursor.com/docs/mcp>

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::Configured;

/// The servers in Cursor's file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table::of_file(source, Syntax::Editor, Transport::Typed);
    servers(value, "mcpServers", &table, found, warnings);
}
