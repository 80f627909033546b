//! JSON Schema generation: tool input and output schemas, and the flat
//! schemas form elicitation allows.
//!
//! Schemas are JSON Schema 2020-12, the dialect MCP assumes when `$schema`
//! is absent, so presa omits `$schema`. schemars writes them; every one
//! then goes through [`Portable`], so that hosts which
//! map tool schemas onto narrower dialects read them as written (no `type`
//! arrays, no boolean schemas, no formats JSON Schema does not define);
//! see [`portable`] for the rules. A tool's optional parameter is simply
//! not `required`.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the bounds on parameter types, the generator, a tool's input and output schemas |
//! | `portable` | the rewriting every generated schema goes through |
//! | `form` | the flat `requestedSchema` of a form elicitation |

mod form;
pub mod portable;

pub use form::elicitation_schema;

use schemars::generate::SchemaSettings;
use schemars::transform::Transform;
use schemars::{JsonSchema, SchemaGenerator};

use portable::{Portable, without_null};
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
