//! [`ServerBuilder`]: configuring a [`Server`], with every check that can
//! be made before the first request made at [`ServerBuilder::build`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::catalog::ToolCatalog;
use super::error::ErrorDetails;
use super::request_state::{self, StateCodec};
use super::router::{Server, Shared};
use super::state::StateMap;
use super::tasks::{InMemoryTaskStore, TaskEngine, TaskSettings, TaskStore};
use super::tool::{TaskPolicy, ToolHandler, ToolPolicy};
use crate::wire::{Implementation, PROTOCOL_VERSION, ResultMeta, TASKS_EXTENSION};

impl Server {
    /// Starts building a server called `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            catalog: ToolCatalog::default(),
            discover_ttl: Duration::from_secs(3600),
            state_key: None,
            state_ttl: Duration::from_secs(600),
            state: StateMap::default(),
            max_in_flight: 1024,
            max_message_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            extensions: BTreeMap::new(),
            tasks: None,
            task_store: None,
            error_details: ErrorDetails::default(),
        }
    }
}

/// Configures a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    catalog: ToolCatalog,
    discover_ttl: Duration,
    state_key: Option<[u8; 32]>,
    state_ttl: Duration,
    state: StateMap,
    max_in_flight: usize,
    max_message_size: usize,
    extensions: BTreeMap<String, Value>,
    tasks: Option<TaskSettings>,
    task_store: Option<Arc<dyn TaskStore>>,
    error_details: ErrorDetails,
}

impl ServerBuilder {
    /// Guidance for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers a tool; `#[tool] async fn build` generates `BuildTool`.
    ///
    /// # Panics
    ///
    /// If a tool of the same name is already registered, or the tool's
    /// `inputSchema` or `outputSchema` is not a valid JSON Schema. The
    /// message names the tool.
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        if let Err(error) = self.catalog.register(tool) {
            panic!("{error}");
        }
        self
    }

    /// Shares `value` with every tool, through a `State<T>` parameter or
    /// [`Context::state`](super::Context::state). One value per type.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// The HMAC key that signs `requestState`. The default is random per
    /// process; set one shared key when several processes serve the same
    /// clients, so a retry may land on any of them.
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.state_key = Some(key);
        self
    }

    /// How long a `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How many tools one `tools/list` page holds (default 100, at least 1).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.catalog.page_size = page_size.max(1);
        self
    }

    /// The `ttlMs` of `tools/list` results (default 5 minutes).
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.catalog.list_ttl = ttl;
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

    /// Advertises extension `id` with `settings` in `server/discover`.
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Turns the Tasks extension on and advertises it in `server/discover`.
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

    /// Finishes the server.
    ///
    /// # Panics
    ///
    /// If a tool runs only as a task (`task = "required"`) but tasks are
    /// not enabled, or a tool needs application state (a `State<T>`
    /// parameter, say) that was not registered with
    /// [`ServerBuilder::state`]. The message names the tool.
    pub fn build(mut self) -> Server {
        if let Err(problem) = self.check_tools() {
            panic!("{problem}");
        }
        let engine = self.tasks.map(|settings| {
            self.extensions
                .insert(TASKS_EXTENSION.to_owned(), Value::Object(Map::new()));
            let store = self
                .task_store
                .unwrap_or_else(|| Arc::new(InMemoryTaskStore::new()));
            Arc::new(TaskEngine::new(settings, store))
        });
        let key = self.state_key.unwrap_or_else(request_state::random_key);
        let result_meta = ResultMeta {
            server_info: Some(self.info.clone()),
            ..Default::default()
        };
        Server::from_shared(Shared {
            info: self.info,
            instructions: self.instructions,
            catalog: self.catalog,
            supported_versions: vec![PROTOCOL_VERSION.to_owned()],
            discover_ttl: self.discover_ttl,
            codec: StateCodec::new(key, self.state_ttl),
            state: Arc::new(self.state),
            max_in_flight: self.max_in_flight,
            max_message_size: self.max_message_size,
            extensions: self.extensions,
            engine,
            result_meta,
            error_details: self.error_details,
        })
    }

    /// What makes a registered tool unable to run on this server, found
    /// here rather than by its first caller.
    fn check_tools(&self) -> Result<(), String> {
        for tool in self.catalog.iter() {
            if self.tasks.is_none() && tool.policy == ToolPolicy::Fixed(TaskPolicy::Required) {
                return Err(format!(
                    "tool `{}` runs only as a task, but tasks are not enabled; call \
                     ServerBuilder::tasks",
                    tool.name()
                ));
            }
            if let Some(missing) = tool
                .required_state
                .iter()
                .find(|t| !self.state.contains(**t))
            {
                return Err(format!(
                    "tool `{}` needs state of type `{}`, but none was registered; call \
                     ServerBuilder::state",
                    tool.name(),
                    missing.name()
                ));
            }
        }
        Ok(())
    }
}
