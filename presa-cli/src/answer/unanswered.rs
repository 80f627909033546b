//! A question `presa` could not put to anyone, and what to tell the user:
//! which question it was, and the `--answer` that would answer it.
//!
//! The server wrote the question's key, message and field names, so they
//! are shown escaped (`shown`), and each suggested `--answer` is quoted
//! for a shell: a field named `ok; rm -rf ~` makes a suggestion that a
//! person can paste, and that runs nothing.

use serde_json::{Map, Value};

use crate::output::shown;
use crate::typing::{choices, plain, types};

/// A question declined because no one could be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswered {
    /// The key the server filed it under.
    pub key: String,
    /// What the server asked.
    pub message: String,
    /// The `--answer` arguments that would answer it; empty for a
    /// question only a person can answer (a URL to visit).
    pub answers: Vec<String>,
}

impl Unanswered {
    /// A form question: its suggested answers are one per required field
    /// (every field, when none is required) that `given` leaves out.
    pub fn form(key: &str, message: &str, schema: &Value, given: &Map<String, Value>) -> Self {
        let properties = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let answers = properties
            .into_iter()
            .flatten()
            .filter(|(name, _)| required.is_empty() || required.contains(&name.as_str()))
            .filter(|(name, _)| !given.contains_key(*name))
            .map(|(name, property)| {
                let field = shell_words::quote(&format!("{key}.{name}")).into_owned();
                let value = shell_words::quote(&example(property)).into_owned();
                format!("--answer {field}={value}")
            })
            .collect();
        Unanswered {
            key: key.to_owned(),
            message: message.to_owned(),
            answers,
        }
    }

    /// What to print on stderr, on one line.
    pub fn explain(&self) -> String {
        let asked = format!(
            "the server asked `{}`: \"{}\"; with no terminal to ask, presa declined",
            shown::line(&self.key),
            shown::line(&self.message)
        );
        if self.answers.is_empty() {
            return format!("{asked}; run presa in a terminal to answer it");
        }
        let answers = self.answers.join(" ");
        format!("{asked}; answer it ahead with {}", shown::line(&answers))
    }
}

/// A value to show in a suggested `--answer`: the default, the first
/// choice, `true`, a number, or `VALUE`.
fn example(property: &Value) -> String {
    if let Some(default) = property.get("default") {
        return plain(default);
    }
    if let Some((value, _)) = choices(property).and_then(|c| c.into_iter().next()) {
        return plain(&value);
    }
    let types = types(property);
    let first = types.iter().map(String::as_str).find(|t| *t != "null");
    match first {
        Some("boolean") => "true".into(),
        Some("integer") | Some("number") => "0".into(),
        _ => "VALUE".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_explanation_names_the_question_and_the_answer() {
        let schema = json!({"properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
        let unanswered = Unanswered::form("confirm", "Build all?", &schema, &Map::new());
        let text = unanswered.explain();
        assert!(
            text.contains("`confirm`") && text.contains("Build all?"),
            "{text}"
        );
        assert!(text.ends_with("--answer confirm.ok=true"), "{text}");
    }

    #[test]
    fn a_hostile_question_is_told_on_one_line_and_its_answer_quoted() {
        let schema = json!({
            "properties": {"ok; touch pwned": {"enum": ["a b", "c"]}},
            "required": ["ok; touch pwned"]
        });
        let unanswered = Unanswered::form("k\x1b[2J", "line\nfake\x07", &schema, &Map::new());
        let text = unanswered.explain();
        assert!(!text.contains(['\n', '\x1b', '\x07']), "{text}");
        assert!(text.contains(r#"`k\x1b[2J`: "line\nfake\x07""#), "{text}");
        assert!(
            text.ends_with(r"--answer 'k\x1b[2J.ok; touch pwned'='a b'"),
            "{text}"
        );
    }
}
