//! What the server offers, live: its tools, prompts, resources and
//! resource templates, the checks against the server each passes to get
//! in, the list pages, and the capabilities they add up to.
//!
//! Each kind is a [`Catalog`] behind its own lock, so the application can
//! add and remove entries while the server runs
//! ([`Server::add_tool`](crate::server::Server::add_tool) and its siblings). A
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

use super::changes::{Change, ChangeFeed};
use super::paged::{Catalog, CatalogEntry, ListSettings};
use super::registered::{
    RegisteredPrompt, RegisteredResource, RegisteredTool, RegistrationError, ResourceEntry,
};
use crate::server::caller::authorize::ListFilter;
use crate::server::handlers::tool::{TaskPolicy, ToolPolicy};
use crate::server::request::state::{StateMap, StateType};
use crate::util::{read, write};
use crate::wire::{
    ErrorObject, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, Method, PaginatedParams, PromptsCapability, PromptsPage, ResourcesCapability,
    ResourcesPage, ResultMeta, ResultType, ServerCapabilities, TemplatesPage, Tool,
    ToolsCapability, ToolsPage,
};

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
            | Method::SubscriptionsListen => true,
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

/// Fixed resources, listed or not, and templates, under one lock so that
/// a read sees them all as of one moment. The unlisted ones have a catalog
/// of their own, so that a page of `resources/list` is never emptied by
/// them; one URI is in at most one of `fixed` and `unlisted`.
#[derive(Default)]
struct Resources {
    fixed: Catalog<RegisteredResource>,
    unlisted: Catalog<RegisteredResource>,
    templates: Catalog<RegisteredResource>,
}

impl Resources {
    /// Adds `resource` to its catalog; refuses it when its URI or
    /// template is taken.
    fn insert(&mut self, resource: RegisteredResource) -> Result<(), RegistrationError> {
        let taken = match &resource.entry {
            ResourceEntry::Template { .. } => self.templates.insert(resource),
            ResourceEntry::Fixed(fixed)
                if self.fixed.get(&fixed.uri).is_some()
                    || self.unlisted.get(&fixed.uri).is_some() =>
            {
                Err(resource)
            }
            ResourceEntry::Fixed(_) if resource.listed => self.fixed.insert(resource),
            ResourceEntry::Fixed(_) => self.unlisted.insert(resource),
        };
        taken.map_err(|resource| RegistrationError::Duplicate {
            item: resource.item(),
        })
    }

    /// The fixed resource at `uri`, listed or not.
    fn fixed(&self, uri: &str) -> Option<&Arc<RegisteredResource>> {
        self.fixed.get(uri).or_else(|| self.unlisted.get(uri))
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
        if let Some(view) = tool.ui.as_ref().and_then(|ui| ui.resource_uri.as_ref())
            && self.resolve(view.as_str()).is_none()
        {
            return Err(RegistrationError::MissingUi {
                item: item(),
                uri: view.to_string(),
            });
        }
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
        resources.insert(resource)?;
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
            resources.fixed.remove(uri)
                || resources.unlisted.remove(uri)
                || resources.templates.remove(uri)
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

    /// Every scope an entry declares.
    #[cfg(feature = "http-server")]
    pub fn declared_scopes(&self) -> std::collections::BTreeSet<&'static str> {
        let tools = read(&self.tools);
        let prompts = read(&self.prompts);
        let resources = read(&self.resources);
        let tool_scopes = tools.iter().flat_map(|t| t.scopes);
        let prompt_scopes = prompts.iter().flat_map(|p| p.scopes);
        let resource_scopes = resources
            .fixed
            .iter()
            .chain(resources.unlisted.iter())
            .chain(resources.templates.iter())
            .flat_map(|r| r.scopes);
        tool_scopes
            .chain(prompt_scopes)
            .chain(resource_scopes)
            .copied()
            .collect()
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
        if let Some(fixed) = resources.fixed(uri) {
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
            .or_else(|| resources.fixed(uri_template))
            .cloned()
    }

    /// One page of `tools/list`, of the tools `filter` admits and `listed`
    /// keeps (the extensions' say, see `Extension::lists_tool`).
    pub fn tools_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
        filter: &ListFilter<'_>,
        listed: impl Fn(&Tool) -> bool,
    ) -> Result<ListToolsResult, ErrorObject> {
        let tools = read(&self.tools);
        let (tools, next_cursor) = self.page(&tools, params, |t| {
            (filter.admits(t.catalog_item()) && listed(&t.definition)).then(|| t.definition.clone())
        })?;
        Ok(ListToolsResult {
            result_type: ResultType::Complete,
            items: ToolsPage {
                tools: tools.into_iter().flatten().collect(),
            },
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: filter.cache_scope(),
            meta: Some(meta.clone()),
        })
    }

    /// One page of `prompts/list`.
    pub fn prompts_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
        filter: &ListFilter<'_>,
    ) -> Result<ListPromptsResult, ErrorObject> {
        let prompts = read(&self.prompts);
        let (prompts, next_cursor) = self.page(&prompts, params, |p| {
            filter
                .admits(p.catalog_item())
                .then(|| p.definition.clone())
        })?;
        Ok(ListPromptsResult {
            result_type: ResultType::Complete,
            items: PromptsPage {
                prompts: prompts.into_iter().flatten().collect(),
            },
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: filter.cache_scope(),
            meta: Some(meta.clone()),
        })
    }

    /// One page of `resources/list`.
    pub fn resources_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
        filter: &ListFilter<'_>,
    ) -> Result<ListResourcesResult, ErrorObject> {
        let resources = read(&self.resources);
        let (resources, next_cursor) = self.page(&resources.fixed, params, |r| match &r.entry {
            ResourceEntry::Fixed(resource) if filter.admits(r.catalog_item()) => {
                Some(resource.clone())
            }
            _ => None,
        })?;
        Ok(ListResourcesResult {
            result_type: ResultType::Complete,
            items: ResourcesPage {
                resources: resources.into_iter().flatten().collect(),
            },
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: filter.cache_scope(),
            meta: Some(meta.clone()),
        })
    }

    /// One page of `resources/templates/list`.
    pub fn templates_page(
        &self,
        params: PaginatedParams,
        meta: &ResultMeta,
        filter: &ListFilter<'_>,
    ) -> Result<ListResourceTemplatesResult, ErrorObject> {
        let resources = read(&self.resources);
        let (templates, next_cursor) =
            self.page(&resources.templates, params, |r| match &r.entry {
                ResourceEntry::Template { listing, .. } if filter.admits(r.catalog_item()) => {
                    Some(listing.clone())
                }
                _ => None,
            })?;
        Ok(ListResourceTemplatesResult {
            result_type: ResultType::Complete,
            items: TemplatesPage {
                resource_templates: templates.into_iter().flatten().collect(),
            },
            next_cursor,
            ttl_ms: self.ttl_ms(),
            cache_scope: filter.cache_scope(),
            meta: Some(meta.clone()),
        })
    }

    /// The listings of one page of `catalog`, and the cursor of the next.
    fn page<T: CatalogEntry, L>(
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

    /// How many entries one page of a list holds.
    pub fn page_size(&self) -> usize {
        self.lists.page_size
    }

    fn ttl_ms(&self) -> u64 {
        self.lists.ttl.as_millis() as u64
    }
}
