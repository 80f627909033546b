//! [`ServerBuilder`]: configuring a [`Server`], with every check that can
//! be made before the first request made at [`ServerBuilder::build`].

use super::apps::{Apps, UiResource};
use super::caller::Caller;
use super::caller::authorize::{CatalogItem, Listing, ScopeRules, Visibility};
use std::sync::Arc;
use std::time::Duration;

use super::catalog::paged::ListSettings;
use super::catalog::registered::{
    RegisteredPrompt, RegisteredResource, RegisteredTool, RegistrationError,
};
use super::catalog::registry::{Registry, Requirements};
use super::extension::Extension;
use super::extension::table::Extensions;
use super::handlers::prompt::PromptHandler;
use super::handlers::resource::ResourceHandler;
use super::handlers::tool::ToolHandler;
use super::input::request_state::StateCodec;
use super::middleware::stack::{HandlerLayers, HandlerMiddleware};
use super::request::error::ErrorDetails;
use super::request::state::StateMap;
use super::router::{Server, Shared};
use super::serving::connection::CLOSE_DRAIN;
#[cfg(feature = "skills")]
use super::skills::{SkillLibrary, SkillsExtension};
use super::task_engine::store::TaskStore;
use super::task_engine::{InMemoryTaskStore, TaskEngine, TaskSettings};
use super::tasks::Tasks;
use crate::util::{Budget, random_bytes};
use crate::wire::{Implementation, PROTOCOL_VERSION, ResultMeta};

const MIB: usize = 1024 * 1024;

/// The default of [`ServerBuilder::memory_limit`]: 512 MiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 512 * MIB;

/// The default of [`ServerBuilder::connection_memory_limit`]: 64 MiB.
pub const DEFAULT_CONNECTION_MEMORY_LIMIT: usize = 64 * MIB;

/// The default of [`ServerBuilder::max_answer_size`]: 1 MiB.
pub const DEFAULT_MAX_ANSWER_SIZE: usize = MIB;

impl Server {
    /// Starts building a server called `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            lists: ListSettings::default(),
            discover_ttl: Duration::from_secs(3600),
            state_key: None,
            verifying_state_keys: Vec::new(),
            state_ttl: Duration::from_secs(600),
            state: StateMap::default(),
            max_in_flight: 1024,
            max_message_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            connection_memory_limit: DEFAULT_CONNECTION_MEMORY_LIMIT,
            max_answer_size: DEFAULT_MAX_ANSWER_SIZE,
            drain_period: CLOSE_DRAIN,
            extensions: Vec::new(),
            tasks: None,
            task_store: None,
            error_details: ErrorDetails::default(),
            scope_implies: Vec::new(),
            listing: Listing::default(),
            layers: HandlerLayers::new(),
            visibility: None,
            apps: false,
        }
    }
}

/// Configures a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<RegisteredTool>,
    prompts: Vec<RegisteredPrompt>,
    resources: Vec<RegisteredResource>,
    lists: ListSettings,
    discover_ttl: Duration,
    state_key: Option<[u8; 32]>,
    verifying_state_keys: Vec<[u8; 32]>,
    state_ttl: Duration,
    state: StateMap,
    max_in_flight: usize,
    max_message_size: usize,
    memory_limit: usize,
    connection_memory_limit: usize,
    max_answer_size: usize,
    drain_period: Duration,
    extensions: Vec<Box<dyn Extension>>,
    tasks: Option<TaskSettings>,
    task_store: Option<Arc<dyn TaskStore>>,
    error_details: ErrorDetails,
    scope_implies: Vec<(String, Vec<String>)>,
    listing: Listing,
    layers: HandlerLayers,
    visibility: Option<Visibility>,
    /// Whether a view was registered with [`ServerBuilder::ui`].
    apps: bool,
}

impl ServerBuilder {
    /// Declares that a caller holding scope `broader` holds each of
    /// `narrower` too (and what they imply in turn), so that a handler
    /// requiring `jobs:build` runs for a token with `jobs:admin`. See
    /// `server::authorize` for the rules of scopes.
    pub fn scope_implies(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let narrower = narrower.into_iter().map(Into::into).collect();
        self.scope_implies.push((broader.into(), narrower));
        self
    }

    /// Which handlers `tools/list` and the other lists show a caller:
    /// every one (the default, so that a client can step up to what it
    /// lacks), or only those it holds the scopes of.
    pub fn listing(mut self, listing: Listing) -> Self {
        self.listing = listing;
        self
    }

    /// Hides tools, prompts and resources from the callers for whom
    /// `visible` is `false`. To such a caller a hidden handler does not
    /// exist: lists leave it out, and calling it is answered as for an
    /// unknown name. Lists become `cacheScope` private. See
    /// `server::authorize` (rule 5) for the rules.
    ///
    /// ```
    /// use presa_runtime::server::{CatalogKind, Server};
    ///
    /// // Tools whose name starts with `admin_` exist only for admins.
    /// let server = Server::builder("jobs", "1")
    ///     .visibility(|caller, item| {
    ///         item.kind() != CatalogKind::Tool
    ///             || !item.name().starts_with("admin_")
    ///             || caller.scopes.contains("admin")
    ///     })
    ///     .build();
    /// ```
    pub fn visibility(
        mut self,
        visible: impl Fn(&Caller, &CatalogItem<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.visibility = Some(Arc::new(visible));
        self
    }

    /// Guidance for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers a tool; `#[tool] async fn build` generates `BuildTool`.
    /// A running server takes more with
    /// [`Server::add_tool`](super::Server::add_tool).
    ///
    /// # Panics
    ///
    /// If the tool's `inputSchema` or `outputSchema` is not a valid JSON
    /// Schema; [`build`](Self::build) panics if a tool of the same name is
    /// registered too. The message names the tool.
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        self.tools
            .push(RegisteredTool::new(tool).unwrap_or_else(|e| panic!("{e}")));
        self
    }

    /// Registers a prompt; `#[prompt] async fn code_review` generates
    /// `CodeReviewPrompt`. The server then offers prompts (see
    /// [`Server::add_prompt`](super::Server::add_prompt)).
    /// [`build`](Self::build) panics if a prompt of the same name is
    /// registered too.
    pub fn prompt(mut self, prompt: impl PromptHandler) -> Self {
        self.prompts
            .push(RegisteredPrompt::new(prompt).unwrap_or_else(|e| panic!("{e}")));
        self
    }

    /// Registers a resource or a resource template; `#[resource] async fn
    /// profile` generates `ProfileResource`. The server then offers
    /// resources (see [`Server::add_resource`](super::Server::add_resource)).
    ///
    /// # Panics
    ///
    /// If the resource's URI is not an absolute URI, or its template is not
    /// one presa supports (see [`UriTemplate`](crate::wire::UriTemplate));
    /// [`build`](Self::build) panics if the same URI or template is
    /// registered twice.
    pub fn resource(mut self, resource: impl ResourceHandler) -> Self {
        self.resources
            .push(RegisteredResource::new(resource).unwrap_or_else(|e| panic!("{e}")));
        self
    }

    /// Serves an MCP Apps view: an HTML document a host renders beside the
    /// results of the tools linked to it (`#[tool(ui = "ui://…")]`). See
    /// [`apps`](super::apps) for the rules.
    ///
    /// ```
    /// use presa_runtime::server::Server;
    /// use presa_runtime::server::apps::UiResource;
    ///
    /// let server = Server::builder("jobs", "1")
    ///     .ui(UiResource::html(
    ///         "ui://jobs/dashboard",
    ///         "Jobs dashboard",
    ///         "<!doctype html><title>Jobs</title>",
    ///     ))
    ///     .build();
    /// # drop(server);
    /// ```
    ///
    /// [`build`](Self::build) panics if another resource has the view's
    /// URI.
    pub fn ui(mut self, view: UiResource) -> Self {
        self.apps = true;
        self.resource(view)
    }

    /// Shares `value` with every tool, through a `State<T>` parameter or
    /// [`Context::state`](super::Context::state). One value per type.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// The HMAC key that signs `requestState`. The default is random per
    /// process; set one shared key when several processes serve the same
    /// clients, so a retry may land on any of them. To rotate it without
    /// refusing the states in flight, see
    /// [`verify_request_state_key`](Self::verify_request_state_key).
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.state_key = Some(key);
        self
    }

    /// Also accepts the `requestState`s signed with `key`, without signing
    /// with it: a key being rotated in or out. Rotating the signing key
    /// across replicas takes three steps: every replica verifies the new
    /// key; then every replica signs with the new key and verifies the old
    /// one; once the state TTL has passed, the old key is retired.
    pub fn verify_request_state_key(mut self, key: [u8; 32]) -> Self {
        self.verifying_state_keys.push(key);
        self
    }

    /// How long a `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How many entries one page of `tools/list`, `prompts/list`,
    /// `resources/list` or `resources/templates/list` holds (default 100,
    /// at least 1).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.lists.page_size = page_size.max(1);
        self
    }

    /// The `ttlMs` of the list results (default 5 minutes).
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.lists.ttl = ttl;
        self
    }

    /// The `ttlMs` of `server/discover` results (default 1 hour).
    pub fn discover_ttl(mut self, ttl: Duration) -> Self {
        self.discover_ttl = ttl;
        self
    }

    /// How many requests one connection may have running at once (default
    /// 1024, at least 1). Past it, as many again wait in a backlog while the
    /// connection keeps acting on notifications (so cancellation still
    /// works); past the backlog it stops reading until a request finishes.
    /// `subscriptions/listen` streams do not count; a connection may hold
    /// [`MAX_SUBSCRIPTIONS`](super::MAX_SUBSCRIPTIONS) of them.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// The largest message the server accepts, in bytes (default 4 MiB), on
    /// every transport; larger ones get `-32600`. Byte-stream transports
    /// also enforce their own limit while reading, so that an oversized
    /// line never sits in memory.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// What clients together may make the server hold, in bytes (default
    /// 512 MiB): requests read and waiting, requests running (their parsed
    /// form), tasks running (the request they came from), responses and
    /// notifications on their way out, and task records, whose share is
    /// [`TaskSettings::max_store_size`]. Each connection has a budget of
    /// its own inside it ([`connection_memory_limit`](Self::connection_memory_limit)).
    ///
    /// When the budget is full, a connection stops reading until requests
    /// finish (stdio, in-process), and the HTTP endpoint answers `503` with
    /// `Retry-After`. A single message larger than the budget still runs,
    /// alone; [`max_message_size`](Self::max_message_size) is what refuses
    /// messages for their size. Outgoing messages are charged without
    /// waiting, so the limit may be passed by what requests already
    /// running produce, never by what a client sends.
    pub fn memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// What the requests of one connection may hold, in bytes (default
    /// 64 MiB), inside the server's [`memory_limit`](Self::memory_limit):
    /// a connection that fills it stops reading until its requests finish,
    /// however much room the server has.
    pub fn connection_memory_limit(mut self, bytes: usize) -> Self {
        self.connection_memory_limit = bytes;
        self
    }

    /// The largest answer to an input request, in bytes of JSON (default
    /// 1 MiB), in `inputResponses` of a retry and of `tasks/update`;
    /// larger ones get `-32602`.
    pub fn max_answer_size(mut self, bytes: usize) -> Self {
        self.max_answer_size = bytes;
        self
    }

    /// How long requests still running when serving ends (the peer closed
    /// the connection, [`serve_until`](super::serve_until) was told to
    /// stop, or a signal) may take to finish (default
    /// [`CLOSE_DRAIN`](super::CLOSE_DRAIN), 30 s). After it, each request
    /// not yet answered is answered `-31003` "Server shutting down", whose
    /// `data.started` says whether it ran, and those answers get
    /// [`FINAL_WRITE`](super::FINAL_WRITE) (1 s) to be written; what a peer
    /// that never reads never took is then dropped, so it cannot keep the
    /// server from ending.
    pub fn drain_period(mut self, period: Duration) -> Self {
        self.drain_period = period;
        self
    }

    /// Serves `extension`: `server/discover` advertises its capability,
    /// requests reach its methods, and what it adds to tool entries and
    /// results is added. See [`extension`](super::extension) for the
    /// rules. To only advertise an extension, register an
    /// [`Advertised`](super::extension::Advertised).
    ///
    /// [`build`](Self::build) panics if the extension's identifier has no
    /// vendor prefix, another extension has it too, or one of its methods
    /// or notifications is the core's or another extension's.
    pub fn extension(mut self, extension: impl Extension) -> Self {
        self.extensions.push(Box::new(extension));
        self
    }

    /// Serves the skills of `library` (the Skills extension, see
    /// [`skills`](super::skills)): each file as a resource, `skills/list`,
    /// `skills/get` and `resources/directory/read`, advertised in
    /// `server/discover`. It is registered as any
    /// [`extension`](Self::extension) is, so [`build`](Self::build)
    /// panics if it is called twice, or if a resource of your own has the
    /// URI of a skill file. Feature `skills` (on by default).
    ///
    /// ```
    /// use presa_runtime::server::Server;
    /// use presa_runtime::server::skills::SkillLibrary;
    ///
    /// let library = SkillLibrary::from_files([(
    ///     "git-workflow/SKILL.md",
    ///     "---\nname: git-workflow\ndescription: Our Git conventions\n---\n# Branches\n",
    /// )])?;
    /// let server = Server::builder("docs", "1.0").skills(library).build();
    /// # drop(server);
    /// # Ok::<(), presa_runtime::server::skills::SkillLoadError>(())
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills(self, library: SkillLibrary) -> Self {
        self.extension(SkillsExtension::new(library))
    }

    /// Turns the Tasks extension on and advertises it in `server/discover`;
    /// it is registered as any [`extension`](Self::extension) is.
    /// Tools whose policy allows it then run as tasks for clients that
    /// declare the extension. See [`tasks`](super::tasks) for how tasks run.
    pub fn tasks(mut self, settings: TaskSettings) -> Self {
        self.tasks = Some(settings);
        self
    }

    /// Keeps tasks in `store` instead of this process's memory. Takes
    /// effect with [`ServerBuilder::tasks`].
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// What the model reads of an error a tool propagates with `?`: its
    /// text ([`ErrorDetails::Shown`], the default), or a generic message
    /// with the text sent to `tracing` ([`ErrorDetails::Masked`]). A
    /// [`ToolError::new`](super::ToolError::new) message is always shown,
    /// and an internal error never is.
    pub fn error_details(mut self, details: ErrorDetails) -> Self {
        self.error_details = details;
        self
    }

    /// Puts `layer` around every tool, prompt and resource the server
    /// runs, those added while it runs among them: a `tower::Layer` such
    /// as `tower::timeout::TimeoutLayer`, a `tower::ServiceBuilder` of
    /// several, or your own. The first call's layer is the outermost.
    /// See [`middleware`](super::middleware) for what a layer sees and
    /// how its errors reach the client.
    pub fn layer(mut self, layer: impl HandlerMiddleware) -> Self {
        self.layers = self.layers.with(layer);
        self
    }

    /// Finishes the server.
    ///
    /// # Panics
    ///
    /// If a tool runs only as a task (`task = "required"`) but tasks are
    /// not enabled, an entry needs application state (a `State<T>`
    /// parameter, say) that was not registered with
    /// [`ServerBuilder::state`], or two entries of a kind share a name (a
    /// URI, a template). The message names the entry. Also if the task
    /// store's share of memory is not less than the
    /// [`memory_limit`](Self::memory_limit). Also if an
    /// [`extension`](Self::extension) cannot be served: see there. Also if
    /// a tool links to an MCP Apps view (`_meta.ui.resourceUri`) that no
    /// resource serves, or its `_meta.ui` is not valid.
    pub fn build(mut self) -> Server {
        let registry = self
            .registry()
            .unwrap_or_else(|problem| panic!("{problem}"));
        if self.apps {
            self.extensions.push(Box::new(Apps));
        }
        let budget = self.request_budget();
        let engine = self.tasks.map(|settings| {
            let store = self
                .task_store
                .unwrap_or_else(|| Arc::new(InMemoryTaskStore::new()));
            Arc::new(TaskEngine::new(settings, store, self.max_answer_size))
        });
        if let Some(engine) = &engine {
            self.extensions
                .push(Box::new(Tasks::new(Arc::clone(engine))));
        }
        let extensions =
            Extensions::new(self.extensions).unwrap_or_else(|problem| panic!("{problem}"));
        let key = self.state_key.unwrap_or_else(random_bytes::<32>);
        let result_meta = Arc::new(ResultMeta {
            server_info: Some(self.info.clone()),
            ..Default::default()
        });
        Server::from_shared(Shared {
            info: self.info,
            instructions: self.instructions,
            registry,
            supported_versions: vec![PROTOCOL_VERSION.to_owned()],
            discover_ttl: self.discover_ttl,
            codec: StateCodec::new(key, self.state_ttl).verifying(self.verifying_state_keys),
            state: Arc::new(self.state),
            max_in_flight: self.max_in_flight,
            max_message_size: self.max_message_size,
            budget,
            connection_budget: self.connection_memory_limit,
            drain_period: self.drain_period,
            max_answer_bytes: self.max_answer_size,
            extensions,
            engine,
            result_meta,
            error_details: self.error_details,
            layers: self.layers.service(),
            scope_rules: ScopeRules::new(&self.scope_implies, self.listing)
                .with_visibility(self.visibility),
        })
    }

    /// The budget of requests: the memory limit, less the task store's
    /// share.
    fn request_budget(&self) -> Budget {
        let store = self
            .tasks
            .as_ref()
            .map_or(0, |settings| settings.limits.max_store_bytes);
        assert!(
            store < self.memory_limit,
            "the task store's share of memory ({store} bytes, TaskSettings::max_store_size) \
             must be less than the server's memory limit ({} bytes, \
             ServerBuilder::memory_limit)",
            self.memory_limit
        );
        Budget::new(self.memory_limit - store)
    }

    /// The registry of everything registered, each entry checked against
    /// the server being built, so that what cannot run here is found now
    /// rather than by its first caller.
    fn registry(&mut self) -> Result<Registry, RegistrationError> {
        let registry = Registry::new(self.lists);
        let server = Requirements {
            state: &self.state,
            tasks: self.tasks.is_some(),
        };
        // Resources first: a tool's MCP Apps view must be there already.
        for resource in self.resources.drain(..) {
            registry.add_resource(resource, &server)?;
        }
        for prompt in self.prompts.drain(..) {
            registry.add_prompt(prompt, &server)?;
        }
        for tool in self.tools.drain(..) {
            self.apps |= tool.ui.is_some();
            registry.add_tool(tool, &server)?;
        }
        for extension in &self.extensions {
            for resource in extension.resources() {
                registry.add_resource(RegisteredResource::shared(resource)?, &server)?;
            }
        }
        Ok(registry)
    }
}
