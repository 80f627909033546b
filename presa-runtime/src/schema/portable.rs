//! Schemas that every host and model provider reads the same way.
//!
//! JSON Schema can say one thing in several spellings, and not all of them
//! survive the trip to a model: hosts map tool schemas onto narrower
//! dialects (the OpenAPI subset of Gemini's function declarations, say),
//! which take one `type` per schema, know no boolean schemas, and read
//! `format` as a closed list. The MCP Inspector's `--strict` check flags
//! exactly those spellings. schemars writes several of them, so every
//! schema presa generates goes through [`Portable`], which rewrites each
//! into an equivalent that says the same thing, by these rules:
//!
//! 1. a boolean schema where a schema object belongs becomes its object
//!    form: `true` is `{}`, `false` is `{"not": {}}`. The keywords whose
//!    value is commonly a boolean (`additionalProperties`,
//!    `unevaluatedProperties`, `additionalItems`, `unevaluatedItems`)
//!    keep it;
//! 2. schemars' numeric formats (`uint32`, `int64`, `double`, …), which
//!    are no JSON Schema formats, go ([`NUMERIC_FORMATS`]). What a 32-bit
//!    one meant stays as `minimum` and `maximum` (schemars writes those
//!    itself for 8 and 16 bits); 64- and 128-bit ones keep only what
//!    schemars wrote (`minimum: 0` when unsigned), since their full range
//!    is wider than the integers a JSON number holds exactly;
//! 3. a `type` array becomes `anyOf` branches of one `type` each: the
//!    nullable `{"type": ["integer", "null"], "minimum": 0}` is
//!    `{"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}`.
//!    Each branch takes the keywords that apply to its type, the
//!    annotations (`title`, `description`, …) stay outside.
//!
//! A tool's optional parameter goes one step further ([`without_null`]):
//! its property is simply not `required`, and its schema drops the `null`
//! branch. A client that still sends `null` for it gets `None`, as before:
//! the argument check reads a `null` the schema refuses, for a property
//! that is not required, as the argument left out.
//!
//! What the user chose is kept: a bound set with `#[schemars(range(..))]`
//! is never replaced, and a format schemars does not write itself (an
//! `email`, a format of the user's own) stays.

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value};

/// The formats schemars writes for Rust's numbers, none of which JSON
/// Schema defines, each with the range it stands for when that range is
/// one a JSON number holds exactly.
pub const NUMERIC_FORMATS: [(&str, Option<(i64, i64)>); 14] = [
    ("int8", Some((i8::MIN as i64, i8::MAX as i64))),
    ("int16", Some((i16::MIN as i64, i16::MAX as i64))),
    ("int32", Some((i32::MIN as i64, i32::MAX as i64))),
    ("int64", None),
    ("int128", None),
    ("int", None),
    ("uint8", Some((0, u8::MAX as i64))),
    ("uint16", Some((0, u16::MAX as i64))),
    ("uint32", Some((0, u32::MAX as i64))),
    ("uint64", None),
    ("uint128", None),
    ("uint", None),
    ("float", None),
    ("double", None),
];

/// The keywords whose value is commonly a boolean, which rule 1 leaves be.
const BOOLEAN_VALUED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// Keywords that describe rather than constrain; rule 3 leaves them on the
/// schema around the branches.
const ANNOTATIONS: [&str; 11] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$defs",
    "definitions",
];

/// The keywords that constrain values of one type only, by that type.
const TYPE_KEYWORDS: [(&str, &[&str]); 4] = [
    (
        "number",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        "string",
        &[
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "contentEncoding",
            "contentMediaType",
            "contentSchema",
        ],
    ),
    (
        "array",
        &[
            "items",
            "prefixItems",
            "contains",
            "minItems",
            "maxItems",
            "uniqueItems",
            "minContains",
            "maxContains",
            "additionalItems",
            "unevaluatedItems",
        ],
    ),
    (
        "object",
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
    ),
];

/// The rewriting of the [module docs](self), as a schemars transform: set
/// on the generator's settings, and applied by hand to schemas the
/// generator hands out without its transforms.
#[derive(Debug, Clone, Copy, Default)]
pub struct Portable;

impl Transform for Portable {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(accepts) = schema.as_bool() {
            *schema = object_form(accepts);
            return;
        }
        let kept = take_boolean_valued(schema);
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        object.extend(kept);
        drop_numeric_format(object);
        split_type_union(object);
    }
}

/// Rule 1: the object form of a boolean schema.
fn object_form(accepts: bool) -> Schema {
    if accepts {
        Schema::default()
    } else {
        schemars::json_schema!({"not": {}})
    }
}

/// Takes out the boolean values of [`BOOLEAN_VALUED`] keywords, so that
/// rule 1 passes them by.
fn take_boolean_valued(schema: &mut Schema) -> Map<String, Value> {
    let Some(object) = schema.as_object_mut() else {
        return Map::new();
    };
    let mut kept = Map::new();
    for keyword in BOOLEAN_VALUED {
        if object.get(keyword).is_some_and(Value::is_boolean)
            && let Some(value) = object.remove(keyword)
        {
            kept.insert(keyword.to_owned(), value);
        }
    }
    kept
}

/// Rule 2.
fn drop_numeric_format(object: &mut Map<String, Value>) {
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    let Some((_, range)) = NUMERIC_FORMATS.iter().find(|(name, _)| *name == format) else {
        return;
    };
    if let Some((minimum, maximum)) = range {
        object.entry("minimum").or_insert((*minimum).into());
        object.entry("maximum").or_insert((*maximum).into());
    }
    object.remove("format");
}

/// Rule 3.
fn split_type_union(object: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = object.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    if let [only] = types.as_slice() {
        object.insert("type".into(), only.as_str().into());
        return;
    }
    object.remove("type");
    let keys: Vec<String> = object
        .keys()
        .filter(|key| !ANNOTATIONS.contains(&key.as_str()))
        .cloned()
        .collect();
    let constraints: Map<String, Value> = keys
        .into_iter()
        .filter_map(|key| object.remove_entry(&key))
        .collect();
    let branches = types
        .iter()
        .map(|t| Value::Object(branch(t, &constraints)))
        .collect();
    object.insert("anyOf".into(), Value::Array(branches));
}

/// The branch of type `ty`: the type, and the constraints that apply to
/// it.
fn branch(ty: &str, constraints: &Map<String, Value>) -> Map<String, Value> {
    let mut branch = Map::new();
    branch.insert("type".into(), ty.into());
    let family = if ty == "integer" { "number" } else { ty };
    for (key, value) in constraints {
        let owner = TYPE_KEYWORDS
            .iter()
            .find(|(_, keywords)| keywords.contains(&key.as_str()));
        if owner.is_none_or(|(owner, _)| *owner == family) {
            branch.insert(key.clone(), value.clone());
        }
    }
    branch
}

/// The schema of an optional parameter: `schema` without the `null`
/// branch rule 3 gave it, and the one branch left merged into the
/// annotations around it. A schema that allows `null` in any other way
/// is left as it is.
pub fn without_null(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    let Some(Value::Array(branches)) = object.get_mut("anyOf") else {
        return Value::Object(object);
    };
    let null = Value::Object(Map::from_iter([("type".to_owned(), "null".into())]));
    let before = branches.len();
    branches.retain(|b| *b != null);
    if branches.len() == before {
        return Value::Object(object);
    }
    if let [Value::Object(_)] = branches.as_slice()
        && let Some(Value::Array(mut branches)) = object.remove("anyOf")
        && let Some(Value::Object(only)) = branches.pop()
    {
        for (key, value) in only {
            object.entry(key).or_insert(value);
        }
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn portable(value: Value) -> Value {
        let mut schema = Schema::try_from(value).expect("a schema");
        Portable.transform(&mut schema);
        schema.to_value()
    }

    #[test]
    fn a_nullable_type_becomes_branches_with_their_own_keywords() {
        let nullable = json!({
            "description": "how many",
            "type": ["integer", "null"],
            "format": "uint32",
            "minimum": 0,
            "enum": [1, 2, null],
        });
        assert_eq!(
            portable(nullable),
            json!({
                "description": "how many",
                "anyOf": [
                    {"type": "integer", "minimum": 0, "maximum": 4294967295_u32, "enum": [1, 2, null]},
                    {"type": "null", "enum": [1, 2, null]},
                ],
            })
        );
        assert_eq!(
            portable(json!({"type": ["string"]})),
            json!({"type": "string"})
        );
    }

    #[test]
    fn numeric_formats_go_and_their_ranges_stay_unless_the_user_set_one() {
        assert_eq!(
            portable(json!({"type": "integer", "format": "int32"})),
            json!({"type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647})
        );
        assert_eq!(
            portable(json!({"type": "integer", "format": "uint32", "minimum": 1, "maximum": 9})),
            json!({"type": "integer", "minimum": 1, "maximum": 9})
        );
        assert_eq!(
            portable(json!({"type": "integer", "format": "uint64", "minimum": 0})),
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            portable(json!({"type": "number", "format": "double"})),
            json!({"type": "number"})
        );
        let email = json!({"type": "string", "format": "email"});
        assert_eq!(portable(email.clone()), email);
    }

    #[test]
    fn boolean_schemas_take_their_object_form_where_a_schema_belongs() {
        let schema = json!({
            "type": "object",
            "properties": {"any": true, "never": false},
            "additionalProperties": false,
            "items": true,
        });
        assert_eq!(
            portable(schema),
            json!({
                "type": "object",
                "properties": {"any": {}, "never": {"not": {}}},
                "additionalProperties": false,
                "items": {},
            })
        );
        assert_eq!(portable(json!(true)), json!({}));
    }

    #[test]
    fn nested_schemas_and_definitions_are_rewritten_too() {
        let schema = json!({
            "type": "array",
            "items": {"type": ["number", "null"], "format": "float"},
            "$defs": {"Inner": {"type": "object", "properties": {"n": {"type": "integer", "format": "int64"}}}},
        });
        assert_eq!(
            portable(schema),
            json!({
                "type": "array",
                "items": {"anyOf": [{"type": "number"}, {"type": "null"}]},
                "$defs": {"Inner": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            })
        );
    }

    #[test]
    fn an_optional_parameter_loses_its_null_branch() {
        let option =
            portable(json!({"description": "d", "type": ["integer", "null"], "minimum": 0}));
        assert_eq!(
            without_null(option),
            json!({"description": "d", "type": "integer", "minimum": 0})
        );
        let reference = json!({"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}]});
        assert_eq!(without_null(reference), json!({"$ref": "#/$defs/Color"}));
        let union = json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]});
        assert_eq!(
            without_null(union),
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        let plain = json!({"type": "string"});
        assert_eq!(without_null(plain.clone()), plain);
    }
}
