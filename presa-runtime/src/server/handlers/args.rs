//! Arguments: the per-field parsers that `#[tool]`, `#[prompt]` and
//! `#[resource]` expand to, and the bound on the text-valued ones.
//!
//! Arguments are parsed field by field, not through one derived struct, so
//! that an error names the offending field and a parameter type that cannot
//! be parsed is reported at that parameter.
//!
//! A tool's arguments are JSON, read with serde ([`ArgsParser`]). A
//! prompt's arguments and a resource template's variables are strings on
//! the wire, so their parameters are read with [`FromStr`]
//! ([`TextArgs`], bound by [`TextParam`]): `String`, numbers, `bool`, or an
//! enum of yours that implements `FromStr`.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::schema::ToolParam;
#[cfg(feature = "json-schema")]
use crate::server::input::violation::Violation;
use crate::server::request::error::ToolError;
use crate::wire::{CallToolResult, strict};

/// A field of the arguments that is missing or has the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// The argument's name, with the path inside it when a nested value was wrong: `order.items[1]`.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid arguments: `{}`: {}", self.field, self.reason)
    }
}

impl ArgumentError {
    /// The tool execution error (`isError: true`) the spec asks for.
    pub fn into_result(self) -> CallToolResult {
        CallToolResult::error(self.to_string())
    }

    /// The refusal of a prompt or a resource read: `-32602` with this
    /// error's text, as for a missing argument or a resource that does not
    /// exist.
    pub fn into_rejection(self) -> ToolError {
        ToolError::new(format!(
            "Invalid params: argument `{}`: {}",
            self.field, self.reason
        ))
    }
}

/// A type a prompt argument or a resource template variable can be: one
/// that parses from a string.
///
/// Implemented for every [`FromStr`] type whose error is [`Display`]:
/// `String`, the numbers, `bool`, `char`, and your own types (an enum
/// that names the allowed values, say). Take an optional prompt argument
/// as `Option<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a prompt argument or a template variable",
    label = "this parameter's type must implement `FromStr`, with an error that implements `Display`",
    note = "prompt arguments and URI template variables are strings on the wire: use `String`, a number, `bool`, or implement `std::str::FromStr` for your type; wrap it in `Option` to make a prompt argument optional"
)]
pub trait TextParam: Sized + Send + 'static {
    /// Parses the argument's text; the error says why it is not valid.
    fn parse_text(text: &str) -> Result<Self, String>;
}

// `do_not_recommend` makes the compiler report the unmet `TextParam`
// itself, with the message above, instead of the `FromStr` bound behind it.
#[diagnostic::do_not_recommend]
impl<T> TextParam for T
where
    T: FromStr + Send + 'static,
    T::Err: Display,
{
    fn parse_text(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// Takes text-valued fields (prompt arguments, template variables) out of
/// a request one at a time.
pub struct TextArgs {
    values: BTreeMap<String, String>,
}

impl TextArgs {
    /// Wraps the raw values, by name.
    pub fn new(values: BTreeMap<String, String>) -> Self {
        TextArgs { values }
    }

    /// Parses field `name`, which must be present.
    pub fn required<T: TextParam>(&mut self, name: &str) -> Result<T, ArgumentError> {
        match self.values.remove(name) {
            Some(text) => parse_text(name, &text),
            None => Err(ArgumentError {
                field: name.to_owned(),
                reason: "missing required argument".into(),
            }),
        }
    }

    /// Parses field `name` if it is present.
    pub fn optional<T: TextParam>(&mut self, name: &str) -> Result<Option<T>, ArgumentError> {
        self.values
            .remove(name)
            .map(|text| parse_text(name, &text))
            .transpose()
    }
}

fn parse_text<T: TextParam>(name: &str, text: &str) -> Result<T, ArgumentError> {
    T::parse_text(text).map_err(|reason| ArgumentError {
        field: name.to_owned(),
        reason: format!("{reason} (got {text:?})"),
    })
}

/// Takes fields out of a tool's arguments one at a time.
pub struct ArgsParser {
    arguments: Map<String, Value>,
}

impl ArgsParser {
    /// Wraps the raw `arguments` object.
    pub fn new(arguments: Map<String, Value>) -> Self {
        ArgsParser { arguments }
    }

    /// Parses field `name` as `T`, strictly (an object wherever `T` wants
    /// a struct). A missing required field is an error; a missing optional
    /// one parses from `null` (so `Option<T>` gives `None`). The error's
    /// field is the path to what was wrong: `order.items[1]`.
    pub fn field<T: ToolParam>(&mut self, name: &str, required: bool) -> Result<T, ArgumentError> {
        let value = match self.arguments.remove(name) {
            Some(v) => v,
            None if required => {
                return Err(ArgumentError {
                    field: name.to_owned(),
                    reason: "missing required argument".into(),
                });
            }
            None => Value::Null,
        };
        strict::from_value(value).map_err(|e| ArgumentError {
            field: format!("{name}{}", e.path()),
            reason: e.message().to_owned(),
        })
    }
}

/// A tool's `inputSchema`, compiled once, checking every call's arguments.
///
/// This catches what the Rust types cannot express (`minimum`, `pattern`,
/// `maxLength`, …); deserialization then catches the rest.
///
/// An optional parameter's schema says what its value is, without `null`
/// (see [`portable`](crate::schema::portable)), yet clients still send
/// `null` for a parameter they mean to leave out. So a `null` for a
/// property that is not required, and whose schema refuses `null`, reads
/// as the property left out; a `null` the schema allows is passed on.
#[cfg(feature = "json-schema")]
pub(crate) struct ArgumentSchema {
    validator: jsonschema::Validator,
    /// The properties whose `null` reads as left out.
    absent_when_null: Vec<String>,
}

#[cfg(feature = "json-schema")]
impl ArgumentSchema {
    /// Compiles `schema`; network `$ref`s are never fetched. `typed` does
    /// not matter here: every tool's arguments meet the schema.
    pub fn compile(schema: &Value, typed: bool) -> Result<Self, String> {
        let _ = typed;
        let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
        let absent_when_null = optional_properties(schema)
            .filter(|name| refuses_null(&validator, name))
            .collect();
        Ok(ArgumentSchema {
            validator,
            absent_when_null,
        })
    }

    /// Hands `arguments` back when they conform; otherwise the first
    /// violation, naming the field it concerns and saying what it should
    /// be in the value's terms (`expected one of "dev", "staging"`), not
    /// the schema's.
    pub fn check(
        &self,
        mut arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ArgumentError> {
        for name in &self.absent_when_null {
            if arguments.get(name).is_some_and(Value::is_null) {
                arguments.remove(name);
            }
        }
        // The validator reads a `Value`; wrapping and unwrapping moves, never copies.
        let arguments = Value::Object(arguments);
        let violation = Violation::first(
            self.validator.iter_errors(&arguments),
            "missing required argument",
        );
        let Some(violation) = violation else {
            let Value::Object(arguments) = arguments else {
                unreachable!("wrapped as an object above")
            };
            return Ok(arguments);
        };
        Err(ArgumentError {
            field: if violation.field.is_empty() {
                "arguments".into()
            } else {
                violation.field
            },
            reason: violation.reason,
        })
    }
}

/// A tool's `inputSchema` in a build without a JSON Schema validator
/// (see [`typed_check`](super::typed_check)): a `#[tool]`'s arguments are
/// checked by their types as they are read, and only unknown names are
/// refused here, where the schema is closed.
#[cfg(not(feature = "json-schema"))]
pub(crate) struct ArgumentSchema {
    /// The names allowed, when the schema is closed.
    closed: Option<Vec<String>>,
}

#[cfg(not(feature = "json-schema"))]
impl ArgumentSchema {
    /// Takes `schema` when the tool's types (`typed`) or the check of
    /// unknown names cover all it says; otherwise says what in it needs
    /// the `json-schema` feature.
    pub fn compile(schema: &Value, typed: bool) -> Result<Self, String> {
        use super::typed_check::{closed_properties, is_trivial, unenforced};
        if typed {
            if let Some(why) = unenforced(schema) {
                return Err(format!(
                    "it has {why}, which the parameter types do not enforce"
                ));
            }
        } else if !is_trivial(schema) {
            return Err("the tool is not a `#[tool]` and takes parameters".into());
        }
        Ok(ArgumentSchema {
            closed: closed_properties(schema),
        })
    }

    /// Hands `arguments` back unless the schema is closed and one of
    /// them is not in it.
    pub fn check(
        &self,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ArgumentError> {
        if let Some(allowed) = &self.closed
            && let Some(name) = arguments.keys().find(|name| !allowed.contains(name))
        {
            return Err(ArgumentError {
                field: "arguments".into(),
                reason: format!("unexpected field `{name}`"),
            });
        }
        Ok(arguments)
    }
}

/// The names of `schema`'s properties that are not `required`.
#[cfg(feature = "json-schema")]
fn optional_properties(schema: &Value) -> impl Iterator<Item = String> + '_ {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys())
        .filter(move |name| !required.contains(&name.as_str()))
        .cloned()
}

/// Whether property `name`'s schema refuses `null`: the arguments
/// `{name: null}` break the schema at `name` itself.
#[cfg(feature = "json-schema")]
fn refuses_null(validator: &jsonschema::Validator, name: &str) -> bool {
    let mut probe = Map::new();
    probe.insert(name.to_owned(), Value::Null);
    let at = format!("/{}", name.replace('~', "~0").replace('/', "~1"));
    validator
        .iter_errors(&Value::Object(probe))
        .any(|error| error.instance_path().as_str() == at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "json-schema")]
    #[test]
    fn a_null_for_an_optional_parameter_that_refuses_it_reads_as_left_out() {
        let schema = ArgumentSchema::compile(
            &json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer"},
                    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "a/b": {"type": "string"},
                    "name": {"type": "string"},
                },
                "required": ["name"],
            }),
            false,
        )
        .unwrap();
        let arguments = json!({"count": null, "note": null, "a/b": null, "name": "x"});
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let checked = schema.check(arguments).unwrap();
        assert_eq!(Value::Object(checked), json!({"note": null, "name": "x"}));
        let required_null = json!({"name": null});
        let Value::Object(required_null) = required_null else {
            unreachable!()
        };
        let refused = schema.check(required_null).unwrap_err();
        assert_eq!(refused.field, "name");
    }

    #[cfg(not(feature = "json-schema"))]
    #[test]
    fn without_a_validator_only_what_the_types_check_is_taken() {
        let typed = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": false,
        });
        let schema = ArgumentSchema::compile(&typed, true).unwrap();
        let Value::Object(extra) = json!({"name": "x", "other": 1}) else {
            unreachable!()
        };
        let refused = schema.check(extra).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "invalid arguments: `arguments`: unexpected field `other`"
        );
        let hand_written = ArgumentSchema::compile(&typed, false).err().unwrap();
        assert!(hand_written.contains("not a `#[tool]`"), "{hand_written}");
        let bounded = json!({"properties": {"name": {"type": "string", "maxLength": 3}}});
        let needs = ArgumentSchema::compile(&bounded, true).err().unwrap();
        assert!(
            needs.contains("`maxLength` at `/properties/name`"),
            "{needs}"
        );
        let no_parameters = json!({"type": "object", "additionalProperties": false});
        assert!(ArgumentSchema::compile(&no_parameters, false).is_ok());
    }

    fn args(pairs: &[(&str, &str)]) -> TextArgs {
        TextArgs::new(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn text_arguments_parse_with_from_str_and_name_the_field() {
        let mut parser = args(&[("n", "7"), ("flag", "true"), ("bad", "x")]);
        assert_eq!(parser.required::<u8>("n"), Ok(7));
        assert_eq!(parser.optional::<bool>("flag"), Ok(Some(true)));
        assert_eq!(parser.optional::<bool>("absent"), Ok(None));
        let missing = parser.required::<String>("absent").unwrap_err();
        assert_eq!(missing.reason, "missing required argument");
        let bad = parser.required::<u32>("bad").unwrap_err();
        assert_eq!(bad.field, "bad");
        assert!(bad.reason.ends_with("(got \"x\")"), "{}", bad.reason);
        assert_eq!(
            bad.into_rejection().to_string(),
            "Invalid params: argument `bad`: invalid digit found in string (got \"x\")"
        );
    }
}
