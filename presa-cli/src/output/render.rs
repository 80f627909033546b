//! What a command prints on stdout.
//!
//! With `--json`, one JSON document: the server's answer as the wire
//! carries it (a tool's result, the list of tools, ...), and nothing
//! else, so that a script can pipe it. Otherwise text for a person: a
//! tool's text content as text, its structured content pretty-printed,
//! images and audio summarized by type and size, lists one item a line.
//! Notes for the person (progress, questions, errors) go to stderr.
//!
//! Both hold nothing a terminal acts on (`shown`): the JSON escapes every
//! such character, and still reads back as the server's exact answer; the
//! text shows them escaped. A text block, a resource's text and a
//! prompt's message may run over several lines; a name, a URI, a MIME
//! type or a description's first line is shown on one.

use serde::Serialize;
use serde_json::Value;

use super::shown::{self, line, note, say};

/// Prints `value` as the one JSON document of `--json`.
pub fn json(value: &impl Serialize) {
    match shown::json(value) {
        Ok(text) => say!("{text}"),
        Err(e) => note!("presa: cannot print the answer as JSON: {e}"),
    }
}

/// Prints `value` as one JSON document on one line, of a stream of them.
pub fn json_line(value: &impl Serialize) {
    match shown::json_line(value) {
        Ok(text) => say!("{text}"),
        Err(e) => note!("presa: cannot print the answer as JSON: {e}"),
    }
}

/// The wire form of `value`, to read whichever fields it has.
pub fn wire(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A tool's result, or a prompt's or a resource's content, for a person:
/// its content blocks, then its structured content unless a text block
/// says the same.
pub fn result(result: &Value) {
    let blocks = result.get("content").and_then(Value::as_array);
    let texts: Vec<String> = blocks.into_iter().flatten().map(block).collect();
    for text in &texts {
        say!("{text}");
    }
    if let Some(structured) = result.get("structuredContent") {
        let restated = texts
            .iter()
            .any(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(structured));
        if !restated {
            say!("{}", pretty(structured));
        }
    }
}

/// One content block: text as the server wrote it (escaped when
/// printed), the rest summarized on one line.
pub fn block(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_owned(),
        kind @ ("image" | "audio") => {
            format!(
                "[{kind}: {}, {}]",
                line(field("mimeType")),
                size(field("data"))
            )
        }
        "resource_link" => format!("[link: {} <{}>]", line(field("name")), line(field("uri"))),
        "resource" => block.get("resource").map_or_else(String::new, contents),
        _ => pretty(block),
    }
}

/// A resource's contents: its text, or a summary of its blob.
pub fn contents(contents: &Value) -> String {
    let field = |name: &str| contents.get(name).and_then(Value::as_str);
    match (field("text"), field("blob")) {
        (Some(text), _) => text.to_owned(),
        (None, Some(blob)) => format!(
            "[{}: {}, {}]",
            line(field("uri").unwrap_or("")),
            line(field("mimeType").unwrap_or("binary")),
            size(blob)
        ),
        (None, None) => pretty(contents),
    }
}

/// A list for a person: one line per item, `NAME  DESCRIPTION`, with the
/// item's parameters beneath when it has some.
pub fn list(items: &[Value], name: &str, noun: &str) {
    if items.is_empty() {
        say!("no {noun}");
    }
    for item in items {
        let title = line(item.get(name).and_then(Value::as_str).unwrap_or("?"));
        match item.get("description").and_then(Value::as_str) {
            Some(description) => say!("{title}  {}", line(first_line(description))),
            None => say!("{title}"),
        }
        for parameter in parameters(item) {
            say!("    {parameter}");
        }
    }
}

/// A tool's input properties or a prompt's arguments, one line each.
fn parameters(item: &Value) -> Vec<String> {
    if let Some(arguments) = item.get("arguments").and_then(Value::as_array) {
        return arguments
            .iter()
            .map(|a| {
                let name = a.get("name").and_then(Value::as_str).unwrap_or("?");
                let required = a.get("required").and_then(Value::as_bool) == Some(true);
                described(name, required, "", a)
            })
            .collect();
    }
    let schema = item.get("inputSchema");
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .map(|(name, property)| {
            let types = crate::typing::types(property).join("|");
            described(name, required.contains(&name.as_str()), &types, property)
        })
        .collect()
}

/// One parameter's line, `NAME: TYPES (optional)  DESCRIPTION`, the
/// server's words escaped.
fn described(name: &str, required: bool, types: &str, item: &Value) -> String {
    let mut shown = line(name).to_string();
    if !types.is_empty() {
        shown.push_str(&format!(": {}", line(types)));
    }
    if !required {
        shown.push_str(" (optional)");
    }
    if let Some(description) = item.get("description").and_then(Value::as_str) {
        shown.push_str(&format!("  {}", line(first_line(description))));
    }
    shown
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The decoded size of base64 `data`, roughly.
fn size(data: &str) -> String {
    let bytes = data.trim_end_matches('=').len() * 3 / 4;
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

/// `value` pretty-printed, nothing in it a terminal acts on.
pub fn pretty(value: &Value) -> String {
    shown::json(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn media_is_summarized_by_type_and_size() {
        let image = json!({"type": "image", "mimeType": "image/png", "data": "AAAA"});
        assert_eq!(block(&image), "[image: image/png, 3 bytes]");
        let link = json!({"type": "resource_link", "name": "log", "uri": "file:///log"});
        assert_eq!(block(&link), "[link: log <file:///log>]");
    }

    #[test]
    fn a_summary_shows_the_server_s_escapes_as_text() {
        let image = json!({"type": "image", "mimeType": "image/png\x1b[2J\n", "data": ""});
        assert_eq!(block(&image), r"[image: image/png\x1b[2J\n, 0 bytes]");
        let link = json!({"type": "resource_link", "name": "a\u{9b}", "uri": "b\r"});
        assert_eq!(block(&link), r"[link: a\u{9b} <b\r>]");
        let odd = json!({"type": "odd", "said": "\u{202e}"});
        assert!(block(&odd).contains(r"\u202e"), "{}", block(&odd));
    }

    #[test]
    fn a_parameter_line_shows_the_server_s_escapes_as_text() {
        let tool = json!({"inputSchema": {"properties": {
            "a\x1b]8;;x\x07": {"type": "string\n", "description": "d\x08\nsecond line"}
        }}});
        assert_eq!(
            parameters(&tool),
            [r"a\x1b]8;;x\x07: string\n (optional)  d\x08"]
        );
    }

    #[test]
    fn an_embedded_resource_shows_its_text() {
        let embedded = json!({"type": "resource", "resource": {"uri": "a:b", "text": "hello"}});
        assert_eq!(block(&embedded), "hello");
    }
}
