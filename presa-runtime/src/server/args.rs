//! Tool arguments: the parameter bound and the per-field parser that
//! `#[tool]` expands to.
//!
//! Arguments are parsed field by field, not through one derived struct, so
//! that an error names the offending field and a parameter type that cannot
//! be parsed is reported at that parameter.

use serde_json::{Map, Value};

use super::violation::Violation;
use crate::schema::ToolParam;
use crate::wire::CallToolResult;

/// A field of the arguments that is missing or has the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// The field.
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

    /// Parses field `name` as `T`. A missing required field is an error; a
    /// missing optional one parses from `null` (so `Option<T>` gives `None`).
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
        serde_json::from_value(value).map_err(|e| ArgumentError {
            field: name.to_owned(),
            reason: e.to_string(),
        })
    }
}

/// A tool's `inputSchema`, compiled once, checking every call's arguments.
///
/// This catches what the Rust types cannot express (`minimum`, `pattern`,
/// `maxLength`, …); deserialization then catches the rest.
pub(crate) struct ArgumentSchema(jsonschema::Validator);

impl ArgumentSchema {
    /// Compiles `schema`; network `$ref`s are never fetched.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(ArgumentSchema)
            .map_err(|e| e.to_string())
    }

    /// Hands `arguments` back when they conform; otherwise the first
    /// violation, naming the field it concerns and saying what it should
    /// be in the value's terms (`expected one of "dev", "staging"`), not
    /// the schema's.
    pub fn check(
        &self,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ArgumentError> {
        // The validator reads a `Value`; wrapping and unwrapping moves, never copies.
        let arguments = Value::Object(arguments);
        let violation =
            Violation::first(self.0.iter_errors(&arguments), "missing required argument");
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
