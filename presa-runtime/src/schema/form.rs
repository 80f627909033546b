//! The `requestedSchema` of a form elicitation: the flat subset of JSON
//! Schema that form elicitation allows, made from what schemars writes.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::generate::root_schema;

/// The `requestedSchema` of a form elicitation for `T`: a flat object whose
/// properties are primitives or enums, with `$ref`s inlined, nullability
/// folded into `required`, and non-string formats dropped.
pub fn elicitation_schema<T: JsonSchema>() -> Value {
    let root = root_schema::<T>();
    let defs = root.get("$defs").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let mut props = Map::new();
    if let Some(Value::Object(p)) = root.get("properties") {
        for (name, schema) in p {
            props.insert(name.clone(), flatten_primitive(schema, &defs));
        }
    }
    out.insert("properties".into(), Value::Object(props));
    if let Some(required) = root.get("required") {
        out.insert("required".into(), required.clone());
    }
    if let Some(d) = root.get("description") {
        out.insert("description".into(), d.clone());
    }
    Value::Object(out)
}

/// The string formats form elicitation allows.
const FORM_STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

fn resolve<'a>(schema: &'a Value, defs: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
            .unwrap_or(schema),
        None => schema,
    }
}

fn flatten_primitive(schema: &Value, defs: &Value) -> Value {
    let mut schema = resolve(schema, defs).clone();
    // `Option<Enum>` arrives as `anyOf: [{$ref}, {type: null}]`.
    if let Some(Value::Array(alts)) = schema.get("anyOf") {
        let non_null: Vec<&Value> = alts
            .iter()
            .filter(|a| a.get("type") != Some(&Value::from("null")))
            .collect();
        if let [only] = non_null.as_slice() {
            let mut inner = resolve(only, defs).clone();
            copy_annotations(&schema, &mut inner);
            schema = inner;
        }
    }
    let Value::Object(m) = &mut schema else {
        return schema;
    };
    if let Some(Value::Array(types)) = m.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [only] = non_null.as_slice() {
            m.insert("type".into(), only.clone());
        }
    }
    let string_format = m.get("format").and_then(Value::as_str);
    if m.get("type").and_then(Value::as_str) != Some("string")
        || !string_format.is_some_and(|f| FORM_STRING_FORMATS.contains(&f))
    {
        m.remove("format");
    }
    if m.get("default") == Some(&Value::Null) {
        m.remove("default");
    }
    if let Some(titled) = titled_options(m.get("oneOf")) {
        m.insert("type".into(), "string".into());
        m.insert("oneOf".into(), titled);
    }
    if let Some(items) = m.get("items").cloned() {
        let items = resolve(&items, defs);
        let mut flat = Map::new();
        match titled_options(items.get("oneOf")) {
            Some(titled) => {
                flat.insert("anyOf".into(), titled);
            }
            None => {
                flat.insert("type".into(), "string".into());
                if let Some(e) = items.get("enum") {
                    flat.insert("enum".into(), e.clone());
                }
            }
        }
        m.insert("items".into(), Value::Object(flat));
    }
    schema
}

fn copy_annotations(from: &Value, to: &mut Value) {
    if let (Value::Object(src), Value::Object(dst)) = (from, to) {
        for key in ["description", "title", "default"] {
            if let Some(v) = src.get(key) {
                dst.insert(key.into(), v.clone());
            }
        }
    }
}

/// schemars renders documented unit variants as `oneOf: [{const, description}]`;
/// elicitation wants `{const, title}`.
fn titled_options(options: Option<&Value>) -> Option<Value> {
    let Value::Array(options) = options? else {
        return None;
    };
    let titled = options
        .iter()
        .map(|o| {
            let value = o
                .get("const")
                .or_else(|| o.get("enum").and_then(|e| e.get(0)))?;
            let title = o
                .get("description")
                .or_else(|| o.get("title"))
                .cloned()
                .unwrap_or_else(|| value.clone());
            Some(serde_json::json!({"const": value, "title": title}))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Value::Array(titled))
}
