//! The request headers of the Streamable HTTP transport, as both sides
//! write and read them.
//!
//! A client mirrors parts of each request body into headers, so that
//! intermediaries can route without parsing JSON; the server checks that
//! the two agree. Three rules live here, so that the client and the server
//! cannot disagree on them:
//!
//! 1. **Names:** [`PROTOCOL_VERSION`], [`METHOD`], [`NAME`], and
//!    `Mcp-Param-{name}` for tool parameters a tool marks with
//!    [`X_MCP_HEADER`] in its `inputSchema`.
//! 2. **Values:** plain visible ASCII is sent as it is; anything else
//!    (non-ASCII, control characters, leading or trailing whitespace, or a
//!    value that looks like the sentinel itself) as `=?base64?…?=`, the
//!    Base64 of its UTF-8 ([`encode_value`], [`decode_value`]).
//! 3. **Annotations:** an `x-mcp-header` must name a token unique in the
//!    schema (case-insensitively), sit on an integer, string or boolean
//!    property, and be reachable from the root through `properties` alone
//!    ([`header_params`]); a tool with any other annotation is invalid, and
//!    a client must not call it.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

/// The request's protocol version, as in `_meta`.
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// The JSON-RPC method.
pub const METHOD: &str = "Mcp-Method";
/// The tool or prompt name, the resource URI, or the task id.
pub const NAME: &str = "Mcp-Name";
/// The prefix of the headers that mirror annotated tool parameters.
pub const PARAM_PREFIX: &str = "Mcp-Param-";
/// The schema keyword that marks a tool parameter for a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The largest integer a header may carry: JavaScript's safe range.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Writes `value` as a header value: as it is when it is plain, visible
/// ASCII; otherwise in the Base64 sentinel form.
pub fn encode_value(value: &str) -> String {
    if is_plain(value) {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value))
    }
}

/// Whether `value` can travel in a header as it is: printable ASCII and
/// spaces only (a tab is a control character), no space at either end,
/// and not the sentinel's shape.
fn is_plain(value: &str) -> bool {
    let printable = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let trimmed = value.trim_matches(' ') == value;
    printable && trimmed && !looks_encoded(value)
}

fn looks_encoded(value: &str) -> bool {
    value.len() >= SENTINEL_START.len() + SENTINEL_END.len()
        && value.starts_with(SENTINEL_START)
        && value.ends_with(SENTINEL_END)
}

/// Why a header value cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderValueError {
    /// Characters a header value may not hold.
    #[error("the value holds characters a header may not carry")]
    InvalidCharacters,
    /// A sentinel whose content is not Base64.
    #[error("the =?base64?…?= value is not valid Base64")]
    InvalidBase64,
    /// Base64 whose bytes are not UTF-8.
    #[error("the =?base64?…?= value is not UTF-8 text")]
    NotUtf8,
}

/// Reads a header value: checks its characters, drops the whitespace
/// around it (which HTTP does not count as part of a field value), and
/// decodes the Base64 sentinel form. A value that is not encoded is
/// borrowed, as most are.
pub fn decode_value(raw: &[u8]) -> Result<Cow<'_, str>, HeaderValueError> {
    let visible = raw
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b));
    if !visible {
        return Err(HeaderValueError::InvalidCharacters);
    }
    let text = std::str::from_utf8(raw).map_err(|_| HeaderValueError::InvalidCharacters)?;
    let text = text.trim_matches([' ', '\t']);
    if !looks_encoded(text) {
        return Ok(Cow::Borrowed(text));
    }
    let inner = &text[SENTINEL_START.len()..text.len() - SENTINEL_END.len()];
    let bytes = STANDARD
        .decode(inner)
        .map_err(|_| HeaderValueError::InvalidBase64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| HeaderValueError::NotUtf8)
}

/// A tool parameter mirrored into a `Mcp-Param-{header}` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The name part of the header, as the annotation spells it.
    pub header: String,
    /// The chain of `properties` keys from the arguments to the value.
    pub path: Vec<String>,
}

impl HeaderParam {
    /// The full header name, `Mcp-Param-{header}`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_PREFIX}{}", self.header)
    }

    /// The value `arguments` hold for this parameter, as the header
    /// carries it (unencoded); `None` when absent or `null`, in which case
    /// the header is omitted.
    pub fn value_in(&self, arguments: &Map<String, Value>) -> Option<Result<String, String>> {
        let (first, rest) = self.path.split_first()?;
        let mut value = arguments.get(first)?;
        for key in rest {
            value = value.get(key)?;
        }
        (!value.is_null()).then(|| header_text(value))
    }
}

/// The header text of a parameter value: a string as it is, an integer in
/// decimal, a boolean as `true` or `false`.
fn header_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Bool(flag) => Ok(flag.to_string()),
        Value::Number(n) => match n.as_i64() {
            Some(i) if i.abs() <= MAX_SAFE_INTEGER => Ok(i.to_string()),
            _ => Err(format!(
                "{n} is not an integer within JavaScript's safe range"
            )),
        },
        other => Err(format!("{other} is not a string, an integer or a boolean")),
    }
}

/// Why a tool's `x-mcp-header` annotations make it invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid `x-mcp-header` at `{location}`: {reason}")]
pub struct InvalidHeaderAnnotation {
    /// Where in the schema, as a JSON pointer.
    pub location: String,
    /// What is wrong.
    pub reason: String,
}

/// The header parameters an `inputSchema` declares, in schema order; an
/// error for the first annotation that breaks the rules.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, InvalidHeaderAnnotation> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), Reach::Root, &mut found)?;
    let mut seen = std::collections::HashSet::new();
    for param in &found {
        if !seen.insert(param.header.to_ascii_lowercase()) {
            return Err(InvalidHeaderAnnotation {
                location: pointer(&param.path),
                reason: format!(
                    "`{}` is used twice (header names are compared without case)",
                    param.header
                ),
            });
        }
    }
    Ok(found)
}

/// How a schema object was reached from the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// The root itself.
    Root,
    /// Through `properties` keys alone: an annotation may sit here.
    Properties,
    /// Through anything else (`items`, `anyOf`, `$defs`, …).
    Elsewhere,
}

/// Visits every schema object below `schema`, collecting annotations at
/// reachable properties and refusing them anywhere else.
fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    reach: Reach,
    found: &mut Vec<HeaderParam>,
) -> Result<(), InvalidHeaderAnnotation> {
    let Value::Object(object) = schema else {
        if let Value::Array(items) = schema {
            for item in items {
                walk(item, path, Reach::Elsewhere, found)?;
            }
        }
        return Ok(());
    };
    if let Some(header) = object.get(X_MCP_HEADER) {
        let location = pointer(path);
        if reach != Reach::Properties {
            return Err(InvalidHeaderAnnotation {
                location,
                reason: "it may only sit on a property reached through `properties` keys alone"
                    .into(),
            });
        }
        let header = check_annotation(header, object)
            .map_err(|reason| InvalidHeaderAnnotation { location, reason })?;
        found.push(HeaderParam {
            header,
            path: path.clone(),
        });
    }
    for (key, value) in object {
        if key == "properties"
            && let Value::Object(properties) = value
            && reach != Reach::Elsewhere
        {
            for (name, property) in properties {
                path.push(name.clone());
                walk(property, path, Reach::Properties, found)?;
                path.pop();
            }
        } else if key != X_MCP_HEADER {
            walk(value, path, Reach::Elsewhere, found)?;
        }
    }
    Ok(())
}

/// The header name an annotation gives, if it and its property are valid.
fn check_annotation(header: &Value, property: &Map<String, Value>) -> Result<String, String> {
    let Value::String(header) = header else {
        return Err("the value must be a string".into());
    };
    if header.is_empty() {
        return Err("the header name is empty".into());
    }
    if let Some(bad) = header.chars().find(|&c| !is_tchar(c)) {
        return Err(format!(
            "`{header}` is not an HTTP field-name token ({bad:?} is not allowed)"
        ));
    }
    if !is_primitive(property.get("type")) {
        return Err(format!(
            "`{header}` marks a property that is not an integer, a string or a boolean"
        ));
    }
    Ok(header.clone())
}

/// `tchar` of RFC 9110.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Whether a `type` is one primitive a header may carry (`null` aside).
fn is_primitive(kind: Option<&Value>) -> bool {
    let primitive = |t: &Value| matches!(t.as_str(), Some("integer" | "string" | "boolean"));
    match kind {
        Some(Value::Array(types)) => {
            let mut non_null = types.iter().filter(|t| t.as_str() != Some("null"));
            non_null.next().is_some_and(primitive) && non_null.next().is_none()
        }
        Some(single) => primitive(single),
        None => false,
    }
}

fn pointer(path: &[String]) -> String {
    path.iter().fold(String::new(), |mut out, key| {
        out.push_str("/properties/");
        out.push_str(key);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_follow_the_spec_examples() {
        for (value, header) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("\tindented", "=?base64?CWluZGVudGVk?="),
            ("us west 1", "us west 1"),
            ("", ""),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(encode_value(value), header);
            assert_eq!(decode_value(header.as_bytes()).as_deref(), Ok(value));
        }
    }

    #[test]
    fn whitespace_around_a_value_is_not_part_of_it() {
        let decoded = decode_value(b"  test_simple_text  ");
        assert_eq!(decoded.as_deref(), Ok("test_simple_text"));
    }

    #[test]
    fn bad_header_values_are_refused() {
        assert_eq!(
            decode_value(b"=?base64?not base64!?="),
            Err(HeaderValueError::InvalidBase64)
        );
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8?="),
            Err(HeaderValueError::InvalidBase64),
            "padding is required"
        );
        assert_eq!(
            decode_value(b"=?base64?/w==?="),
            Err(HeaderValueError::NotUtf8)
        );
        assert_eq!(
            decode_value(b"bad\x01value"),
            Err(HeaderValueError::InvalidCharacters)
        );
        assert_eq!(
            decode_value("caf\u{e9}".as_bytes()),
            Err(HeaderValueError::InvalidCharacters)
        );
    }

    #[test]
    fn annotations_are_collected_with_their_paths() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "retries": {"type": ["integer", "null"], "x-mcp-header": "Retries"},
                "target": {"type": "object", "properties": {
                    "zone": {"type": "string", "x-mcp-header": "Zone"}
                }},
                "query": {"type": "string"}
            }
        });
        let params = header_params(&schema).unwrap();
        let found: Vec<(&str, String)> = params
            .iter()
            .map(|p| (p.header.as_str(), p.path.join(".")))
            .collect();
        assert_eq!(
            found,
            [
                ("Region", "region".into()),
                ("Retries", "retries".into()),
                ("Zone", "target.zone".into())
            ]
        );
        let arguments = json!({"region": "eu", "retries": 3, "target": {"zone": "b"}});
        let arguments = arguments.as_object().unwrap();
        let values: Vec<_> = params.iter().map(|p| p.value_in(arguments)).collect();
        assert_eq!(
            values,
            [
                Some(Ok("eu".into())),
                Some(Ok("3".into())),
                Some(Ok("b".into()))
            ]
        );
        assert_eq!(params[0].value_in(&Map::new()), None);
        assert_eq!(params[0].header_name(), "Mcp-Param-Region");
    }

    #[test]
    fn annotations_out_of_reach_or_malformed_make_the_tool_invalid() {
        let cases = [
            (
                json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "not an integer",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "empty",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"},
                                      "b": {"type": "string", "x-mcp-header": "x"}}}),
                "used twice",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "reached through",
            ),
            (
                json!({"properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}}),
                "reached through",
            ),
            (
                json!({"$defs": {"D": {"type": "string", "x-mcp-header": "A"}}}),
                "reached through",
            ),
        ];
        for (schema, reason) in cases {
            let error = header_params(&schema).unwrap_err();
            assert!(error.reason.contains(reason), "{schema}: {error}");
        }
    }

    #[test]
    fn only_safe_integers_strings_and_booleans_become_headers() {
        let param = HeaderParam {
            header: "N".into(),
            path: vec!["n".into()],
        };
        let value = |v: Value| param.value_in(json!({ "n": v }).as_object().unwrap());
        assert_eq!(value(json!(true)), Some(Ok("true".into())));
        assert_eq!(value(json!(-7)), Some(Ok("-7".into())));
        assert!(matches!(value(json!(1u64 << 60)), Some(Err(_))));
        assert!(matches!(value(json!(1.5)), Some(Err(_))));
        assert_eq!(value(Value::Null), None, "a null value sends no header");
    }
}
