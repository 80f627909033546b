//! The presa runtime: MCP 2026-07-28 wire types, the server core, the
//! client and the transports.
//!
//! Most users depend on the `presa` facade crate instead, which re-exports
//! this crate and the `#[tool]`, `#[prompt]` and `#[resource]` macros.
//!
//! The crate is layered. Each module uses only the modules above it in
//! this table, and no module imports one that imports it back:
//!
//! | module | what it is | uses |
//! |---|---|---|
//! | `util` | small helpers: a poison-tolerant lock, [`BoxFuture`](server::BoxFuture), memory budgets in bytes, SHA-256 over JSON | nothing |
//! | [`wire`] | JSON-RPC and MCP message types, method names, error data | nothing |
//! | [`schema`] | JSON Schema for tool parameters and elicitation forms | nothing |
//! | [`transport`] | moving framed messages; nothing of servers, clients or tools | `util` |
//! | [`server`] | turning one request into notifications and a response | `util`, `wire`, `schema`, `transport` |
//! | [`client`] | the mirror image: requests out, MRTR driven to the end | `util`, `wire`, `transport` |
//! | `testing` | test kits for users' own task stores (feature `testing`) | `wire`, `server` |
//!
//! The server and the client know nothing of each other; they meet only on
//! the wire.

#![warn(missing_docs)]

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzz.rs"]
pub mod __fuzz;
pub mod client;
#[cfg(any(feature = "http-server", feature = "oauth-client"))]
mod oauth;
pub mod schema;
pub mod server;
#[cfg(feature = "testing")]
pub mod testing;
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
        ArgsParser, ArgumentError, BoxFuture, Completer, Context, Elicit, ElicitEnum, ElicitField,
        FromContext, InputRequired, IntoPromptResult, IntoReadResult, IntoToolResult, PolicyFn,
        PromptHandler, PromptResult, ReadCache, ReadRequest, ReadResult, RequestInfo,
        ResourceDefinition, ResourceHandler, State, StateType, TaskPolicy, TaskStart, TextArgs,
        ToolError, ToolHandler, ToolParam, ToolPolicy, ToolResult,
    };
    pub use crate::wire::{Prompt, PromptArgument, PromptArguments, Tool, ToolAnnotations};

    use crate::wire::{CacheScope, Resource, ResourceTemplate};

    /// Builds a prompt listing from what `#[prompt]` knows statically.
    pub fn prompt_definition(
        name: &str,
        title: Option<&str>,
        description: Option<&str>,
        arguments: Vec<PromptArgument>,
    ) -> Prompt {
        Prompt {
            title: title.map(str::to_owned),
            description: description.map(str::to_owned),
            arguments: (!arguments.is_empty()).then_some(arguments),
            ..Prompt::new(name)
        }
    }

    /// One argument of a prompt listing.
    pub fn prompt_argument(
        name: &str,
        description: Option<&str>,
        required: bool,
    ) -> PromptArgument {
        PromptArgument {
            name: name.to_owned(),
            title: None,
            description: description.map(str::to_owned),
            required: Some(required),
        }
    }

    /// What `#[resource]` knows statically of its listing: `[name, title,
    /// description, mime_type]`.
    pub type ResourceTexts<'a> = [Option<&'a str>; 4];

    /// A fixed resource at `uri`, as `#[resource]` lists it.
    pub fn fixed_resource(uri: &str, texts: ResourceTexts<'_>) -> ResourceDefinition {
        let [name, title, description, mime_type] = texts.map(|t| t.map(str::to_owned));
        ResourceDefinition::Fixed(Resource {
            title,
            description,
            mime_type,
            ..Resource::new(uri, name.unwrap_or_default())
        })
    }

    /// A resource template, as `#[resource]` lists it.
    pub fn resource_template(uri_template: &str, texts: ResourceTexts<'_>) -> ResourceDefinition {
        let [name, title, description, mime_type] = texts.map(|t| t.map(str::to_owned));
        ResourceDefinition::Template(ResourceTemplate {
            title,
            description,
            mime_type,
            ..ResourceTemplate::new(uri_template, name.unwrap_or_default())
        })
    }

    /// The caching hints `#[resource(ttl_ms = .., cache_scope = ..)]`
    /// declares, over the defaults.
    pub fn read_cache(ttl_ms: Option<u64>, public: Option<bool>) -> ReadCache {
        let default = ReadCache::default();
        ReadCache {
            ttl: ttl_ms.map_or(default.ttl, std::time::Duration::from_millis),
            scope: match public {
                Some(true) => CacheScope::Public,
                Some(false) => CacheScope::Private,
                None => default.scope,
            },
        }
    }

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
