//! The schemas presa advertises read the same in every host: tool inputs,
//! tool outputs and elicitation forms, for parameters and outputs of the
//! usual shapes, carry none of the spellings that hosts mapping tool
//! schemas onto a single-`type` dialect (Gemini's, OpenAPI's) lose, and
//! that the MCP Inspector's `--strict` check reports: no `type` array, no
//! boolean schema where a schema belongs, no schema that constrains
//! nothing, and no `format` JSON Schema does not define. They still say
//! what the Rust types say: integer ranges, optional parameters, `null`.

use crate::common;

use std::collections::{BTreeMap, HashMap};

use common::{RawPeer, Wire, connect, meta};
use presa::prelude::*;
use presa::server::Elicit as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A unit enum.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

/// An enum with data.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Square(u32),
}

/// A nested struct.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Inner {
    label: String,
    weight: Option<f32>,
}

/// Every integer width, and the other usual shapes.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Shapes {
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    usize: usize,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    isize: isize,
    f32: f32,
    f64: f64,
    flag: bool,
    maybe: Option<u32>,
    maybe_text: Option<String>,
    maybe_inner: Option<Inner>,
    maybe_level: Option<Level>,
    level: Level,
    shape: Shape,
    inner: Inner,
    list: Vec<Inner>,
    numbers: Vec<Option<u16>>,
    by_name: BTreeMap<String, u64>,
    by_key: HashMap<String, Inner>,
    #[schemars(range(min = 1, max = 10))]
    bounded: u32,
}

/// Takes and returns the usual shapes.
#[tool]
async fn shapes(
    shapes: Shapes,
    count: u32,
    offset: Option<i64>,
    level: Option<Level>,
    inner: Option<Inner>,
    tags: Option<Vec<String>>,
) -> Json<Shapes> {
    let _ = (count, level, inner, tags);
    Json(Shapes {
        maybe: offset.map(|o| o as u32),
        ..shapes
    })
}

/// Returns a list.
#[tool]
async fn list(levels: Vec<Level>) -> Json<Vec<Level>> {
    Json(levels)
}

/// Returns a number or nothing.
#[tool]
async fn maybe(n: Option<u8>) -> Json<Option<u8>> {
    Json(n)
}

/// Says which optional parameter came.
#[tool]
async fn which(n: Option<u32>, level: Option<Level>) -> String {
    format!("{n:?} {level:?}")
}

/// A form of every field kind.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
#[allow(dead_code)]
struct Form {
    name: String,
    age: u8,
    count: u32,
    big: u64,
    score: Option<f64>,
    level: Level,
    maybe_level: Option<Level>,
    levels: Vec<Level>,
    ok: bool,
}

/// The formats JSON Schema 2020-12 defines.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is a schema, a list of them, or a map of them.
const ONE: [&str; 12] = [
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
const MANY: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];
/// Keywords whose value may be a boolean.
const BOOLEAN_VALUED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords that constrain a value: a schema with none accepts anything.
const CONSTRAINING: [&str; 36] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "$ref",
    "if",
];

/// Every unportable spelling in `schema`, with where it is.
fn findings(schema: &Value, at: &str, keyword: Option<&str>, found: &mut Vec<String>) {
    let Value::Object(node) = schema else {
        let allowed = schema.is_boolean() && keyword.is_some_and(|k| BOOLEAN_VALUED.contains(&k));
        if !allowed {
            found.push(format!("{at}: `{schema}` where a schema object belongs"));
        }
        return;
    };
    if node.get("type").is_some_and(Value::is_array) {
        found.push(format!("{at}: a `type` array {}", node["type"]));
    }
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&format)
    {
        found.push(format!(
            "{at}: the format `{format}`, which JSON Schema does not define"
        ));
    }
    if keyword != Some("not") && !node.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        found.push(format!("{at}: a schema that constrains nothing"));
    }
    for key in ONE {
        if let Some(child) = node.get(key) {
            findings(child, &format!("{at}.{key}"), Some(key), found);
        }
    }
    for key in MANY {
        for (i, child) in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            findings(child, &format!("{at}.{key}[{i}]"), Some(key), found);
        }
    }
    for key in MAP {
        for (name, child) in node
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            findings(child, &format!("{at}.{key}.{name}"), Some(key), found);
        }
    }
}

fn assert_portable(schema: &Value, name: &str) {
    let mut found = Vec::new();
    findings(schema, name, None, &mut found);
    assert!(
        found.is_empty(),
        "{name} is not portable:\n{}\n{schema:#}",
        found.join("\n")
    );
}

fn server() -> Server {
    Server::builder("shapes", "1")
        .tool(ShapesTool)
        .tool(ListTool)
        .tool(MaybeTool)
        .tool(WhichTool)
        .build()
}

/// The tools as a peer lists them, modern or legacy.
async fn listed(legacy: bool) -> Vec<Value> {
    let server = server();
    let listed = if legacy {
        let channel = connect(&server, Caller::anonymous(), Wire::InProcess);
        let (mut peer, _) = RawPeer::legacy(channel, "2025-11-25", json!({})).await;
        peer.request(1, "tools/list", json!({})).await
    } else {
        let mut peer = RawPeer::over(&server, Wire::InProcess);
        peer.request(1, "tools/list", json!({"_meta": meta(json!({}))}))
            .await
    };
    listed["result"]["tools"].as_array().unwrap().clone()
}

#[tokio::test]
async fn tool_schemas_of_the_usual_shapes_are_portable_in_both_eras() {
    for legacy in [false, true] {
        let tools = listed(legacy).await;
        assert_eq!(tools.len(), 4);
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            assert_portable(&tool["inputSchema"], &format!("{name}.inputSchema"));
            if let Some(output) = tool.get("outputSchema") {
                assert_portable(output, &format!("{name}.outputSchema"));
            }
        }
    }
}

#[test]
fn form_schemas_are_portable() {
    assert_portable(&Form::requested_schema(), "Form");
}

#[tokio::test]
async fn the_schemas_still_say_what_the_types_say() {
    let tools = listed(false).await;
    let input = &tools.iter().find(|t| t["name"] == "shapes").unwrap()["inputSchema"];
    let properties = &input["properties"];
    assert_eq!(
        input["required"],
        json!(["shapes", "count"]),
        "optional parameters are not required"
    );
    assert_eq!(
        properties["count"],
        json!({"type": "integer", "minimum": 0, "maximum": 4294967295_u32})
    );
    assert_eq!(
        properties["offset"],
        json!({"type": "integer"}),
        "no null, no format"
    );
    assert_eq!(properties["level"], json!({"$ref": "#/$defs/Level"}));
    assert_eq!(
        properties["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    let fields = &input["$defs"]["Shapes"]["properties"];
    let range = |field: &str| {
        (
            fields[field]["minimum"].clone(),
            fields[field]["maximum"].clone(),
        )
    };
    assert_eq!(range("u8"), (json!(0), json!(255)));
    assert_eq!(range("i16"), (json!(-32768), json!(32767)));
    assert_eq!(range("i32"), (json!(-2147483648_i64), json!(2147483647)));
    assert_eq!(
        range("u64"),
        (json!(0), Value::Null),
        "wider than a JSON number holds exactly"
    );
    assert_eq!(
        range("bounded"),
        (json!(1), json!(10)),
        "the user's bounds are kept"
    );
    assert_eq!(
        fields["maybe"],
        json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 4294967295_u32}, {"type": "null"}]}),
        "a field that may be null still may"
    );
}

#[tokio::test]
async fn null_for_an_optional_parameter_is_none_and_a_nullable_field_takes_null() {
    let server = server();
    let mut peer = RawPeer::over(&server, Wire::InProcess);
    for (arguments, text) in [
        (json!({"n": null, "level": null}), "None None"),
        (json!({}), "None None"),
        (json!({"n": 3, "level": "high"}), "Some(3) Some(High)"),
    ] {
        let params = json!({"name": "which", "arguments": arguments});
        let called = peer.call(1, json!({}), params).await;
        assert_eq!(called["result"]["content"][0]["text"], text, "{called}");
    }
    let refused = peer
        .call(
            2,
            json!({}),
            json!({"name": "which", "arguments": {"n": "three"}}),
        )
        .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let fields = json!({
        "u8": 1, "u16": 1, "u32": 1, "u64": 1, "u128": 1, "usize": 1, "i8": -1, "i16": -1,
        "i32": -1, "i64": -1, "i128": -1, "isize": -1, "f32": 0.5, "f64": 0.5, "flag": true,
        "maybe": null, "maybe_text": null, "maybe_inner": null, "maybe_level": null,
        "level": "low", "shape": {"Square": 2}, "inner": {"label": "a", "weight": null},
        "list": [], "numbers": [1, null], "by_name": {"a": 1}, "by_key": {}, "bounded": 5,
    });
    let params =
        json!({"name": "shapes", "arguments": {"shapes": fields, "count": 1, "offset": null}});
    let called = peer.call(3, json!({}), params).await;
    let structured = &called["result"]["structuredContent"];
    assert_eq!(structured["maybe"], Value::Null, "{called}");
    assert_eq!(structured["numbers"], json!([1, null]));
}
