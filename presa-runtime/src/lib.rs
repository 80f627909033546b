//! The presa runtime: MCP 2026-07-28 wire types, the server core, the
//! client and the transports.
//!
//! Most users depend on the `presa` facade crate instead, which re-exports
//! this crate and the `#[tool]` macro.
//!
//! The crate is layered. Each module uses only the modules above it in
//! this table, and no module imports one that imports it back:
//!
//! | module | what it is | uses |
//! |---|---|---|
//! | `util` | small helpers: a poison-tolerant lock, [`BoxFuture`](server::BoxFuture) | nothing |
//! | [`wire`] | JSON-RPC and MCP message types, method names, error data | nothing |
//! | [`schema`] | JSON Schema for tool parameters and elicitation forms | nothing |
//! | [`transport`] | moving framed messages; nothing of servers, clients or tools | nothing |
//! | [`server`] | turning one request into notifications and a response | `util`, `wire`, `schema`, `transport` |
//! | [`client`] | the mirror image: requests out, MRTR driven to the end | `util`, `wire`, `transport` |
//!
//! The server and the client know nothing of each other; they meet only on
//! the wire.

#![warn(missing_docs)]

pub mod client;
pub mod schema;
pub mod server;
pub mod transport;
mod util;
pub mod wire;

#[doc(hidden)]
pub mod __private {
    //! Items the macros expand to. Not a stable API.
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use serde_json::{Map, Value};

    pub use crate::schema::{ElicitDerives, ObjectSchemaBuilder};
    pub use crate::server::{
        ArgsParser, ArgumentError, BoxFuture, Context, Elicit, ElicitEnum, ElicitField,
        FromContext, InputRequired, IntoToolResult, PolicyFn, RequestInfo, State, StateType,
        TaskPolicy, TaskStart, ToolError, ToolHandler, ToolParam, ToolPolicy, ToolResult,
    };
    pub use crate::wire::{Tool, ToolAnnotations};

    /// The state types a tool's extractors declare, one list per extractor,
    /// as one list without repeats, in order of first appearance.
    pub fn state_types<const N: usize>(declared: [Vec<StateType>; N]) -> Vec<StateType> {
        let mut types: Vec<StateType> = Vec::new();
        for ty in declared.into_iter().flatten() {
            if !types.contains(&ty) {
                types.push(ty);
            }
        }
        types
    }

    /// Builds a tool listing from what `#[tool]` knows statically.
    pub fn tool_definition(
        name: &str,
        description: Option<&str>,
        input_schema: Value,
        output_schema: Option<Value>,
    ) -> Tool {
        Tool {
            name: name.to_owned(),
            title: None,
            description: description.map(str::to_owned),
            input_schema,
            output_schema,
            annotations: None,
            meta: None,
        }
    }

    /// Adds a title and the behaviour hints `[read_only, destructive,
    /// idempotent, open_world]`; annotations appear only when a hint is set.
    pub fn annotate(mut tool: Tool, title: Option<&str>, hints: [Option<bool>; 4]) -> Tool {
        tool.title = title.map(str::to_owned);
        let [
            read_only_hint,
            destructive_hint,
            idempotent_hint,
            open_world_hint,
        ] = hints;
        if hints.iter().any(Option::is_some) {
            tool.annotations = Some(ToolAnnotations {
                title: None,
                read_only_hint,
                destructive_hint,
                idempotent_hint,
                open_world_hint,
            });
        }
        tool
    }
}
