//! Tool schemas in a build without the `json-schema` feature.
//!
//! A full JSON Schema validator costs about 46 crates of a clean build,
//! and most servers do not need one. A `#[tool]` reads each argument into
//! its Rust type, and serde refuses a value of the wrong shape, a missing
//! field or an unknown enum value; its structured content is serialized
//! from a typed value, so it has the shape its schema describes.
//!
//! What the types cannot enforce is a constraint written into the schema
//! only: a `pattern`, a `maxLength`, a `minimum` tighter than the type's
//! own range. A tool whose schema has one would go unchecked, so it is
//! refused at registration instead, as is a hand-written tool with
//! anything to check. The spec has servers validate all tool inputs; a
//! server that cannot must not look as if it did.

use serde_json::{Map, Value};

/// Keywords whose constraint no Rust type enforces. `format` is not one:
/// under JSON Schema 2020-12 it is an annotation, which the full validator
/// does not assert either.
const UNENFORCED: [&str; 18] = [
    "pattern",
    "patternProperties",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "not",
    "if",
];

/// Keywords whose value is one subschema.
const ONE_SCHEMA: [&str; 6] = [
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "then",
    "else",
];

/// Keywords whose value is an array of subschemas.
const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: [&str; 3] = ["properties", "$defs", "definitions"];

/// Why a `#[tool]`'s schema needs a full validator: the first constraint in
/// it that its Rust types do not enforce, with where it is. `None` when
/// the types check everything the schema says.
pub(crate) fn unenforced(schema: &Value) -> Option<String> {
    find(schema, "")
}

fn find(schema: &Value, at: &str) -> Option<String> {
    let Value::Object(object) = schema else {
        return None;
    };
    if let Some(keyword) = UNENFORCED.iter().find(|k| object.contains_key(**k)) {
        return Some(format!("`{keyword}` at `{}`", shown(at)));
    }
    for (keyword, tighter) in [("minimum", true), ("maximum", false)] {
        if let Some(limit) = object.get(keyword).and_then(Value::as_f64)
            && !within_type(object, limit, tighter)
        {
            return Some(format!("`{keyword}` at `{}`", shown(at)));
        }
    }
    for keyword in ONE_SCHEMA {
        if let Some(sub) = object.get(keyword)
            && let Some(found) = find(sub, &format!("{at}/{keyword}"))
        {
            return Some(found);
        }
    }
    for keyword in SCHEMA_LISTS {
        if let Some(Value::Array(subs)) = object.get(keyword) {
            for (i, sub) in subs.iter().enumerate() {
                if let Some(found) = find(sub, &format!("{at}/{keyword}/{i}")) {
                    return Some(found);
                }
            }
        }
    }
    for keyword in SCHEMA_MAPS {
        if let Some(Value::Object(subs)) = object.get(keyword) {
            for (name, sub) in subs {
                if let Some(found) = find(sub, &format!("{at}/{keyword}/{name}")) {
                    return Some(found);
                }
            }
        }
    }
    None
}

fn shown(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

/// The limits of Rust's integer types up to 64 bits.
const INTEGER_LIMITS: [f64; 13] = [
    0.0,
    i8::MIN as f64,
    i16::MIN as f64,
    i32::MIN as f64,
    i64::MIN as f64,
    u8::MAX as f64,
    u16::MAX as f64,
    u32::MAX as f64,
    u64::MAX as f64,
    i8::MAX as f64,
    i16::MAX as f64,
    i32::MAX as f64,
    i64::MAX as f64,
];

/// Whether a `minimum` (`lower`) or `maximum` of `limit` is implied by the
/// integer type the schema's `format` names (schemars writes `minimum: 0`
/// for every unsigned type, and both limits for the small ones): the
/// type's own range is then at least as tight.
fn within_type(object: &Map<String, Value>, limit: f64, lower: bool) -> bool {
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        // The portable schema drops integer formats, leaving the limits of
        // the type (`u8` reads `minimum: 0, maximum: 255`). A limit equal
        // to a Rust integer type's own is taken as that type's: a
        // `range(min = 0)` on a signed field would read the same, and is
        // the one constraint this misses.
        return object.get("type") == Some(&Value::from("integer"))
            && INTEGER_LIMITS.contains(&limit);
    };
    let (min, max): (f64, f64) = match format {
        "uint8" => (0.0, u8::MAX.into()),
        "uint16" => (0.0, u16::MAX.into()),
        "uint32" => (0.0, u32::MAX.into()),
        "uint64" | "uint" => (0.0, u64::MAX as f64),
        "uint128" => (0.0, u128::MAX as f64),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN as f64, i64::MAX as f64),
        "int128" => (i128::MIN as f64, i128::MAX as f64),
        _ => return false,
    };
    if lower { limit <= min } else { limit >= max }
}

/// The argument names a schema with nothing else to check allows: `Some`
/// with the listed names when it is closed (`additionalProperties:
/// false`), `None` when it allows any.
pub(crate) fn closed_properties(schema: &Value) -> Option<Vec<String>> {
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let names = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    Some(names)
}

/// Whether a hand-written `inputSchema` asks nothing beyond "an object",
/// perhaps an empty one: what a tool without parameters declares.
pub(crate) fn is_trivial(schema: &Value) -> bool {
    let Value::Object(object) = schema else {
        return false;
    };
    object
        .iter()
        .all(|(keyword, value)| match keyword.as_str() {
            "type" => value == "object",
            "properties" => value.as_object().is_some_and(Map::is_empty),
            "required" => value.as_array().is_some_and(Vec::is_empty),
            "additionalProperties" => value.is_boolean(),
            "$schema" | "title" | "description" => true,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn constraints_the_types_enforce_pass() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "count": {"type": "integer", "format": "uint32", "minimum": 0},
                "small": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "when": {"type": "string", "format": "date-time"},
                "size": {"enum": ["s", "l"]},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            },
            "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "number"}}}},
            "required": ["pattern"],
        });
        assert_eq!(unenforced(&schema), None);
    }

    #[test]
    fn constraints_only_a_validator_enforces_are_found_with_their_place() {
        for (schema, found) in [
            (
                json!({"properties": {"name": {"type": "string", "maxLength": 5}}}),
                "`maxLength` at `/properties/name`",
            ),
            (
                json!({"properties": {"n": {"type": "integer", "format": "uint32", "minimum": 1}}}),
                "`minimum` at `/properties/n`",
            ),
            (
                json!({"properties": {"n": {"type": "integer", "maximum": 10}}}),
                "`maximum` at `/properties/n`",
            ),
            (
                json!({"$defs": {"A": {"anyOf": [{"type": "string", "pattern": "^a"}]}}}),
                "`pattern` at `/$defs/A/anyOf/0`",
            ),
        ] {
            assert_eq!(unenforced(&schema).as_deref(), Some(found), "{schema}");
        }
    }

    #[test]
    fn only_a_bare_object_schema_is_trivial() {
        assert!(is_trivial(&json!({"type": "object"})));
        assert!(is_trivial(
            &json!({"type": "object", "properties": {}, "additionalProperties": false})
        ));
        assert!(!is_trivial(
            &json!({"type": "object", "properties": {"a": {}}})
        ));
        assert!(!is_trivial(&json!({"type": "object", "minProperties": 1})));
        assert_eq!(
            closed_properties(&json!({"type": "object", "additionalProperties": false})),
            Some(Vec::new())
        );
        assert_eq!(closed_properties(&json!({"type": "object"})), None);
    }
}
