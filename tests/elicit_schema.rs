//! The `requestedSchema` generated for elicitation forms is the flat,
//! primitive-only shape the elicitation spec allows.

use presa::prelude::*;
use presa::server::Elicit as _;
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit, PartialEq)]
enum Plain {
    Red,
    Green,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit, PartialEq)]
enum Titled {
    /// Small size
    S,
    /// Large size
    L,
}

/// A form with every kind of field.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Everything {
    /// Your name.
    name: String,
    #[schemars(email)]
    email: String,
    #[schemars(extend("format" = "uuid"))]
    id: String,
    age: u8,
    score: Option<f64>,
    subscribe: bool,
    color: Plain,
    size: Option<Titled>,
    extras: Vec<Titled>,
}

#[test]
fn every_field_kind_becomes_a_flat_primitive() {
    let schema = Everything::requested_schema();
    let props = &schema["properties"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["description"], "A form with every kind of field.");
    assert_eq!(
        props["name"],
        json!({"type": "string", "description": "Your name."})
    );
    assert_eq!(props["email"], json!({"type": "string", "format": "email"}));
    assert_eq!(
        props["id"],
        json!({"type": "string"}),
        "only the four form formats pass"
    );
    assert_eq!(props["age"]["type"], "integer");
    assert!(
        props["age"].get("format").is_none(),
        "formats are for strings only"
    );
    assert_eq!(
        props["score"]["type"], "number",
        "nullability folds into `required`"
    );
    assert_eq!(props["subscribe"], json!({"type": "boolean"}));
    assert_eq!(
        props["color"],
        json!({"type": "string", "enum": ["Red", "Green"]})
    );
    assert_eq!(
        props["size"]["oneOf"],
        json!([{"const": "S", "title": "Small size"}, {"const": "L", "title": "Large size"}])
    );
    assert_eq!(props["size"]["type"], "string");
    assert_eq!(props["extras"]["type"], "array");
    assert_eq!(
        props["extras"]["items"],
        json!({"anyOf": [{"const": "S", "title": "Small size"}, {"const": "L", "title": "Large size"}]})
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        required,
        ["name", "email", "id", "age", "subscribe", "color", "extras"]
    );
    assert!(schema.get("$defs").is_none(), "references are inlined");
    for (name, prop) in props.as_object().unwrap() {
        assert!(prop.get("$ref").is_none(), "{name} still has a $ref");
        assert!(
            !prop.to_string().contains("null"),
            "{name} is nullable: {prop}"
        );
    }
}

#[test]
fn answers_deserialize_into_the_form_type() {
    let answer: Everything = serde_json::from_value(json!({
        "name": "Ada", "email": "ada@example.com", "id": "x", "age": 36, "subscribe": true,
        "color": "Green", "size": "L", "extras": ["S"]
    }))
    .unwrap();
    assert_eq!(answer.name, "Ada");
    assert_eq!(answer.email, "ada@example.com");
    assert_eq!(answer.age, 36);
    assert_eq!(answer.id, "x");
    assert!(answer.subscribe);
    assert_eq!(answer.color, Plain::Green);
    assert_eq!(answer.size, Some(Titled::L));
    assert_eq!(answer.extras, [Titled::S]);
    assert_eq!(answer.score, None);
}
