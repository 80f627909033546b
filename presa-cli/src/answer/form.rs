//! The terminal form for an elicitation: one prompt per field of the
//! `requestedSchema` that no `--answer` filled, on stderr, so that stdout
//! keeps only the command's output.
//!
//! Each field shows its title (or name) and description; a field with
//! choices is a choice list, a boolean a y/n question, anything else a
//! line of text checked by `typing` before it is taken, so the server
//! sees only values its schema allows. A default is offered as the
//! answer; an optional field may be left empty. Escape on a choice or a
//! y/n declines the whole question, and so does Ctrl-C (`ctrl_c`).
//!
//! Every text the server wrote (the message, a field's title and
//! description, a choice's label, a default) is shown escaped
//! (`shown`); the values sent back are the server's own, unescaped.

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, Select};
use presa::wire::ElicitResult;
use serde_json::{Map, Value};

use super::ctrl_c::Prompted;
use crate::output::shown::{self, note};
use crate::typing::{choices, plain, typed, types};

/// Asks `message` as a form of `schema`'s fields, `given` filled already.
pub fn fill(
    message: &str,
    schema: &Value,
    mut given: Map<String, Value>,
) -> Prompted<ElicitResult> {
    note!("{message}");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        if given.contains_key(name) {
            continue;
        }
        let field = Field {
            label: label(name, property),
            property,
            required: required.contains(&name.as_str()),
        };
        match field.ask() {
            Asked::Value(value) => {
                given.insert(name.clone(), value);
            }
            Asked::Skipped => {}
            Asked::Declined(declined) => return declined,
        }
    }
    Prompted::answered(ElicitResult::accept(Value::Object(given)))
}

/// One field's prompt.
struct Field<'a> {
    label: String,
    property: &'a Value,
    required: bool,
}

/// What the person answered for one field.
enum Asked {
    Value(Value),
    /// An optional field left empty.
    Skipped,
    /// Escape, Ctrl-C, or the terminal failed: the question is declined.
    Declined(Prompted<ElicitResult>),
}

impl Asked {
    /// Escape, or a bad typed answer.
    fn declined() -> Self {
        Asked::Declined(Prompted::answered(ElicitResult::decline()))
    }

    /// A prompt that ended in `error`.
    fn failed(error: &dialoguer::Error) -> Self {
        Asked::Declined(Prompted::failed(ElicitResult::decline(), error))
    }
}

impl Field<'_> {
    fn ask(&self) -> Asked {
        if let Some(choices) = choices(self.property) {
            return self.choose(choices);
        }
        if types(self.property).iter().any(|t| t == "boolean") {
            return self.confirm();
        }
        self.type_in()
    }

    fn choose(&self, choices: Vec<(Value, String)>) -> Asked {
        let theme = ColorfulTheme::default();
        let skip = (!self.required).then_some("(leave out)".to_owned());
        let items: Vec<String> = skip
            .iter()
            .cloned()
            .chain(choices.iter().map(|c| shown::line(&c.1).to_string()))
            .collect();
        let offset = usize::from(skip.is_some());
        let default = self
            .property
            .get("default")
            .and_then(|d| choices.iter().position(|(v, _)| v == d))
            .map_or(0, |i| i + offset);
        let chosen = Select::with_theme(&theme)
            .with_prompt(&self.label)
            .items(&items)
            .default(default)
            .interact_opt();
        match chosen {
            Ok(Some(i)) if i < offset => Asked::Skipped,
            Ok(Some(i)) => Asked::Value(choices[i - offset].0.clone()),
            Ok(None) => Asked::declined(),
            Err(error) => Asked::failed(&error),
        }
    }

    fn confirm(&self) -> Asked {
        let theme = ColorfulTheme::default();
        let mut confirm = Confirm::with_theme(&theme).with_prompt(&self.label);
        if let Some(default) = self.property.get("default").and_then(Value::as_bool) {
            confirm = confirm.default(default);
        }
        match confirm.interact_opt() {
            Ok(Some(yes)) => Asked::Value(Value::Bool(yes)),
            Ok(None) => Asked::declined(),
            Err(error) => Asked::failed(&error),
        }
    }

    fn type_in(&self) -> Asked {
        let theme = ColorfulTheme::default();
        let property = self.property.clone();
        let required = self.required;
        let mut input = Input::<String>::with_theme(&theme)
            .with_prompt(&self.label)
            .allow_empty(!required)
            .validate_with(move |text: &String| -> Result<(), String> {
                if text.is_empty() && !required {
                    return Ok(());
                }
                typed(Some(&property), text)
                    .map(drop)
                    .map_err(|e| shown::line(&e).to_string())
            });
        if let Some(default) = self.property.get("default") {
            // Shown escaped in the prompt; given back as it is.
            let default = plain(default);
            input = input
                .with_prompt(format!("{} [{}]", self.label, shown::line(&default)))
                .default(default)
                .show_default(false);
        }
        match input.interact_text() {
            Ok(text) if text.is_empty() && !required => Asked::Skipped,
            Ok(text) => {
                typed(Some(self.property), &text).map_or_else(|_| Asked::declined(), Asked::Value)
            }
            Err(error) => Asked::failed(&error),
        }
    }
}

/// `title (description)`, or the field's name for a title, escaped.
fn label(name: &str, property: &Value) -> String {
    let title = property
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or(name);
    let title = shown::line(title);
    match property.get("description").and_then(Value::as_str) {
        Some(description) => format!("{title} ({})", shown::line(description)),
        None => title.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_label_shows_the_server_s_escapes_as_text() {
        let property = json!({"title": "OK\x1b]52;c;eA==\x07", "description": "a\nb\u{9b}"});
        assert_eq!(label("ok", &property), r"OK\x1b]52;c;eA==\x07 (a\nb\u{9b})");
        assert_eq!(label("ok\x1b[2J", &json!({})), r"ok\x1b[2J");
    }
}
