//! Text typed into JSON by a JSON Schema property: how `KEY=VALUE` tool
//! arguments, `--answer` pre-answers and the terminal form's fields become
//! the values the server's schema asks for.
//!
//! The rules, in order:
//!
//! 1. a property with choices (`enum`, or `oneOf`/`anyOf` of `const`s)
//!    takes one of them, typed as the choice is;
//! 2. otherwise the text is read as each of the property's types in turn
//!    (`type`, a list of types, or the types of `anyOf`/`oneOf`):
//!    `null`, `boolean` (`true`/`false`, `yes`/`no`, `y`/`n`), `integer`,
//!    `number`, `array` and `object` as JSON, `string` as it is;
//! 3. a value is checked against the property's bounds (`minimum`,
//!    `maximum`, `minLength`, `maxLength`) and `format` (`email`, `uri`,
//!    `date`, `date-time`) before the server sees it;
//! 4. a property of no known type (or no property: a key the schema does
//!    not name) takes the text as JSON if it is JSON, else as a string.

use serde_json::{Number, Value};

/// The value `text` stands for under `property`, or why it fits none.
pub fn typed(property: Option<&Value>, text: &str) -> Result<Value, String> {
    let Some(property) = property else {
        return Ok(loose(text));
    };
    if let Some(choices) = choices(property) {
        return choose(&choices, text);
    }
    let types = types(property);
    if types.is_empty() {
        return Ok(loose(text));
    }
    let mut reasons = Vec::new();
    for kind in &types {
        match as_type(kind, text) {
            Ok(value) => return checked(property, value),
            Err(reason) => reasons.push(reason),
        }
    }
    Err(reasons.join(", or "))
}

/// The choices a property offers, each with the title to show.
pub fn choices(property: &Value) -> Option<Vec<(Value, String)>> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let names = property.get("enumNames").and_then(Value::as_array);
        let titled = values.iter().enumerate().map(|(i, value)| {
            let name = names.and_then(|n| n.get(i)).and_then(Value::as_str);
            (
                value.clone(),
                name.map_or_else(|| plain(value), str::to_owned),
            )
        });
        return Some(titled.collect());
    }
    let options = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| property.get(*k).and_then(Value::as_array))?;
    let consts: Option<Vec<_>> = options
        .iter()
        .map(|option| {
            let value = option.get("const")?.clone();
            let title = option.get("title").and_then(Value::as_str);
            Some((
                value.clone(),
                title.map_or_else(|| plain(&value), str::to_owned),
            ))
        })
        .collect();
    consts.filter(|c| !c.is_empty())
}

/// The JSON types a property allows, in the order the schema gives them.
pub fn types(property: &Value) -> Vec<String> {
    match property.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| property.get(*k).and_then(Value::as_array))
            .flatten()
            .flat_map(types)
            .collect(),
    }
}

/// A value shown as a person would type it: a string without quotes.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn loose(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

fn choose(choices: &[(Value, String)], text: &str) -> Result<Value, String> {
    choices
        .iter()
        .find(|(value, title)| plain(value) == text || title == text)
        .map(|(value, _)| value.clone())
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(v, _)| plain(v)).collect();
            format!("`{text}` is not one of {}", names.join(", "))
        })
}

fn as_type(kind: &str, text: &str) -> Result<Value, String> {
    let fails = |what: &str| format!("`{text}` is not {what}");
    match kind {
        "null" if text == "null" => Ok(Value::Null),
        "null" => Err(fails("null")),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" => Ok(Value::Bool(true)),
            "false" | "no" | "n" => Ok(Value::Bool(false)),
            _ => Err(fails("a boolean (true or false)")),
        },
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| fails("an integer")),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| fails("a number")),
        "array" | "object" => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Array(_)) if kind == "array" => Ok(value),
            Ok(value @ Value::Object(_)) if kind == "object" => Ok(value),
            _ => Err(fails(&format!("a JSON {kind}"))),
        },
        _ => Ok(Value::String(text.to_owned())),
    }
}

/// `value` if it keeps the property's bounds and format (rule 3).
fn checked(property: &Value, value: Value) -> Result<Value, String> {
    let bound = |key: &str| property.get(key).and_then(Value::as_f64);
    if let Some(n) = value.as_f64() {
        if let Some(min) = bound("minimum").filter(|min| n < *min) {
            return Err(format!("{n} is below the minimum, {min}"));
        }
        if let Some(max) = bound("maximum").filter(|max| n > *max) {
            return Err(format!("{n} is above the maximum, {max}"));
        }
    }
    if let Some(s) = value.as_str() {
        let length = s.chars().count() as f64;
        if let Some(min) = bound("minLength").filter(|min| length < *min) {
            return Err(format!("`{s}` is shorter than {min} characters"));
        }
        if let Some(max) = bound("maxLength").filter(|max| length > *max) {
            return Err(format!("`{s}` is longer than {max} characters"));
        }
        if let Some(format) = property.get("format").and_then(Value::as_str)
            && !has_format(format, s)
        {
            return Err(format!("`{s}` is not a valid {format}"));
        }
    }
    Ok(value)
}

/// Whether `s` looks like `format`; formats this does not know pass.
fn has_format(format: &str, s: &str) -> bool {
    match format {
        "email" => s
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.')),
        "uri" => s.split_once(':').is_some_and(|(scheme, rest)| {
            !rest.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        }),
        "date" => is_date(s),
        "date-time" => s
            .split_once(['T', 't'])
            .is_some_and(|(date, time)| is_date(date) && time.len() >= 8 && time.contains(':')),
        _ => true,
    }
}

/// `YYYY-MM-DD`.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let digits = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_digit());
    matches!(parts.as_slice(), [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_integer_property_types_the_text_as_a_number() {
        let seconds = json!({"type": ["integer", "null"], "minimum": 0});
        assert_eq!(typed(Some(&seconds), "5"), Ok(json!(5)));
        assert_eq!(typed(Some(&seconds), "null"), Ok(Value::Null));
        assert!(typed(Some(&seconds), "five").is_err());
        assert!(typed(Some(&seconds), "-1").unwrap_err().contains("minimum"));
    }

    #[test]
    fn booleans_take_yes_and_no() {
        let ok = json!({"type": "boolean"});
        assert_eq!(typed(Some(&ok), "true"), Ok(json!(true)));
        assert_eq!(typed(Some(&ok), "n"), Ok(json!(false)));
        assert!(typed(Some(&ok), "maybe").is_err());
    }

    #[test]
    fn choices_take_a_value_or_its_title() {
        let region = json!({"oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us"}]});
        assert_eq!(typed(Some(&region), "Europe"), Ok(json!("eu")));
        assert_eq!(typed(Some(&region), "us"), Ok(json!("us")));
        assert!(typed(Some(&region), "asia").unwrap_err().contains("eu, us"));
    }

    #[test]
    fn formats_are_checked() {
        let email = json!({"type": "string", "format": "email"});
        assert!(typed(Some(&email), "ada@example.com").is_ok());
        assert!(typed(Some(&email), "ada").is_err());
        let date = json!({"type": "string", "format": "date"});
        assert!(typed(Some(&date), "2026-07-28").is_ok());
        assert!(typed(Some(&date), "28/07/2026").is_err());
    }

    #[test]
    fn an_unknown_key_is_json_or_a_string() {
        assert_eq!(typed(None, "[1, 2]"), Ok(json!([1, 2])));
        assert_eq!(typed(None, "docs"), Ok(json!("docs")));
    }
}
