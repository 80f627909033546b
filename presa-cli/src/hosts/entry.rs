//! One server's entry in a host's file, read into a [`Launch`]. The
//! fields that say how to reach a server are much the same in every
//! host (`command`, `args`, `env`, `url`, `headers`); how the transport
//! is chosen is not, so each host passes its own [`Transport`] rule.
//! Fields presa does not use are ignored.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::expand::Syntax;
use super::places::Source;
use super::server::{Configured, Launch, Scope};

/// What a host's file says about the servers in one of its tables.
pub struct Table<'a> {
    /// The file.
    pub source: &'a Source,
    /// The scope of the table's servers.
    pub scope: Scope,
    /// The project they belong to, if any.
    pub project: Option<&'a std::path::Path>,
    /// How the host writes variables.
    pub syntax: Syntax,
    /// How the host chooses a transport.
    pub transport: Transport,
}

impl<'a> Table<'a> {
    /// The table of a whole file: its servers have the file's own scope
    /// and project.
    pub fn of_file(source: &'a Source, syntax: Syntax, transport: Transport) -> Self {
        Table {
            source,
            scope: source.scope,
            project: source.project.as_deref(),
            syntax,
            transport,
        }
    }
}

/// Adds the servers of the object at `key` in `value` to `servers`, or
/// a warning to `warnings` when it is not an object.
pub fn servers(
    value: &Value,
    key: &str,
    table: &Table<'_>,
    servers: &mut Vec<Configured>,
    warnings: &mut Vec<String>,
) {
    match value.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Object(entries)) => {
            servers.extend(entries.iter().map(|(name, entry)| Configured {
                name: name.clone(),
                host: table.source.host,
                scope: table.scope,
                file: table.source.path.clone(),
                launch: launch(entry, table.transport),
                syntax: table.syntax,
                project: table.project.map(std::path::Path::to_path_buf),
                shadowed: false,
            }))
        }
        Some(_) => warnings.push(format!(
            "{}: `{key}` is not an object; its servers are left out",
            table.source.path.display()
        )),
    }
}

/// How a host chooses an entry's transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// By `type` (`stdio`, `http`, `streamable-http`, `sse`); with no
    /// `type`, a `url` is Streamable HTTP and a `command` stdio (Claude
    /// Code, Claude Desktop, VS Code, Cursor, presa).
    Typed,
    /// `httpUrl` is Streamable HTTP; then `url`, legacy SSE unless `type`
    /// says `http`; then `command` (Gemini CLI:
    /// <https://geminicli.com/docs/reference/configuration/>).
    Gemini,
}

const SSE: &str = "it uses the legacy HTTP+SSE transport, which presa does not speak";

/// The entry `entry`, read by `transport`'s rule.
pub fn launch(entry: &Value, transport: Transport) -> Launch {
    let Some(entry) = entry.as_object() else {
        return Launch::Unusable("its entry is not a JSON object".into());
    };
    read(entry, transport).unwrap_or_else(Launch::Unusable)
}

fn read(entry: &Map<String, Value>, transport: Transport) -> Result<Launch, String> {
    let kind = text(entry, "type")?;
    match transport {
        Transport::Typed => match kind.as_deref() {
            Some("sse") => Err(SSE.into()),
            Some("http" | "streamable-http" | "streamableHttp") => http(entry, "url"),
            Some("stdio") => stdio(entry),
            Some(other) => Err(format!("its type `{other}` is no transport presa speaks")),
            None if entry.contains_key("url") => http(entry, "url"),
            None => stdio(entry),
        },
        Transport::Gemini => {
            if entry.contains_key("httpUrl") {
                http(entry, "httpUrl")
            } else if entry.contains_key("url") {
                match kind.as_deref() {
                    Some("http") => http(entry, "url"),
                    _ => Err(SSE.into()),
                }
            } else {
                stdio(entry)
            }
        }
    }
}

fn http(entry: &Map<String, Value>, key: &str) -> Result<Launch, String> {
    let url = text(entry, key)?.ok_or_else(|| format!("its `{key}` is empty"))?;
    if !(url.starts_with("http://") || url.starts_with("https://") || url.starts_with("${")) {
        return Err(format!("its url `{url}` is not http:// or https://"));
    }
    Ok(Launch::Http {
        url,
        headers: strings(entry, "headers")?,
    })
}

fn stdio(entry: &Map<String, Value>) -> Result<Launch, String> {
    let Some(command) = text(entry, "command")? else {
        return Err("it names neither a command nor a url".into());
    };
    let args = match entry.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(args)) => args
            .iter()
            .map(|arg| scalar(arg).ok_or("its `args` holds something other than text"))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("its `args` is not a list".into()),
    };
    Ok(Launch::Stdio {
        command,
        args,
        env: strings(entry, "env")?,
        cwd: text(entry, "cwd")?,
    })
}

/// The text at `key`, if there is any.
fn text(entry: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("its `{key}` is not text")),
    }
}

/// The object of texts at `key` (numbers and booleans written as text).
fn strings(entry: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(pairs)) => pairs
            .iter()
            .map(|(name, value)| match scalar(value) {
                Some(value) => Ok((name.clone(), value)),
                None => Err(format!("its `{key}` value {name} is not text")),
            })
            .collect(),
        Some(_) => Err(format!("its `{key}` is not an object")),
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn unusable(entry: Value, transport: Transport) -> String {
        match launch(&entry, transport) {
            Launch::Unusable(reason) => reason,
            other => panic!("usable: {other:?}"),
        }
    }

    #[test]
    fn a_command_is_stdio_and_a_url_http() {
        let entry = json!({"command": "npx", "args": ["-y", "srv", 3], "env": {"K": "v"}});
        let Launch::Stdio {
            command,
            args,
            env,
            cwd,
        } = launch(&entry, Transport::Typed)
        else {
            panic!("stdio");
        };
        assert_eq!(
            (command.as_str(), args, cwd),
            ("npx", vec!["-y".into(), "srv".into(), "3".into()], None)
        );
        assert_eq!(env["K"], "v");
        let entry = json!({"url": "https://h/mcp", "headers": {"A": "b"}});
        assert!(matches!(
            launch(&entry, Transport::Typed),
            Launch::Http { .. }
        ));
    }

    #[test]
    fn each_unusable_entry_says_why() {
        assert_eq!(
            unusable(
                json!({"type": "sse", "url": "https://h/sse"}),
                Transport::Typed
            ),
            SSE
        );
        assert_eq!(
            unusable(json!({"url": "https://h/sse"}), Transport::Gemini),
            SSE
        );
        assert_eq!(
            unusable(json!({"type": "ws", "url": "ws://h"}), Transport::Typed),
            "its type `ws` is no transport presa speaks"
        );
        assert_eq!(
            unusable(json!({}), Transport::Typed),
            "it names neither a command nor a url"
        );
        assert_eq!(
            unusable(json!("npx"), Transport::Typed),
            "its entry is not a JSON object"
        );
        assert_eq!(
            unusable(json!({"command": "a", "args": "b"}), Transport::Typed),
            "its `args` is not a list"
        );
        assert_eq!(
            unusable(json!({"url": "unix:///tmp/s.sock"}), Transport::Typed),
            "its url `unix:///tmp/s.sock` is not http:// or https://"
        );
        assert_eq!(
            unusable(json!({"command": "a", "env": {"K": {}}}), Transport::Typed),
            "its `env` value K is not text"
        );
    }

    #[test]
    fn gemini_prefers_http_url_then_url_then_command() {
        let entry = json!({"httpUrl": "http://h/mcp", "url": "http://h/sse", "command": "x"});
        let Launch::Http { url, .. } = launch(&entry, Transport::Gemini) else {
            panic!()
        };
        assert_eq!(url, "http://h/mcp");
        let entry = json!({"url": "http://h/mcp", "type": "http"});
        assert!(matches!(
            launch(&entry, Transport::Gemini),
            Launch::Http { .. }
        ));
    }
}
