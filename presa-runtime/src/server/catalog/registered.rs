//! Entries as the server holds them, checked once, at registration: a
//! tool with its schemas compiled, a prompt, a resource with its URI
//! checked or its template parsed; and [`RegistrationError`], why one
//! cannot be registered.

use std::sync::Arc;

use super::paged::CatalogEntry;
use crate::server::caller::authorize::{CatalogItem, CatalogKind};
use crate::server::handlers::args::ArgumentSchema;
use crate::server::handlers::prompt::PromptHandler;
use crate::server::handlers::resource::{ReadCache, ResourceDefinition, ResourceHandler};
use crate::server::handlers::tool::{TaskStart, ToolHandler, ToolPolicy};
use crate::server::middleware::invocation::HandlerService;
use crate::server::request::error::Failure;
use crate::server::request::state::StateType;
use crate::wire::headers::{HeaderParam, header_params};
use crate::wire::scope_token;
use crate::wire::{
    AbsoluteUrl, CallToolResult, Prompt, Resource, ResourceTemplate, Tool, ToolUi, UriTemplate,
};

/// A tool as the server holds it: its listing, its compiled schemas, its
/// handler, and how its calls relate to tasks.
pub(crate) struct RegisteredTool {
    pub definition: Tool,
    /// The name, shared by the records of the tool's tasks.
    task_name: Arc<str>,
    pub arguments: ArgumentSchema,
    /// The compiled `outputSchema`, when the tool declares one.
    #[cfg(feature = "json-schema")]
    output: Option<jsonschema::Validator>,
    pub handler: Arc<dyn ToolHandler>,
    pub policy: ToolPolicy,
    pub start: TaskStart,
    /// Whether its tasks may run again on another server.
    pub resumable: bool,
    /// The application state the tool reads.
    pub required_state: Vec<StateType>,
    /// The scopes its callers must hold.
    pub scopes: &'static [&'static str],
    /// The parameters mirrored into `Mcp-Param-*` headers over HTTP. The
    /// annotations are checked on every transport: a tool whose headers
    /// break the rules is a bug wherever it is served.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub headers: Vec<HeaderParam>,
    /// The tool's own layers, built once; `None` without any.
    pub layers: Option<HandlerService>,
    /// Its MCP Apps `_meta.ui`: the view it names, which the server must
    /// serve, and who may call it.
    pub ui: Option<ToolUi>,
}

impl RegisteredTool {
    /// Takes `handler` in, compiling its schemas; network `$ref`s are never
    /// fetched.
    pub fn new(handler: impl ToolHandler) -> Result<Self, RegistrationError> {
        let definition = handler.definition();
        let item = || format!("tool `{}`", definition.name);
        let invalid = |schema, reason| RegistrationError::InvalidSchema {
            item: item(),
            schema,
            reason,
        };
        let typed = handler.typed_arguments();
        #[cfg(feature = "json-schema")]
        let refused = invalid;
        #[cfg(not(feature = "json-schema"))]
        let refused = |schema, reason| RegistrationError::NeedsJsonSchema {
            item: item(),
            schema,
            reason,
        };
        let arguments = ArgumentSchema::compile(&definition.input_schema, typed)
            .map_err(|reason| refused("inputSchema", reason))?;
        #[cfg(feature = "json-schema")]
        let output = definition
            .output_schema
            .as_ref()
            .map(jsonschema::validator_for)
            .transpose()
            .map_err(|e| invalid("outputSchema", e.to_string()))?;
        // Without a validator, a `#[tool]`'s structured content is
        // serialized from the typed value its schema was generated from;
        // another tool's could not be checked, so it is refused.
        #[cfg(not(feature = "json-schema"))]
        if definition.output_schema.is_some() && !typed {
            return Err(refused(
                "outputSchema",
                "the tool is not a `#[tool]`".into(),
            ));
        }
        let headers = header_params(&definition.input_schema)
            .map_err(|e| invalid("inputSchema", e.to_string()))?;
        let scopes = checked_scopes(item(), handler.scopes())?;
        let ui = ToolUi::of(&definition).map_err(|e| RegistrationError::InvalidUiLink {
            item: item(),
            reason: e.to_string(),
        })?;
        Ok(RegisteredTool {
            ui,
            task_name: Arc::from(definition.name.as_str()),
            scopes,
            headers,
            policy: handler.policy(),
            start: handler.task_start(),
            resumable: handler.resumable(),
            required_state: handler.required_state(),
            layers: handler.layers().service(),
            handler: Arc::new(handler),
            definition,
            arguments,
            #[cfg(feature = "json-schema")]
            output,
        })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// The tool, as a visibility filter sees it.
    pub fn catalog_item(&self) -> CatalogItem<'_> {
        CatalogItem::new(CatalogKind::Tool, self.name(), self.scopes)
    }

    /// The tool's name as its tasks' records keep it: one allocation for
    /// all of them.
    pub fn task_name(&self) -> Arc<str> {
        Arc::clone(&self.task_name)
    }

    /// Checks a successful result against the tool's `outputSchema`: the
    /// spec has the server guarantee that structured content conforms. A
    /// tool error (`isError`) carries no structured content and is not
    /// checked. A result that does not conform is a bug in the tool, so it
    /// becomes an internal failure.
    ///
    /// Without the `json-schema` feature only `#[tool]`s may declare an
    /// `outputSchema`; their content is serialized from the typed value
    /// the schema describes, and only its presence is checked.
    pub fn check_output(&self, result: CallToolResult) -> Result<CallToolResult, Failure> {
        if self.definition.output_schema.is_none() || result.is_error() {
            return Ok(result);
        }
        let Some(structured) = &result.structured_content else {
            return Err(Failure::Internal(format!(
                "tool `{}` declares an outputSchema but returned no structuredContent",
                self.name()
            )));
        };
        #[cfg(feature = "json-schema")]
        if let Some(schema) = &self.output
            && let Some(error) = schema.iter_errors(structured).next()
        {
            return Err(Failure::Internal(format!(
                "tool `{}` returned structuredContent that does not match its outputSchema: \
                 {error} at `{}`",
                self.name(),
                error.instance_path()
            )));
        }
        #[cfg(not(feature = "json-schema"))]
        let _ = structured;
        Ok(result)
    }
}

impl CatalogEntry for RegisteredTool {
    fn key(&self) -> &str {
        self.name()
    }
}

/// A prompt as the server holds it.
pub(crate) struct RegisteredPrompt {
    pub definition: Prompt,
    pub handler: Arc<dyn PromptHandler>,
    pub required_state: Vec<StateType>,
    /// The scopes its callers must hold.
    pub scopes: &'static [&'static str],
    /// The prompt's own layers, built once; `None` without any.
    pub layers: Option<HandlerService>,
}

impl RegisteredPrompt {
    /// Takes `handler` in, checking its scopes.
    pub fn new(handler: impl PromptHandler) -> Result<Self, RegistrationError> {
        let definition = handler.definition();
        let scopes = checked_scopes(format!("prompt `{}`", definition.name), handler.scopes())?;
        Ok(RegisteredPrompt {
            definition,
            scopes,
            required_state: handler.required_state(),
            layers: handler.layers().service(),
            handler: Arc::new(handler),
        })
    }

    /// The prompt, as a visibility filter sees it.
    pub fn catalog_item(&self) -> CatalogItem<'_> {
        CatalogItem::new(CatalogKind::Prompt, &self.definition.name, self.scopes)
    }

    /// Whether some argument has a completer.
    pub fn completes(&self) -> bool {
        self.definition
            .arguments
            .iter()
            .flatten()
            .any(|argument| self.handler.completer(&argument.name).is_some())
    }
}

impl CatalogEntry for RegisteredPrompt {
    fn key(&self) -> &str {
        &self.definition.name
    }
}

/// A resource or a resource template as the server holds it.
pub(crate) struct RegisteredResource {
    pub entry: ResourceEntry,
    pub handler: Arc<dyn ResourceHandler>,
    pub cache: ReadCache,
    /// Whether `resources/list` shows it.
    pub listed: bool,
    pub required_state: Vec<StateType>,
    /// The scopes its callers must hold.
    pub scopes: &'static [&'static str],
    /// The resource's own layers, built once; `None` without any.
    pub layers: Option<HandlerService>,
}

/// What a resource handler serves, checked.
pub(crate) enum ResourceEntry {
    /// One URI, valid.
    Fixed(Resource),
    /// A template, parsed.
    Template {
        listing: ResourceTemplate,
        template: UriTemplate,
    },
}

impl RegisteredResource {
    /// Takes `handler` in, checking its URI or parsing its template.
    pub fn new(handler: impl ResourceHandler) -> Result<Self, RegistrationError> {
        RegisteredResource::shared(Arc::new(handler))
    }

    /// Takes in `handler`, shared with its owner (an extension), checking
    /// its URI or parsing its template.
    pub fn shared(handler: Arc<dyn ResourceHandler>) -> Result<Self, RegistrationError> {
        let entry = match handler.definition() {
            ResourceDefinition::Fixed(resource) => {
                AbsoluteUrl::parse(&resource.uri).map_err(|e| RegistrationError::InvalidUri {
                    item: format!("resource `{}`", resource.uri),
                    reason: e.reason,
                })?;
                ResourceEntry::Fixed(resource)
            }
            ResourceDefinition::Template(listing) => {
                let template = UriTemplate::parse(&listing.uri_template).map_err(|e| {
                    RegistrationError::InvalidUri {
                        item: format!("resource template `{}`", listing.uri_template),
                        reason: e.reason,
                    }
                })?;
                ResourceEntry::Template { listing, template }
            }
        };
        let item = match &entry {
            ResourceEntry::Fixed(resource) => format!("resource `{}`", resource.uri),
            ResourceEntry::Template { listing, .. } => {
                format!("resource template `{}`", listing.uri_template)
            }
        };
        let scopes = checked_scopes(item, handler.scopes())?;
        Ok(RegisteredResource {
            scopes,
            entry,
            cache: handler.cache(),
            listed: handler.listed(),
            required_state: handler.required_state(),
            layers: handler.layers().service(),
            handler,
        })
    }

    /// The resource or template, as a visibility filter sees it.
    pub fn catalog_item(&self) -> CatalogItem<'_> {
        let (kind, name) = match &self.entry {
            ResourceEntry::Fixed(resource) => (CatalogKind::Resource, resource.uri.as_str()),
            ResourceEntry::Template { listing, .. } => {
                (CatalogKind::ResourceTemplate, listing.uri_template.as_str())
            }
        };
        CatalogItem::new(kind, name, self.scopes)
    }

    /// The MIME type the resource declares.
    pub fn mime_type(&self) -> Option<&str> {
        match &self.entry {
            ResourceEntry::Fixed(resource) => resource.mime_type.as_deref(),
            ResourceEntry::Template { listing, .. } => listing.mime_type.as_deref(),
        }
    }

    /// The names of the template's variables; none for a fixed resource.
    pub fn variables(&self) -> Vec<&str> {
        match &self.entry {
            ResourceEntry::Fixed(_) => Vec::new(),
            ResourceEntry::Template { template, .. } => template.variables().collect(),
        }
    }

    /// How it is named in messages: `resource `…`` or `resource template `…``.
    pub fn item(&self) -> String {
        match &self.entry {
            ResourceEntry::Fixed(resource) => format!("resource `{}`", resource.uri),
            ResourceEntry::Template { listing, .. } => {
                format!("resource template `{}`", listing.uri_template)
            }
        }
    }

    pub fn completes(&self) -> bool {
        self.variables()
            .iter()
            .any(|variable| self.handler.completer(variable).is_some())
    }
}

impl CatalogEntry for RegisteredResource {
    /// The URI of a fixed resource; the template text of a template.
    fn key(&self) -> &str {
        match &self.entry {
            ResourceEntry::Fixed(resource) => &resource.uri,
            ResourceEntry::Template { listing, .. } => &listing.uri_template,
        }
    }
}

/// Why a tool, a prompt or a resource cannot be registered. Each names
/// the entry, as in ``tool `build` ``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// An entry of the same kind and name (or URI) is registered already.
    #[error("{item} is registered twice")]
    Duplicate {
        /// The entry.
        item: String,
    },
    /// A tool's schema is not a valid JSON Schema.
    #[error("{item} has an invalid {schema}: {reason}")]
    InvalidSchema {
        /// The entry.
        item: String,
        /// `inputSchema` or `outputSchema`.
        schema: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's schema says more than its Rust types check, and this build
    /// has no JSON Schema validator (the `json-schema` feature is off): a
    /// hand-written tool with parameters or an `outputSchema`, or a
    /// `#[tool]` whose schema has a `pattern`, a `maxLength`, a tighter
    /// `minimum`, …
    #[error(
        "{item}: its {schema} needs a JSON Schema validator ({reason}), which this build \
         leaves out; enable the `json-schema` feature of presa-mcp (on by default)"
    )]
    NeedsJsonSchema {
        /// The entry.
        item: String,
        /// `inputSchema` or `outputSchema`.
        schema: &'static str,
        /// What in the schema needs the validator.
        reason: String,
    },
    /// A resource's URI is not an absolute URI, or a template is not one
    /// presa supports (see [`UriTemplate`]).
    #[error("{item} has an invalid URI: {reason}")]
    InvalidUri {
        /// The entry.
        item: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A declared scope is not an OAuth scope token (RFC 6749 section 3.3:
    /// printable ASCII, no space, `"` or `\\`).
    #[error("{item} declares scope {scope:?}, which is not an OAuth scope token: {reason}")]
    InvalidScope {
        /// The entry.
        item: String,
        /// The scope as declared.
        scope: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tool runs only as a task, and the server has no tasks.
    #[error("{item} runs only as a task, but tasks are not enabled; call ServerBuilder::tasks")]
    TasksNotEnabled {
        /// The entry.
        item: String,
    },
    /// A tool's `_meta.ui` is not what MCP Apps allows.
    #[error("{item} has an invalid `_meta.ui`: {reason}")]
    InvalidUiLink {
        /// The entry.
        item: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool links to a view (`_meta.ui.resourceUri`) the server does not
    /// serve.
    #[error(
        "{item} links to the UI resource `{uri}`, which this server does not serve; \
         register it with ServerBuilder::ui before the server is built, or fix the URI"
    )]
    MissingUi {
        /// The entry.
        item: String,
        /// The URI it links to.
        uri: String,
    },
    /// An entry reads application state that was never registered.
    #[error(
        "{item} needs state of type `{state}`, but none was registered; call ServerBuilder::state"
    )]
    MissingState {
        /// The entry.
        item: String,
        /// The type's name.
        state: &'static str,
    },
}

/// `scopes`, if each is an OAuth scope token (RFC 6749 section 3.3).
fn checked_scopes(
    item: String,
    scopes: &'static [&'static str],
) -> Result<&'static [&'static str], RegistrationError> {
    for scope in scopes {
        if let Err(reason) = scope_token(scope) {
            return Err(RegistrationError::InvalidScope {
                item,
                scope: (*scope).to_owned(),
                reason,
            });
        }
    }
    Ok(scopes)
}
