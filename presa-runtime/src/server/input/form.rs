//! [`FormSchema`]: the `requestedSchema` of a form elicitation, compiled
//! once, and the check every answer passes before a tool sees it.
//!
//! The spec asks servers to validate what users submit against the schema
//! they sent. A client may not validate at all, and a user can type
//! anything, so an answer that breaks the schema (a number under
//! `minimum`, a string over `maxLength`, a malformed `email`, a value
//! outside an `enum`) is treated like one that does not parse: discarded,
//! and the question asked again.
//!
//! Forms come from two places: a type deriving
//! [`Elicit`](crate::server::Elicit), whose schema is generated and compiled once
//! per type ([`FormSchema::of`]), and a schema built at run time, for a
//! form whose fields are only known then ([`FormSchema::new`]), which is
//! first checked against the restricted subset form elicitation allows.
//!
//! With the `json-schema` feature answers are checked by the full
//! validator; without it, by `form_check`, a small exact check of the
//! keywords a form may use.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::{Map, Value};

use super::elicit::Elicit;
use super::violation::Violation;
use crate::util::{Digest256, json_digest, read, write};

/// A form's `requestedSchema`, checked and compiled. Cheap to clone.
#[derive(Clone)]
pub struct FormSchema {
    inner: Arc<Compiled>,
}

struct Compiled {
    schema: Value,
    /// The schema's digest, for a run to tell its questions apart
    /// (`question`).
    digest: Digest256,
    #[cfg(feature = "json-schema")]
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for FormSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("FormSchema")
            .field(&self.inner.schema)
            .finish()
    }
}

/// Why a schema cannot be a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a form schema: {0}")]
pub struct FormSchemaError(String);

/// The string formats form elicitation allows.
const STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

impl FormSchema {
    /// Checks `schema` against what form elicitation allows (a flat
    /// object whose properties are strings, numbers, integers, booleans,
    /// single-select enums or multi-select enum arrays, with the string
    /// formats `email`, `uri`, `date` and `date-time`), and compiles it.
    pub fn new(schema: Value) -> Result<FormSchema, FormSchemaError> {
        check_form(&schema).map_err(FormSchemaError)?;
        FormSchema::compile(schema)
    }

    /// The form of type `T`, generated and compiled once per type.
    pub fn of<T: Elicit>() -> FormSchema {
        static CACHE: OnceLock<RwLock<HashMap<TypeId, FormSchema>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let id = TypeId::of::<T>();
        if let Some(form) = read(cache).get(&id) {
            return form.clone();
        }
        let form = FormSchema::compile(T::requested_schema()).unwrap_or_else(|e| {
            panic!(
                "the elicitation schema of `{}` does not compile: {e}",
                std::any::type_name::<T>()
            )
        });
        write(cache).entry(id).or_insert(form).clone()
    }

    #[cfg(feature = "json-schema")]
    fn compile(schema: Value) -> Result<FormSchema, FormSchemaError> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|e| FormSchemaError(e.to_string()))?;
        let digest = json_digest(&schema);
        Ok(FormSchema {
            inner: Arc::new(Compiled {
                schema,
                digest,
                validator,
            }),
        })
    }

    /// Without a validator every form must be one `form_check` covers, a
    /// derived one too.
    #[cfg(not(feature = "json-schema"))]
    fn compile(schema: Value) -> Result<FormSchema, FormSchemaError> {
        check_form(&schema).map_err(FormSchemaError)?;
        let digest = json_digest(&schema);
        Ok(FormSchema {
            inner: Arc::new(Compiled { schema, digest }),
        })
    }

    /// The schema, as sent in `requestedSchema`.
    pub fn schema(&self) -> &Value {
        &self.inner.schema
    }

    /// The digest of the schema's JSON text.
    pub(crate) fn digest(&self) -> &Digest256 {
        &self.inner.digest
    }

    /// Checks submitted `content` against the schema.
    pub(crate) fn check(&self, content: &Value) -> Result<(), Violation> {
        #[cfg(feature = "json-schema")]
        let violation = Violation::first(
            self.inner.validator.iter_errors(content),
            "missing required field",
        );
        #[cfg(not(feature = "json-schema"))]
        let violation = super::form_check::check(&self.inner.schema, content);
        match violation {
            None => Ok(()),
            Some(violation) => Err(violation),
        }
    }
}

/// Whether `schema` is a flat form; the reason when it is not.
fn check_form(schema: &Value) -> Result<(), String> {
    let Value::Object(root) = schema else {
        return Err("the schema must be a JSON object".into());
    };
    if root.get("type") != Some(&Value::from("object")) {
        return Err(r#"the root must have "type": "object""#.into());
    }
    let Some(properties) = root.get("properties") else {
        return Ok(());
    };
    let Value::Object(properties) = properties else {
        return Err("`properties` must be an object".into());
    };
    for (name, property) in properties {
        check_field(property).map_err(|reason| format!("field `{name}`: {reason}"))?;
    }
    Ok(())
}

/// Whether one property is a primitive form field.
fn check_field(property: &Value) -> Result<(), String> {
    let Value::Object(field) = property else {
        return Err("must be a schema object".into());
    };
    match field.get("type").and_then(Value::as_str) {
        Some("string") => check_format(field),
        Some("number" | "integer" | "boolean") => Ok(()),
        Some("array") => check_multi_select(field),
        Some(other) => Err(format!(
            "type `{other}` cannot be a form field; forms are flat (string, number, integer, \
             boolean, or an array of enum values)"
        )),
        None => Err(r#"needs a "type""#.into()),
    }
}

fn check_format(field: &Map<String, Value>) -> Result<(), String> {
    match field.get("format").and_then(Value::as_str) {
        Some(format) if !STRING_FORMATS.contains(&format) => Err(format!(
            "format `{format}` is not one forms allow ({})",
            STRING_FORMATS.join(", ")
        )),
        _ => Ok(()),
    }
}

/// A multi-select: an array whose items are string enum values.
fn check_multi_select(field: &Map<String, Value>) -> Result<(), String> {
    let items = field.get("items").and_then(Value::as_object);
    let listed =
        items.is_some_and(|items| items.contains_key("enum") || items.contains_key("anyOf"));
    if listed {
        Ok(())
    } else {
        Err(
            "an array field is a multi-select: its `items` must list values with `enum` or `anyOf`"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_flat_forms_are_accepted() {
        let ok = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 10},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 18},
                "colors": {"type": "array", "items": {"enum": ["red", "blue"]}},
            },
            "required": ["name"],
        });
        assert!(FormSchema::new(ok).is_ok());
        for (bad, reason) in [
            (json!([]), "JSON object"),
            (json!({"type": "string"}), "root"),
            (
                json!({"type": "object", "properties": {"a": {"type": "object"}}}),
                "field `a`: type `object`",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}),
                "field `a`: an array field",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}),
                "format `ipv4`",
            ),
        ] {
            let error = FormSchema::new(bad).unwrap_err().to_string();
            assert!(error.contains(reason), "{error}");
        }
    }

    #[test]
    fn answers_are_checked_against_every_constraint() {
        let form = FormSchema::new(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 5},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 18},
                "size": {"type": "string", "enum": ["s", "l"]},
            },
            "required": ["name"],
        }))
        .unwrap();
        assert!(
            form.check(&json!({"name": "Ada", "email": "ada@example.com"}))
                .is_ok()
        );
        for (answer, field) in [
            (json!({}), "name"),
            (json!({"name": "Adalovelace"}), "name"),
            (json!({"name": "Ada", "email": "not an email"}), "email"),
            (json!({"name": "Ada", "age": 17}), "age"),
            (json!({"name": "Ada", "size": "m"}), "size"),
        ] {
            let violation = form.check(&answer).unwrap_err();
            assert_eq!(violation.field, field, "{answer}");
        }
    }
}
