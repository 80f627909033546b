//! `--answer KEY.FIELD=VALUE`: answers given ahead, without asking.
//!
//! `KEY` is the key the server files its question under (`confirm`),
//! `FIELD` a property of the question's `requestedSchema`. The value is
//! typed through that property when the question arrives, as a form field
//! typed at the terminal would be. A legacy (2025-11-25) server files its
//! questions under no key of its own (their JSON-RPC id stands in), so a
//! question whose key no answer names takes the first answers whose
//! fields all belong to its schema.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::tool_arguments::split_pair;
use crate::typing::typed;

/// Every `--answer`, by question key, then field, as typed on the line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Presets {
    by_key: BTreeMap<String, BTreeMap<String, String>>,
}

impl Presets {
    /// Reads each `KEY.FIELD=VALUE`.
    pub fn parse(answers: &[String]) -> Result<Self, String> {
        let mut presets = Presets::default();
        for answer in answers {
            let (path, value) = split_pair(answer)?;
            let Some((key, field)) = path
                .split_once('.')
                .filter(|(k, f)| !k.is_empty() && !f.is_empty())
            else {
                return Err(format!("--answer `{answer}` is not KEY.FIELD=VALUE"));
            };
            let fields = presets.by_key.entry(key.to_owned()).or_default();
            fields.insert(field.to_owned(), value.to_owned());
        }
        Ok(presets)
    }

    /// The answers given for question `key` with `schema`, typed by it;
    /// empty when none were. An answer whose value the schema refuses is
    /// an error naming it.
    pub fn for_question(&self, key: &str, schema: &Value) -> Result<Map<String, Value>, String> {
        let properties = schema.get("properties");
        let fits = |fields: &&BTreeMap<String, String>| {
            fields
                .keys()
                .all(|f| properties.and_then(|p| p.get(f)).is_some())
        };
        let Some((key, fields)) = self
            .by_key
            .get_key_value(key)
            .or_else(|| self.by_key.iter().find(|(_, fields)| fits(fields)))
        else {
            return Ok(Map::new());
        };
        fields
            .iter()
            .map(|(field, text)| {
                let property = properties.and_then(|p| p.get(field));
                let value =
                    typed(property, text).map_err(|e| format!("--answer {key}.{field}: {e}"))?;
                Ok((field.clone(), value))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn confirm() -> Value {
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
    }

    #[test]
    fn an_answer_is_typed_by_the_question_s_schema() {
        let presets = Presets::parse(&["confirm.ok=true".into()]).unwrap();
        let answer = presets.for_question("confirm", &confirm()).unwrap();
        assert_eq!(Value::Object(answer), json!({"ok": true}));
    }

    #[test]
    fn a_keyless_legacy_question_takes_answers_that_fit_its_schema() {
        let presets = Presets::parse(&["region.zone=eu".into(), "confirm.ok=no".into()]).unwrap();
        let answer = presets.for_question("7", &confirm()).unwrap();
        assert_eq!(Value::Object(answer), json!({"ok": false}));
    }

    #[test]
    fn bad_answers_are_refused_with_their_name() {
        assert!(Presets::parse(&["confirm=true".into()]).is_err());
        assert!(Presets::parse(&[".ok=true".into()]).is_err());
        let presets = Presets::parse(&["confirm.ok=perhaps".into()]).unwrap();
        let error = presets.for_question("confirm", &confirm()).unwrap_err();
        assert!(error.contains("confirm.ok"), "{error}");
    }
}
