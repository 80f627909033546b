//! Gemini CLI's `settings.json`: the user's `~/.gemini/settings.json` and
//! the project's `.gemini/settings.json`, top-level `mcpServers`, with
//! `$VAR`, `${VAR}` and `${VAR:-default}`. `httpUrl` is Streamable HTTP,
//! `url` legacy SSE (unless `type` says `http`), `command` stdio. The
//! project's entry replaces the user's whole.
//! <https://geminicli.com/docs/reference/configuration/>,
//! <https://geminicli.com/docs/tools/mcp-server/>

use serde_json::Value;

use crate::hosts::entry::{Table, Transport, servers};
use crate::hosts::expand::Syntax;
use crate::hosts::places::Source;
use crate::hosts::server::Configured;

/// The servers in Gemini CLI's file `value`, read from `source`.
pub fn read(
    value: &Value,
    source: &Source,
    found: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    let table = Table::of_file(source, Syntax::Dollar, Transport::Gemini);
    servers(value, "mcpServers", &table, found, warnings);
}
