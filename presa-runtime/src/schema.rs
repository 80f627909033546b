//! JSON Schema generation: tool input and output schemas, and the flat
//! schemas form elicitation allows.
//!
//! Schemas are JSON Schema 2020-12, the dialect MCP assumes when `$schema`
//! is absent, so presa omits `$schema`.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A type that can be a tool parameter: deserializable and describable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this parameter type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + Send + 'static {}

// The diagnostic names `ToolParam` and its advice, rather than serde's and
// schemars' lists of every type that happens to implement their traits.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for T {}

/// What a type deriving `Elicit` needs besides `Elicit`: a form is read
/// with serde and described with schemars.
///
/// `#[derive(Elicit)]` asserts it at the type's name, so that a missing
/// derive is one message there rather than the unmet supertraits of
/// [`Elicit`](crate::server::Elicit) with their lists of candidates.
#[diagnostic::on_unimplemented(
    message = "`#[derive(Elicit)]` needs `{Self}` to derive `serde::Deserialize` and `schemars::JsonSchema` too",
    label = "`{Self}` lacks `serde::Deserialize`, `schemars::JsonSchema` or both",
    note = "an elicitation form is read with serde and described with schemars: write `#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]`"
)]
pub trait ElicitDerives: DeserializeOwned + JsonSchema {}

// `do_not_recommend` makes the compiler report the unmet `ElicitDerives`
// itself, with the message above, instead of looking through this impl to
// the serde or schemars bound behind it.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ElicitDerives for T {}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The root schema of `T`, without `$schema`.
pub fn root_schema<T: JsonSchema>() -> Value {
    let mut value: Value = generator().into_root_schema_for::<T>().into();
    if let Value::Object(m) = &mut value {
        m.remove("$schema");
    }
    value
}

/// Builds the object schema of a tool's parameters, one property at a time.
pub struct ObjectSchemaBuilder {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl Default for ObjectSchemaBuilder {
    fn default() -> Self {
        ObjectSchemaBuilder {
            generator: generator(),
            properties: Map::new(),
            required: Vec::new(),
        }
    }
}

impl ObjectSchemaBuilder {
    /// Adds property `name` of type `T`.
    pub fn property<T: ToolParam>(
        &mut self,
        name: &str,
        description: Option<&str>,
        required: bool,
    ) -> &mut Self {
        let mut schema: Value = self.generator.subschema_for::<T>().into();
        if let (Some(d), Value::Object(m)) = (description, &mut schema) {
            m.insert("description".into(), d.into());
        }
        self.properties.insert(name.to_owned(), schema);
        if required {
            self.required.push(name.into());
        }
        self
    }

    /// Marks property `name` to be mirrored into the `Mcp-Param-{header}`
    /// header over Streamable HTTP (`x-mcp-header`).
    pub fn header(&mut self, name: &str, header: &str) -> &mut Self {
        if let Some(Value::Object(property)) = self.properties.get_mut(name) {
            property.insert("x-mcp-header".into(), header.into());
        }
        self
    }

    /// The finished schema. With no properties it accepts only `{}`, as the
    /// spec recommends.
    pub fn finish(mut self) -> Value {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        if self.properties.is_empty() {
            root.insert("additionalProperties".into(), false.into());
            return Value::Object(root);
        }
        root.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(self.required));
        }
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        Value::Object(root)
    }
}

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
