//! The check of form answers in a build without the `json-schema` feature.
//!
//! Form elicitation allows a small, fixed part of JSON Schema: a flat
//! object whose fields are strings (`minLength`, `maxLength`, the formats
//! `email`, `uri`, `date` and `date-time`, or a list of allowed values),
//! numbers and integers (`minimum`, `maximum`), booleans, and arrays of
//! listed values (`minItems`, `maxItems`). [`FormSchema`](super::form::FormSchema)
//! refuses any other schema, so checking exactly those keywords checks
//! all a form can say, without a full validator. The violations read as
//! the full validator's do.

use serde_json::{Map, Value};

use super::violation::{Violation, article, characters, items, listed, shown};

/// The first way `content` breaks the form `schema`; `None` when it
/// conforms.
pub(crate) fn check(schema: &Value, content: &Value) -> Option<Violation> {
    let Value::Object(answers) = content else {
        return Some(Violation {
            field: String::new(),
            reason: format!("expected an object, got {}", shown(content)),
        });
    };
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !answers.contains_key(name) {
            return Some(Violation {
                field: name.to_owned(),
                reason: "missing required field".into(),
            });
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, value) in answers {
        let Some(Value::Object(field)) = properties.get(name) else {
            continue;
        };
        if let Some(reason) = check_field(field, value) {
            return Some(Violation {
                field: name.clone(),
                reason,
            });
        }
    }
    None
}

/// What is wrong with `value` as an answer to `field`.
fn check_field(field: &Map<String, Value>, value: &Value) -> Option<String> {
    let kind = field.get("type").and_then(Value::as_str).unwrap_or("");
    let fits = match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integer(value),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        _ => true,
    };
    if !fits {
        return Some(format!("expected {}, got {}", article(kind), shown(value)));
    }
    if let Some(allowed) = allowed(field)
        && !allowed.contains(value)
    {
        let names: Vec<String> = allowed.iter().map(shown).collect();
        return Some(format!("expected {}, got {}", listed(&names), shown(value)));
    }
    match value {
        Value::String(text) => check_text(field, text),
        Value::Number(number) => {
            let n = number.as_f64()?;
            let limit = |k: &str| field.get(k).and_then(Value::as_f64);
            if let Some(min) = limit("minimum")
                && n < min
            {
                return Some(format!(
                    "must be at least {}, got {}",
                    field["minimum"], value
                ));
            }
            if let Some(max) = limit("maximum")
                && n > max
            {
                return Some(format!(
                    "must be at most {}, got {}",
                    field["maximum"], value
                ));
            }
            None
        }
        Value::Array(chosen) => check_choices(field, chosen),
        _ => None,
    }
}

/// An integer in JSON Schema's sense: `3.0` is one.
fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// The values a single-select allows: `enum`, or the `const` of each
/// `oneOf` or `anyOf` branch (titled values).
fn allowed(field: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(Value::Array(values)) = field.get("enum") {
        return Some(values.clone());
    }
    let branches = field
        .get("oneOf")
        .or_else(|| field.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        branches
            .iter()
            .filter_map(|branch| branch.get("const").cloned())
            .collect(),
    )
}

fn check_text(field: &Map<String, Value>, text: &str) -> Option<String> {
    let length = text.chars().count() as u64;
    let limit = |k: &str| field.get(k).and_then(Value::as_u64);
    if let Some(min) = limit("minLength")
        && length < min
    {
        return Some(format!("must be at least {min} {}", characters(min)));
    }
    if let Some(max) = limit("maxLength")
        && length > max
    {
        return Some(format!("must be at most {max} {}", characters(max)));
    }
    let format = field.get("format").and_then(Value::as_str)?;
    let valid = match format {
        "email" => is_email(text),
        "uri" => fluent_uri::Uri::parse(text).is_ok(),
        "date" => is_date(text),
        "date-time" => is_date_time(text),
        _ => true,
    };
    (!valid).then(|| format!("must be a valid {format}, got {}", shown(&text.into())))
}

/// A multi-select: every chosen value listed, and the count in bounds.
fn check_choices(field: &Map<String, Value>, chosen: &[Value]) -> Option<String> {
    let count = chosen.len() as u64;
    let limit = |k: &str| field.get(k).and_then(Value::as_u64);
    if let Some(min) = limit("minItems")
        && count < min
    {
        return Some(format!("must have at least {min} {}", items(min)));
    }
    if let Some(max) = limit("maxItems")
        && count > max
    {
        return Some(format!("must have at most {max} {}", items(max)));
    }
    let allowed = field
        .get("items")
        .and_then(Value::as_object)
        .and_then(allowed)?;
    let wrong = chosen.iter().find(|value| !allowed.contains(value))?;
    let names: Vec<String> = allowed.iter().map(shown).collect();
    Some(format!("expected {}, got {}", listed(&names), shown(wrong)))
}

/// An address in the shape `local@domain`: one `@`, neither side empty,
/// no spaces, and a domain of non-empty dot-separated labels.
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !text.chars().any(char::is_whitespace)
        && !domain.contains('@')
        && !domain.is_empty()
        && domain.split('.').all(|label| !label.is_empty())
}

/// `YYYY-MM-DD`, a real day of the calendar (RFC 3339 `full-date`).
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&text[0..4]),
        digits(&text[5..7]),
        digits(&text[8..10]),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `date-time`: `2026-07-28T09:30:00Z`, with optional fractions
/// of a second and a `±hh:mm` offset instead of `Z`.
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else if time.len() > 6 && matches!(time.as_bytes()[time.len() - 6], b'+' | b'-') {
        let (clock, offset) = time.split_at(time.len() - 6);
        (clock, Some(&offset[1..]))
    } else {
        return false;
    };
    let clock = match clock.split_once('.') {
        Some((whole, fraction)) => {
            if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
                return false;
            }
            whole
        }
        None => clock,
    };
    let hms = clock.as_bytes();
    if hms.len() != 8 || hms[2] != b':' || hms[5] != b':' {
        return false;
    }
    let in_range = |part: &str, max: u32| digits(part).is_some_and(|n| n <= max);
    // 60: a leap second.
    let clock_ok =
        in_range(&clock[0..2], 23) && in_range(&clock[3..5], 59) && in_range(&clock[6..8], 60);
    let offset_ok = offset.is_none_or(|offset| {
        offset.len() == 5
            && offset.as_bytes()[2] == b':'
            && in_range(&offset[0..2], 23)
            && in_range(&offset[3..5], 59)
    });
    clock_ok && offset_ok
}

/// The number `text` spells in ASCII digits only.
fn digits(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_and_times_follow_rfc_3339() {
        for good in ["2024-02-29", "2026-12-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-1-01",
            "26-01-01",
            "2026-01-32",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for good in [
            "2026-07-28T09:30:00Z",
            "2026-07-28t09:30:00.125+02:00",
            "2026-07-28T23:59:60-05:30",
        ] {
            assert!(is_date_time(good), "{good}");
        }
        for bad in [
            "2026-07-28",
            "2026-07-28T24:00:00Z",
            "2026-07-28T09:30Z",
            "2026-07-28T09:30:00",
            "2026-07-28T09:30:00.Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn emails_need_both_sides() {
        assert!(is_email("ada@example.com"));
        for bad in [
            "ada",
            "@example.com",
            "ada@",
            "a da@example.com",
            "ada@example..com",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn every_form_keyword_is_checked_in_plain_words() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 5},
                "site": {"type": "string", "format": "uri"},
                "age": {"type": "integer", "minimum": 18, "maximum": 130},
                "agree": {"type": "boolean"},
                "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}, "maxItems": 1},
            },
            "required": ["name"],
        });
        let answer = json!({"name": "Ada", "site": "https://example.com", "age": 36.0, "agree": true, "size": "s", "colors": ["red"]});
        assert_eq!(check(&schema, &answer), None);
        for (answer, field, reason) in [
            (json!({}), "name", "missing required field"),
            (
                json!({"name": "A"}),
                "name",
                "must be at least 2 characters",
            ),
            (json!({"name": 5}), "name", "expected a string, got 5"),
            (
                json!({"name": "Ada", "site": "not a uri"}),
                "site",
                "must be a valid uri, got \"not a uri\"",
            ),
            (
                json!({"name": "Ada", "age": 17}),
                "age",
                "must be at least 18, got 17",
            ),
            (
                json!({"name": "Ada", "age": 17.5}),
                "age",
                "expected an integer, got 17.5",
            ),
            (
                json!({"name": "Ada", "size": "m"}),
                "size",
                "expected \"s\" or \"l\", got \"m\"",
            ),
            (
                json!({"name": "Ada", "colors": ["red", "blue"]}),
                "colors",
                "must have at most 1 item",
            ),
            (
                json!({"name": "Ada", "colors": ["green"]}),
                "colors",
                "expected \"red\" or \"blue\", got \"green\"",
            ),
        ] {
            let violation = check(&schema, &answer).expect("a violation");
            assert_eq!(
                (violation.field.as_str(), violation.reason.as_str()),
                (field, reason),
                "{answer}"
            );
        }
    }
}
