//! presa's own aliases: `servers.json` in presa's config folder, in Claude
//! Code's `.mcp.json` shape (`mcpServers`; `${VAR}` and `${VAR:-default}`),
//! so that a user can give any server a name, or a host's server the
//! values presa cannot find (VS Code's `${input:ID}`). Listed first.

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::Configured;

/// The servers in presa's aliases file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table::of_file(source, Syntax::Braces, Transport::Typed);
    servers(value, "mcpServers", &table, found, warnings);
}
