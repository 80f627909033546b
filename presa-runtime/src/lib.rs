//! The presa runtime: MCP 2026-07-28 wire types, the server core, the
//! client and the transports.
//!
//! Most users depend on the facade instead:
//! [`presa-mcp`](https://docs.rs/presa-mcp), whose library is `presa`. It
//! re-exports this crate and the `#[tool]`, `#[prompt]` and `#[resource]`
//! macros.
//!
//! # Layers
//!
//! This table is the one map of the crate's layers; the facade and the
//! README link here. Each module uses only the modules above it, and no
//! module imports one that imports it back. Inside a module, its own docs
//! give the map of its folders.
//!
//! | module | what it is | uses |
//! |---|---|---|
//! | `util` (private) | small helpers: a poison-tolerant lock, [`BoxFuture`](server::BoxFuture), memory budgets in bytes, SHA-256 over JSON | nothing |
//! | [`wire`] | JSON-RPC and MCP message types, method names, error data; the legacy (2025-11-25 and earlier) shapes in `wire::legacy` | nothing |
//! | [`schema`] | JSON Schema for tool parameters and elicitation forms | nothing |
//! | [`transport`] | moving framed messages: in-memory pairs, byte streams, stdio; nothing of servers, clients or tools | `util` |
//! | `oauth` (private) | what OAuth's two sides share: the metadata documents, where they live, how they are fetched | nothing |
//! | [`telemetry`] | OpenTelemetry: W3C trace context in `_meta`, spans linked across a task's life, metrics, and an OTLP exporter (feature `otel`; without it, its calls do nothing) | `wire` |
//! | [`server`] | turning one request into notifications and a response: tools, prompts and resources, the input a handler asks for, the request core, the task engine, the transports that carry a server, Streamable HTTP, legacy sessions | `util`, `wire`, `schema`, `transport`, `oauth`, `telemetry` |
//! | [`client`] | the mirror image: requests out, MRTR and tasks driven to the end, legacy servers | `util`, `wire`, `transport`, `oauth`, `telemetry` |
//! | `testing` | test kits for users' own task stores (feature `testing`) | `wire`, `server` |
//! | `__private` (hidden) | what the `#[tool]`, `#[prompt]` and `#[resource]` macros expand to; no API | `wire`, `schema`, `server` |
//! | `__fuzz` (hidden) | entry points for the fuzz targets to private parts (feature `fuzzing`); no API | `util`, `wire`, `server` |
//!
//! The server and the client know nothing of each other; they meet only on
//! the wire (or on an in-memory channel, [`server::in_process`]).
//!
//! # Semver
//!
//! The crate follows semantic versioning (in its 0.x form: a minor release
//! may break, a patch release does not). What may grow without a breaking
//! release is marked, so that code written against it keeps compiling:
//!
//! 1. **Error enums** ([`wire::FrameError`],
//!    [`wire::headers::HeaderValueError`], [`server::StateError`],
//!    [`server::RegistrationError`], [`client::ClientError`], …) are
//!    `#[non_exhaustive]`: a new way to fail is a new variant, so a
//!    `match` on one needs a `_` arm. Their `Display` texts are for people
//!    and may change in any release.
//! 2. **Wire enums that a later MCP revision extends** ([`wire::Method`],
//!    [`wire::ResultType`], [`wire::Content`], [`wire::TaskStatus`], the
//!    input requests, responses and capabilities, …) are
//!    `#[non_exhaustive]` too. Those the spec fixes (JSON-RPC's
//!    [`wire::RequestId`], [`wire::Role`], [`wire::LoggingLevel`]) are not.
//! 3. **Settings** ([`server::ReadCache`], [`server::TaskSettings`],
//!    `KeySettings`, …) are
//!    `#[non_exhaustive]` structs: start from their `Default` or
//!    constructor and set the fields you need; a new setting is a new
//!    field with a default.
//! 4. **Wire structs** mirror the spec's objects field for field, with
//!    public fields, so that any message can be built and read. A later
//!    revision adds optional fields to them, so build one from its
//!    constructor (`Tool::new`, `Prompt::new`, `Resource::new`, …) with
//!    `..` for the rest, or by setting fields on it: a struct literal that
//!    names every field is not covered, and may break in a minor release.
//!    A new MCP revision is a minor release.
//! 5. `__private` is what the macros expand to, and no API at all: the
//!    facade pins this crate's exact version for it.

#![warn(missing_docs)]
// docs.rs (nightly) marks each item that a feature gates with its badge.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzz.rs"]
pub mod __fuzz;
pub mod client;
#[cfg(any(feature = "http-server", feature = "oauth-client"))]
mod oauth;
pub mod schema;
pub mod server;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transport;
mod util;
pub mod wire;

#[doc(hidden)]
pub mod __private {
    //! Items the macros expand to. Not a stable API.
    pub use async_trait::async_trait;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use serde_json::{Map, Value};

    pub use crate::schema::{ElicitDerives, ObjectSchemaBuilder};
    pub use crate::server::middleware::HandlerLayers;
    pub use crate::server::{
        ArgsParser, ArgumentError, Completer, Context, Elicit, ElicitEnum, ElicitField,
        FromContext, InputRequired, IntoPromptResult, IntoReadResult, IntoToolResult, PolicyFn,
        PromptHandler, PromptResult, ReadCache, ReadRequest, ReadResult, RequestInfo,
        ResourceDefinition, ResourceHandler, State, StateType, TaskPolicy, TaskStart, TextArgs,
        ToolError, ToolHandler, ToolParam, ToolPolicy, ToolResult,
    };
    pub use crate::wire::{Prompt, PromptArgument, PromptArguments, Tool, ToolAnnotations};
    pub use crate::wire::{ToolUi, UiUri, UiVisibility};

    use crate::wire::{CacheScope, Resource, ResourceTemplate};

    /// `tool`, linked to the MCP Apps view at `uri` by `#[tool(ui = …)]`,
    /// which checked at compile time that `uri` is a `ui://` URI.
    pub fn link_ui(tool: Tool, uri: &str, visibility: Option<UiVisibility>) -> Tool {
        let uri = UiUri::parse(uri).unwrap_or_else(|error| panic!("{error}"));
        let mut ui = ToolUi::new(uri);
        ui.visibility = visibility;
        tool.with_ui(&ui)
    }

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
            description: description.map(str::to_owned),
            output_schema,
            ..Tool::new(name, input_schema)
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
