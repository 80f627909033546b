//! A tool's or a prompt's arguments from the command line: `--args` gives
//! a JSON object, then each `KEY=VALUE` sets one key, typed through the
//! input schema's property of that name (see `typing`), so that
//! `seconds=5` is the number 5 where the schema says integer.

use serde_json::{Map, Value};

use crate::typing::typed;

/// One `KEY=VALUE`, split at the first `=`.
pub fn split_pair(pair: &str) -> Result<(&str, &str), String> {
    match pair.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => Err(format!("`{pair}` is not KEY=VALUE")),
    }
}

/// The arguments `--args` and the `pairs` give, typed by `schema` (a
/// tool's `inputSchema`; `None` leaves every value a string, as prompt
/// arguments are).
pub fn arguments(
    json: Option<&str>,
    pairs: &[String],
    schema: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    let mut arguments = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            _ => return Err(format!("--args must be a JSON object, not `{text}`")),
        },
    };
    for pair in pairs {
        let (key, text) = split_pair(pair)?;
        let value = match schema {
            None => Value::String(text.to_owned()),
            Some(schema) => {
                let property = schema.get("properties").and_then(|p| p.get(key));
                typed(property, text).map_err(|e| format!("{key}: {e}"))?
            }
        };
        arguments.insert(key.to_owned(), value);
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pairs_are_typed_through_the_schema_over_args() {
        let schema = json!({"properties": {
            "target": {"type": "string"},
            "seconds": {"type": ["integer", "null"]}
        }});
        let got = arguments(
            Some(r#"{"target": "web", "seconds": 1}"#),
            &pairs(&["target=all", "seconds=5"]),
            Some(&schema),
        );
        assert_eq!(
            got,
            Ok(json!({"target": "all", "seconds": 5})
                .as_object()
                .cloned()
                .unwrap())
        );
    }

    #[test]
    fn a_bad_value_names_its_key() {
        let schema = json!({"properties": {"seconds": {"type": "integer"}}});
        let error = arguments(None, &pairs(&["seconds=soon"]), Some(&schema)).unwrap_err();
        assert!(error.starts_with("seconds:"), "{error}");
        assert!(arguments(None, &pairs(&["seconds"]), None).is_err());
        assert!(arguments(Some("[1]"), &[], None).is_err());
    }

    #[test]
    fn prompt_arguments_stay_strings() {
        let got = arguments(None, &pairs(&["count=3"]), None).unwrap();
        assert_eq!(got["count"], json!("3"));
    }
}
