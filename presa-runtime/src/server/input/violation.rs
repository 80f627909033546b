//! Saying what is wrong with a value in the words of its schema.
//!
//! `jsonschema` reports a violation in terms of the schema's keywords ("is
//! not valid under any of the schemas listed in the 'anyOf' keyword"). The
//! model or the user reading a tool error wants the value's terms: which
//! field, and what it should have been (`expected one of "dev",
//! "staging"`). [`Violation::of`] turns the first error of a validation
//! into that. Without the `json-schema` feature the small check of form
//! answers (`form_check`) says its violations in the same words, with the
//! helpers at the end of this file.

#[cfg(feature = "json-schema")]
use jsonschema::ValidationError;
#[cfg(feature = "json-schema")]
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

/// One way a value breaks its schema, said plainly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Where: the path of the offending value (`order/quantity`), or of
    /// the missing field; empty for the value as a whole.
    pub field: String,
    /// What is wrong, as "expected …" or "must …".
    pub reason: String,
}

#[cfg(feature = "json-schema")]
impl Violation {
    /// The most telling violation among `errors`: of the errors about the
    /// first offending value, one that lists the allowed values beats a
    /// type mismatch (`expected "dev" or "staging"` says more than
    /// `expected a string`). `None` when there are no errors.
    pub fn first<'a>(
        errors: impl Iterator<Item = ValidationError<'a>>,
        missing: &str,
    ) -> Option<Violation> {
        /// How many errors about the same value are weighed; a bound, since
        /// a hostile value can produce many.
        const WEIGHED: usize = 8;
        let mut errors = errors.peekable();
        let path = errors.peek()?.instance_path().to_string();
        let best = errors
            .take(WEIGHED)
            .take_while(|error| error.instance_path().to_string() == path)
            .min_by_key(|error| telling_rank(error.kind()))?;
        Some(Violation::of(&best, missing))
    }

    /// The violation `error` reports. `missing` is what a missing required
    /// field is called ("missing required argument").
    pub fn of(error: &ValidationError<'_>, missing: &str) -> Violation {
        let path = error
            .instance_path()
            .to_string()
            .trim_start_matches('/')
            .to_owned();
        match error.kind() {
            ValidationErrorKind::Required { property } => Violation {
                field: property.as_str().unwrap_or_default().to_owned(),
                reason: missing.to_owned(),
            },
            _ => Violation {
                field: path,
                reason: reason(error),
            },
        }
    }
}

#[cfg(feature = "json-schema")]
/// Lower is more telling: allowed values, then other constraints, then a
/// bare type.
fn telling_rank(kind: &ValidationErrorKind) -> u8 {
    match kind {
        ValidationErrorKind::Enum { .. }
        | ValidationErrorKind::Constant { .. }
        | ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. } => 0,
        ValidationErrorKind::Type { .. } => 2,
        _ => 1,
    }
}

#[cfg(feature = "json-schema")]
/// What the schema asks of the value `error` is about.
fn reason(error: &ValidationError<'_>) -> String {
    use ValidationErrorKind as K;
    let value = error.instance().as_ref();
    match error.kind() {
        K::Type { kind } => format!("expected {}, got {}", types(kind), shown(value)),
        K::Enum { options } => format!("expected {}, got {}", one_of(options), shown(value)),
        K::Constant { expected_value } => {
            format!("expected {}, got {}", shown(expected_value), shown(value))
        }
        K::AnyOf { context } | K::OneOfNotValid { context } => alternatives(context, value),
        K::OneOfMultipleValid { .. } => "matches more than one of the allowed forms".into(),
        K::Minimum { limit } => format!("must be at least {limit}, got {}", shown(value)),
        K::Maximum { limit } => format!("must be at most {limit}, got {}", shown(value)),
        K::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit}, got {}", shown(value))
        }
        K::ExclusiveMaximum { limit } => {
            format!("must be less than {limit}, got {}", shown(value))
        }
        K::MultipleOf { multiple_of } => format!("must be a multiple of {multiple_of}"),
        K::MinLength { limit } => format!("must be at least {limit} {}", characters(*limit)),
        K::MaxLength { limit } => format!("must be at most {limit} {}", characters(*limit)),
        K::MinItems { limit } => format!("must have at least {limit} {}", items(*limit)),
        K::MaxItems { limit } => format!("must have at most {limit} {}", items(*limit)),
        K::UniqueItems => "must not repeat an item".into(),
        K::Pattern { pattern } => format!("must match the pattern `{pattern}`"),
        K::Format { format } => format!("must be a valid {format}, got {}", shown(value)),
        K::AdditionalProperties { unexpected } | K::UnevaluatedProperties { unexpected } => {
            format!("unexpected {}", names(unexpected))
        }
        // `additionalProperties: false` with no `properties` reports the
        // value it refused, not its name.
        K::FalseSchema
            if error
                .schema_path()
                .to_string()
                .ends_with("/additionalProperties") =>
        {
            "unexpected field".into()
        }
        K::FalseSchema => "is not allowed here".into(),
        // Keywords presa's schemas rarely use keep `jsonschema`'s words.
        _ => error.to_string(),
    }
}

#[cfg(feature = "json-schema")]
/// `expected one of …` for an `anyOf`/`oneOf` no branch of which matched.
///
/// When every branch asks for one thing (a constant, an enum, a type, as
/// titled enums and `Option<Enum>` generate), the alternatives are listed
/// together. Otherwise the branch that came closest (the fewest errors)
/// speaks for all.
fn alternatives(context: &[Vec<ValidationError<'static>>], value: &Value) -> String {
    let mut expected = Vec::new();
    for branch in context {
        match branch.as_slice() {
            [only] => match only.kind() {
                ValidationErrorKind::Constant { expected_value } => {
                    expected.push(shown(expected_value))
                }
                ValidationErrorKind::Enum { options } => {
                    expected.extend(options.as_array().into_iter().flatten().map(shown))
                }
                ValidationErrorKind::Type { kind } => expected.push(types(kind)),
                _ => return closest(context, value),
            },
            _ => return closest(context, value),
        }
    }
    if expected.is_empty() {
        return "does not match any of the allowed forms".into();
    }
    format!("expected {}, got {}", listed(&expected), shown(value))
}

#[cfg(feature = "json-schema")]
/// The reason of the branch with the fewest errors.
fn closest(context: &[Vec<ValidationError<'static>>], value: &Value) -> String {
    let best = context
        .iter()
        .filter_map(|branch| branch.first().map(|first| (branch.len(), first)))
        .min_by_key(|(errors, _)| *errors);
    match best {
        Some((_, error)) => {
            let inner = Violation::of(error, "missing");
            if inner.field.is_empty() {
                inner.reason
            } else {
                format!("`{}`: {}", inner.field, inner.reason)
            }
        }
        None => format!(
            "does not match any of the allowed forms, got {}",
            shown(value)
        ),
    }
}

#[cfg(feature = "json-schema")]
/// `"dev", "staging"` for an enum's options.
fn one_of(options: &Value) -> String {
    let shown: Vec<String> = options
        .as_array()
        .into_iter()
        .flatten()
        .map(shown)
        .collect();
    listed(&shown)
}

/// `a`, `a or b`, `one of a, b or c`.
pub(crate) fn listed(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [only] => only.clone(),
        [first, second] => format!("{first} or {second}"),
        [rest @ .., last] => format!("one of {} or {last}", rest.join(", ")),
    }
}

#[cfg(feature = "json-schema")]
/// `a string`, `an integer or null`.
fn types(kind: &TypeKind) -> String {
    let mut names: Vec<String> = match kind {
        TypeKind::Single(t) => vec![article(&t.to_string())],
        TypeKind::Multiple(set) => set.iter().map(|t| article(&t.to_string())).collect(),
    };
    // `null` reads best last: "a string or null".
    names.sort_by_key(|name| name == "null");
    listed(&names)
}

pub(crate) fn article(type_name: &str) -> String {
    match type_name {
        "null" => "null".into(),
        "array" | "integer" | "object" => format!("an {type_name}"),
        other => format!("a {other}"),
    }
}

#[cfg(feature = "json-schema")]
/// `field `a``, `fields `a`, `b``.
fn names(unexpected: &[String]) -> String {
    let quoted: Vec<String> = unexpected.iter().map(|n| format!("`{n}`")).collect();
    let noun = if quoted.len() == 1 { "field" } else { "fields" };
    format!("{noun} {}", quoted.join(", "))
}

pub(crate) fn characters(limit: u64) -> &'static str {
    if limit == 1 {
        "character"
    } else {
        "characters"
    }
}

pub(crate) fn items(limit: u64) -> &'static str {
    if limit == 1 { "item" } else { "items" }
}

/// A value as JSON, cut short when long.
pub(crate) fn shown(value: &Value) -> String {
    const LIMIT: usize = 40;
    let text = value.to_string();
    if text.chars().count() <= LIMIT {
        return text;
    }
    let mut short: String = text.chars().take(LIMIT).collect();
    short.push('…');
    short
}

#[cfg(all(test, feature = "json-schema"))]
mod tests {
    use super::*;
    use serde_json::json;

    /// The violation of `value` against `schema`.
    fn check(schema: Value, value: Value) -> Violation {
        let validator = jsonschema::validator_for(&schema).unwrap();
        Violation::first(validator.iter_errors(&value), "missing required argument")
            .expect("a violation")
    }

    fn args(properties: Value) -> Value {
        json!({"type": "object", "properties": properties, "required": ["x"]})
    }

    #[test]
    fn enums_list_their_values_even_when_optional() {
        let env = json!({"type": "string", "enum": ["dev", "staging"]});
        let v = check(args(json!({"x": env})), json!({"x": "prod"}));
        assert_eq!(v.field, "x");
        assert_eq!(v.reason, r#"expected "dev" or "staging", got "prod""#);
        // `Option<Env>`, as schemars writes it.
        let schema = json!({
            "type": "object",
            "properties": {"x": {"anyOf": [{"$ref": "#/$defs/Env"}, {"type": "null"}]}},
            "$defs": {"Env": env},
        });
        let v = check(schema, json!({"x": "prod"}));
        assert_eq!(
            v.reason,
            r#"expected one of "dev", "staging" or null, got "prod""#
        );
        // Documented variants become `oneOf` of constants.
        let titled = json!({"oneOf": [{"const": "s", "description": "Small"}, {"const": "l"}]});
        let v = check(args(json!({"x": titled})), json!({"x": "m"}));
        assert_eq!(v.reason, r#"expected "s" or "l", got "m""#);
    }

    #[test]
    fn types_bounds_and_formats_read_plainly() {
        let cases = [
            (
                json!({"type": "integer"}),
                json!("two"),
                r#"expected an integer, got "two""#,
            ),
            (
                json!({"type": ["string", "null"]}),
                json!(1),
                "expected a string or null, got 1",
            ),
            (json!({"minimum": 1}), json!(0), "must be at least 1, got 0"),
            (
                json!({"maximum": 10}),
                json!(11),
                "must be at most 10, got 11",
            ),
            (
                json!({"maxLength": 5}),
                json!("TOOLONG"),
                "must be at most 5 characters",
            ),
            (
                json!({"minItems": 1}),
                json!([]),
                "must have at least 1 item",
            ),
            (
                json!({"pattern": "^[a-z]+$"}),
                json!("A"),
                "must match the pattern `^[a-z]+$`",
            ),
        ];
        for (property, value, reason) in cases {
            let v = check(args(json!({"x": property})), json!({"x": value}));
            assert_eq!((v.field.as_str(), v.reason.as_str()), ("x", reason));
        }
    }

    #[test]
    fn missing_and_unexpected_fields_are_named() {
        let v = check(args(json!({"x": {}})), json!({}));
        assert_eq!(
            (v.field.as_str(), v.reason.as_str()),
            ("x", "missing required argument")
        );
        let closed =
            json!({"type": "object", "properties": {"x": {}}, "additionalProperties": false});
        let v = check(closed, json!({"y": 1}));
        assert_eq!(
            (v.field.as_str(), v.reason.as_str()),
            ("", "unexpected field `y`")
        );
        // A tool without parameters accepts only `{}`.
        let none = json!({"type": "object", "additionalProperties": false});
        let v = check(none, json!({"y": 1}));
        assert_eq!(v.reason, "unexpected field");
    }

    #[test]
    fn long_values_are_cut_short() {
        let v = check(json!({"type": "integer"}), json!("x".repeat(100)));
        assert!(v.reason.ends_with("…"), "{}", v.reason);
        assert!(v.reason.len() < 80, "{}", v.reason);
    }
}
