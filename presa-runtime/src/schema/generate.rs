//! The generator every schema comes from, and the object schema of a
//! tool's parameters built from it.

use schemars::JsonSchema;
use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::bounds::ToolParam;
use super::portable::{Portable, without_null};

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with_transform(Portable)
        .into_generator()
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
    /// Adds property `name` of type `T`. An optional one (`required`
    /// false, for an `Option<T>`) loses the `null` its type allows: it is
    /// left out instead.
    pub fn property<T: ToolParam>(
        &mut self,
        name: &str,
        description: Option<&str>,
        required: bool,
    ) -> &mut Self {
        // The generator applies its transforms to roots and definitions,
        // not to the subschemas it hands out.
        let mut schema = self.generator.subschema_for::<T>();
        Portable.transform(&mut schema);
        let mut schema: Value = schema.into();
        if !required {
            schema = without_null(schema);
        }
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
