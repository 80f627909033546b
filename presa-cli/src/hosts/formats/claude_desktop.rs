//! Claude Desktop's `claude_desktop_config.json`: one file, top-level
//! `mcpServers`, no variables (a literal `${APPDATA}` is taken as it is).
//! <https://modelcontextprotocol.io/docs/develop/connect-local-servers>

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::Configured;

/// The servers in Claude Desktop's file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table::of_file(source, Syntax::Literal, Transport::Typed);
    servers(value, "mcpServers", &table, found, warnings);
}
