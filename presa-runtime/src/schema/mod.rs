//! JSON Schema generation: tool input and output schemas, and the flat
//! schemas form elicitation allows.
//!
//! Schemas are JSON Schema 2020-12, the dialect MCP assumes when `$schema`
//! is absent, so presa omits `$schema`. schemars writes them; every one
//! then goes through [`Portable`](portable::Portable), so that hosts which
//! map tool schemas onto narrower dialects read them as written (no `type`
//! arrays, no boolean schemas, no formats JSON Schema does not define);
//! see [`portable`] for the rules. A tool's optional parameter is simply
//! not `required`.
//!
//! | file | what it holds |
//! |---|---|
//! | `portable` | the rewriting every generated schema goes through |
//! | `bounds` | the bounds on parameter types and elicitation forms |
//! | `generate` | the generator, a root schema, a tool's object schema |
//! | `form` | the flat `requestedSchema` of a form elicitation |
//!
//! Layers, bottom up: portable, bounds, generate, form.

mod bounds;
mod form;
mod generate;
pub mod portable;

pub use bounds::{ElicitDerives, ToolParam};
pub use form::elicitation_schema;
pub use generate::{ObjectSchemaBuilder, root_schema};
