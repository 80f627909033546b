//! What the server offers, live: its tools, prompts, resources and
//! resource templates, the checks each passes to get in, the list pages,
//! and the capabilities they add up to.
//!
//! Each kind is a [`Catalog`] behind its own lock, so the application can
//! add and remove entries while the server runs
//! ([`Server::add_tool`](super::Server::add_tool) and its siblings). A
//! request holds an `Arc` of the entry it uses, never the lock: removing a
//! tool does not disturb a call already running it. Every change is
//! published on the [`ChangeFeed`] for the listen streams that follow it.
//!
//! # What is offered
//!
//! Tools are always offered. Prompts, resources and completions are
//! offered once the server has had one: a prompt, a resource or template,
//! a completer. From then on their methods answer (with an empty list if
//! everything was removed since) and `server/discover` advertises them;
//! before, their methods are `-32601`. An offer is never withdrawn, since
//! a client may have cached the capabilities.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::Map;
use tokio::sync::broadcast;

use super::args::ArgumentSchema;
use super::catalog::{Catalog, Keyed, ListSettings};
use super::changes::{Change, ChangeFeed};
use super::error::Failure;
use super::prompt::PromptHandler;
use super::resource::{ReadCache, ResourceDefinition, ResourceHandler};
use super::state::{StateMap, StateType};
use super::tool::{TaskPolicy, TaskStart, ToolHandler, ToolPolicy};
use crate::util::{read, write};
use crate::wire::{
    AbsoluteUrl, CacheScope, CallToolResult, ErrorObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Method, PaginatedParams,
    Prompt, PromptsCapability, Resource, ResourceTemplate, ResourcesCapability, ResultMeta,
    ResultType, ServerCapabilities, Tool, ToolsCapability, UriTemplate,
};

/// A tool as the server holds it: its listing, its compiled schemas, its
/// handler, and how its calls relate to tasks.
pub(crate) struct RegisteredTool {
    pub definition: Tool,
    pub arguments: ArgumentSchema,
    /// The compiled `outputSchema`, when the tool declares one.
    output: Option<jsonschema::Validator>,
    pub handler: Arc<dyn ToolHandler>,
    pub policy: ToolPolicy,
    pub start: TaskStart,
    /// The application state the tool reads.
    pub required_state: Vec<StateType>,
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
        let arguments = ArgumentSchema::compile(&definition.input_schema)
            .map_err(|reason| invalid("inputSchema", reason))?;
        let output = definition
            .output_schema
            .as_ref()
            .map(jsonschema::validator_for)
            .transpose()
            .map_err(|e| invalid("outputSchema", e.to_string()))?;
        Ok(RegisteredTool {
            policy: handler.policy(),
            start: handler.task_start(),
            required_state: handler.required_state(),
            handler: Arc::new(handler),
            definition,
            arguments,
            output,
        })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// Checks a successful result against the tool's `outputSchema`: the
    /// spec has the server guarantee that structured content conforms. A
    /// tool error (`isError`) carries no structured content and is not
    /// checked. A result that does not conform is a bug in the tool, so it
    /// becomes an internal failure.
    pub fn check_output(&self, result: CallToolResult) -> Result<CallToolResult, Failure> {
        let Some(schema) = &self.output else {
            return Ok(result);
        };
        if result.is_error() {
            return Ok(result);
        }
        let Some(structured) = &result.structured_content else {
            return Err(Failure::Internal(format!(
                "tool `{}` declares an outputSchema but returned no structuredContent",
                self.name()
            )));
        };
        let violation = schema.iter_errors(structured).next().map(|error| {
            format!(
                "tool `{}` returned structuredContent that does not match its outputSchema: \
                 {error} at `{}`",
                self.name(),
                error.instance_path()
            )
        });
        match violation {
            None => Ok(result),
            Some(cause) => Err(Failure::Internal(cause)),
        }
    }
}

impl Keyed for RegisteredTool {
    fn key(&self) -> &str {
        self.name()
    }
}

/// A prompt as the server holds it.
pub(crate) struct RegisteredPrompt {
    pub definition: Prompt,
    pub handler: Arc<dyn PromptHandler>,
    pub required_state: Vec<StateType>,
}

impl RegisteredPrompt {
    pub fn new(handler: impl PromptHandler) -> Self {
        RegisteredPrompt {
            definition: handler.definition(),
            required_state: handler.required_state(),
            handler: Arc::new(handler),
        }
    }

    /// Whether some argument has a completer.
    fn completes(&self) -> bool {
        self.definition
            .arguments
            .iter()
            .flatten()
            .any(|argument| self.handler.completer(&argument.name).is_some())
    }
}

impl Keyed for RegisteredPrompt {
    fn key(&self) -> &str {
        &self.definition.name
    }
}

/// A resource or a resource template as the server holds it.
pub(crate) struct RegisteredResource {
    pub entry: ResourceEntry,
    pub handler: Arc<dyn ResourceHandler>,
    pub cache: ReadCache,
    pub required_state: Vec<StateType>,
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
        Ok(RegisteredResource {
            entry,
            cache: handler.cache(),
            required_state: handler.required_state(),
            handler: Arc::new(handler),
        })
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
    fn item(&self) -> String {
        match &self.entry {
            ResourceEntry::Fixed(resource) => format!("resource `{}`", resource.uri),
            ResourceEntry::Template { listing, .. } => {
                format!("resource template `{}`", listing.uri_template)
            }
        }
    }

    fn completes(&self) -> bool {
        self.variables()
            .iter()
            .any(|variable| self.handler.completer(variable).is_some())
    }
}

impl Keyed for RegisteredResource {
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
    /// A resource's URI is not an absolute URI, or a template is not one
    /// presa supports (see [`UriTemplate`]).
    #[error("{item} has an invalid URI: {reason}")]
    InvalidUri {
        /// The entry.
        item: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool runs only as a task, and the server has no tasks.
    #[error("{item} runs only as a task, but tasks are not enabled; call ServerBuilder::tasks")]
    TasksNotEnabled {
        /// The entry.
        item: String,
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

/// What an entry is checked against: the server it joins.
pub(crate) struct Requirements<'a> {
    pub state: &'a StateMap,
    pub tasks: bool,
}

impl Requirements<'_> {
    fn check_state(
        &self,
        item: impl Fn() -> String,
        needs: &[StateType],
    ) -> Result<(), RegistrationError> {
        match needs.iter().find(|ty| !self.state.contains(**ty)) {
            None => Ok(()),
            Some(missing) => Err(RegistrationError::MissingState {
                item: item(),
                state: missing.name(),
            }),
        }
    }
}

/// What the server offers besides tools; see the module docs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    pub prompts: bool,
    pub resources: bool,
    pub completions: bool,
}

impl Offers {
    /// Whether the server answers `method` now, rather than `-32601`.
    pub fn serves(self, method: Method) -> bool {
        match method {
            Method::PromptsList | Method::PromptsGet => self.prompts,
            Method::ResourcesList | Method::ResourceTemplatesList | Method::ResourcesRead => {
                self.resources
            }
            Method::CompletionComplete => self.completions,
            Method::ServerDiscover
            | Method::ToolsList
            | Method::ToolsCall
            | Method::SubscriptionsListen
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel => true,
        }
    }

    /// The `tools`, `prompts`, `resources` and `completions` capabilities:
    /// every list announces its changes, and resources can be followed.
    pub fn capabilities(self) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
            }),
            prompts: self.prompts.then_some(PromptsCapability {
                list_changed: Some(true),
            }),
            resources: self.resources.then_some(ResourcesCapability {
                list_changed: Some(true),
                subscribe: Some(true),
            }),
            completions: self.completions.then(Map::new),
            ..Default::default()
        }
    }
}

#[derive(Default)]
struct OfferFlags {
    prompts: AtomicBool,
    resources: AtomicBool,
    completions: AtomicBool,
}

/// Fixed resources and templates, under one lock so that a read sees both
/// as of one moment.
#[derive(Default)]
struct Resources {
    fixed: Catalog<RegisteredResource>,
    templates: Catalog<RegisteredResource>,
}

impl Resources {
    fn catalog_mut(&mut self, entry: &ResourceEntry) -> &mut Catalog<RegisteredResource> {
        match entry {
            ResourceEntry::Fixed(_) => &mut self.fixed,
            ResourceEntry::Template { .. } => &mut self.templates,
        }
    }
}

/// The live catalogs of a server.
pub(crate) struct Registry {
    tools: RwLock<Catalog<RegisteredTool>>,
    prompts: RwLock<Catalog<RegisteredPrompt>>,
    resources: RwLock<Resources>,
    offers: OfferFlags,
    changes: ChangeFeed,
    lists: ListSettings,
}

impl Registry {
    pub fn new(lists: ListSettings) -> Self {
        Registry {
            tools: RwLock::default(),
            prompts: RwLock::default(),
            resources: RwLock::default(),
            offers: OfferFlags::default(),
            changes: ChangeFeed::new(),
            lists,
        }
    }

    /// What is offered now.
    pub fn offers(&self) -> Offers {
        Offers {
            prompts: self.offers.prompts.load(Ordering::Acquire),
            resources: self.offers.resources.load(Ordering::Acquire),
            completions: self.offers.completions.load(Ordering::Acquire),
        }
    }

    /// A receiver of every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Tells the listeners that the resource at `uri` changed.
    pub fn resource_updated(&self, uri: &str) {
        self.changes
            .publish(Change::ResourceUpdated(Arc::from(uri)));
    }

    /// Adds `tool` if it can run on this server.
    pub fn add_tool(
        &self,
        tool: RegisteredTool,
        server: &Requirements<'_>,
    ) -> Result<(), RegistrationError> {
        let item = || format!("tool `{}`", tool.name());
        if !server.tasks && tool.policy == ToolPolicy::Fixed(TaskPolicy::Required) {
            return Err(RegistrationError::TasksNotEnabled { item: item() });
        }
        server.check_state(item, &tool.required_state)?;
        write(&self.tools)
            .insert(tool)
            .map_err(|tool| RegistrationError::Duplicate {
                item: format!("tool `{}`", tool.name()),
            })?;
        self.changes.publish(Change::Tools);
        Ok(())
    }

    /// Adds `prompt` if it can run on this server.
    pub fn add_prompt(
        &self,
        prompt: RegisteredPrompt,
        server: &Requirements<'_>,
    ) -> Result<(), RegistrationError> {
        let item = |name: &str| format!("prompt `{name}`");
        server.check_state(|| item(&prompt.definition.name), &prompt.required_state)?;
        let completes = prompt.completes();
        write(&self.prompts)
            .insert(prompt)
            .map_err(|prompt| RegistrationError::Duplicate {
                item: item(&prompt.definition.name),
            })?;
        self.offers.prompts.store(true, Ordering::Release);
        self.offer_completions(completes);
        self.changes.publish(Change::Prompts);
        Ok(())
    }

    /// Adds `resource` if it can run on this server.
    pub fn add_resource(
        &self,
        resource: RegisteredResource,
        server: &Requirements<'_>,
    ) -> Result<(), RegistrationError> {
        server.check_state(|| resource.item(), &resource.required_state)?;
        let completes = resource.completes();
        let mut resources = write(&self.resources);
        let catalog = resources.catalog_mut(&resource.entry);
        catalog
            .insert(resource)
            .map_err(|resource| RegistrationError::Duplicate {
                item: resource.item(),
            })?;
        drop(resources);
        self.offers.resources.store(true, Ordering::Release);
        self.offer_completions(completes);
        self.changes.publish(Change::Resources);
        Ok(())
    }

    fn offer_completions(&self, completes: bool) {
        if completes {
            self.offers.completions.store(true, Ordering::Release);
        }
    }

    /// Removes tool `name`; whether there was one.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = write(&self.tools).remove(name);
        self.announce(removed, Change::Tools)
    }

    /// Removes prompt `name`; whether there was one.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.prompts).remove(name);
        self.announce(removed, Change::Prompts)
    }

    /// Removes the resource at `uri`, or the template written `uri`;
    /// whether there was one.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = {
            let mut resources = write(&self.resources);
            resources.fixed.remove(uri) || resources.templates.remove(uri)
        };
        self.announce(removed, Change::Resources)
    }

    fn announce(&self, changed: bool, change: Change) -> bool {
        if changed {
            self.changes.publish(change);
        }
        changed
    }

    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<Arc<RegisteredTool>> {
        read(&self.tools).get(name).cloned()
    }

    /// The prompt called `name`.
    pub fn prompt(&self, name: &str) -> Option<Arc<RegisteredPrompt>> {
        read(&self.prompts).get(name).cloned()
    }

    /// What reads `uri`: the fixed resource with that URI, else the first
    /// template (in registration order) that matches it, with the values
    /// of its variables.
    pub fn resolve(
        &self,
        uri: &str,
    ) -> Option<(Arc<RegisteredResource>, BTreeMap<String, String>)> {
        let resources = read(&self.resources);
        if let Some(fixed) = resources.fixed.get(uri) {
            return Some((Arc::clone(fixed), BTreeMap::new()));
        }
        resources
            .templates
            .iter()
            .find_map(|entry| match &entry.entry {
                ResourceEntry::Template { template, .. } => template
                    .matches(uri)
                    .map(|values| (Arc::clone(entry), values)),
                ResourceEntry::Fixed(_) => None,
            })
    }

    /// The template written `uri_template`, or the fixed resource at that
    /// URI: what a `ref/resource` of `completion/complete` names.
    pub fn resource(&self, uri_template: &str) -> Option<Arc<RegisteredResource>> {
        let resources = read(&self.resources);
        resources
            .templates
            .get(uri_template)
            .or_else(|| resources.fixed.get(uri_template))
            .cloned()
    }

    /// One page of `tools/list`.
    pub fn tools_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
    ) -> Result<ListToolsResult, ErrorObject> {
        let tools = read(&self.tools);
        let (tools, next_cursor) = self.page(&tools, params, |t| t.definition.clone())?;
        Ok(ListToolsResult {
            result_type: ResultType::Complete,
            tools,
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: CacheScope::Public,
            meta: Some(meta.clone()),
        })
    }

    /// One page of `prompts/list`.
    pub fn prompts_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
    ) -> Result<ListPromptsResult, ErrorObject> {
        let prompts = read(&self.prompts);
        let (prompts, next_cursor) = self.page(&prompts, params, |p| p.definition.clone())?;
        Ok(ListPromptsResult {
            result_type: ResultType::Complete,
            prompts,
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: CacheScope::Public,
            meta: Some(meta.clone()),
        })
    }

    /// One page of `resources/list`.
    pub fn resources_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
    ) -> Result<ListResourcesResult, ErrorObject> {
        let resources = read(&self.resources);
        let (resources, next_cursor) = self.page(&resources.fixed, params, |r| match &r.entry {
            ResourceEntry::Fixed(resource) => Some(resource.clone()),
            ResourceEntry::Template { .. } => None,
        })?;
        Ok(ListResourcesResult {
            result_type: ResultType::Complete,
            resources: resources.into_iter().flatten().collect(),
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: CacheScope::Public,
            meta: Some(meta.clone()),
        })
    }

    /// One page of `resources/templates/list`.
    pub fn templates_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
    ) -> Result<ListResourceTemplatesResult, ErrorObject> {
        let resources = read(&self.resources);
        let (templates, next_cursor) =
            self.page(&resources.templates, params, |r| match &r.entry {
                ResourceEntry::Template { listing, .. } => Some(listing.clone()),
                ResourceEntry::Fixed(_) => None,
            })?;
        Ok(ListResourceTemplatesResult {
            result_type: ResultType::Complete,
            resource_templates: templates.into_iter().flatten().collect(),
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: CacheScope::Public,
            meta: Some(meta.clone()),
        })
    }

    /// The listings of one page of `catalog`, and the cursor of the next.
    fn page<T: Keyed, L>(
        &self,
        catalog: &Catalog<T>,
        params: PaginatedParams,
        listing: impl Fn(&T) -> L,
    ) -> Result<(Vec<L>, Option<String>), ErrorObject> {
        let page = catalog.page(params.cursor.as_deref(), self.lists.page_size)?;
        let listings = page
            .entries
            .into_iter()
            .map(|entry| listing(entry))
            .collect();
        Ok((listings, page.next_cursor))
    }

    fn ttl_ms(&self) -> u64 {
        self.lists.ttl.as_millis() as u64
    }
}
