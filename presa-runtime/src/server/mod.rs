//! The server: a transport-agnostic core that turns one request into a
//! [`ResponseStream`].
//!
//! ```text
//!   transport ──frames──▶ connection ──Request──▶ Server::handle ──▶ ResponseStream
//!       ▲                     │ (one tokio task per request,                │
//!       └──────frames─────────┘  cancellation by id)          notifications, then one response
//! ```
//!
//! [`Server`] knows nothing of sockets or stdio; [`serve`] drives it over any
//! [`FrameChannel`](crate::transport::FrameChannel), one tokio task per request.
//! Because the 2026-07-28 protocol is stateless, every request is validated
//! on its own, in this order:
//!
//! 1. missing `_meta`, `protocolVersion` or `clientCapabilities` → `-32602`;
//! 2. unsupported protocol version → `-32022` with `{supported, requested}`;
//! 3. unknown or removed method (`initialize`, `ping`, …) → `-32601`;
//! 4. unknown tool → `-32602`;
//! 5. a capability the tool or its input requests need that the client did
//!    not declare → `-32021` with `requiredCapabilities`. (This check needs
//!    the tool, so it follows the lookups. A per-call task policy runs after
//!    the argument check, since it reads the typed arguments, so for such a
//!    tool bad arguments are reported before a missing Tasks declaration.)
//!
//! The `tasks/*` methods exist only on a server with tasks enabled, and
//! check the client's Tasks declaration (`-32021`) before anything else.
//! See [`tasks`] for the task engine.
//!
//! A legacy `initialize` is answered before any of these, with a message
//! naming the supported versions, since a legacy client shows it to its
//! user.

mod args;
mod connection;
mod context;
mod dispatch;
mod elicit;
mod error;
pub(crate) mod request_state;
mod stream;
pub mod tasks;
mod tool;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

pub use args::{ArgsParser, ArgumentError, ToolParam};
pub(crate) use connection::lock;
pub use connection::{CLOSE_DRAIN, Caller, MAX_SUBSCRIPTIONS, serve};
pub use context::{Context, InputFuture, RequestInfo, State};
pub use elicit::{Elicit, ElicitEnum, ElicitField, Elicitation};
pub use error::{InputRequired, ToolError};
pub use request_state::StateError;
pub use stream::ResponseStream;
pub use tasks::{InMemoryTaskStore, TaskSettings, TaskStore};
pub use tool::{BoxFuture, IntoToolResult, Json, PolicyFn, TaskPolicy, ToolHandler, ToolResult};

use context::StateMap;
use request_state::StateCodec;
use serde_json::Value;

use crate::wire::{Implementation, PROTOCOL_VERSION, Tool};

pub use crate::wire::TASKS_EXTENSION;

/// An MCP server. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

pub(crate) struct RegisteredTool {
    pub definition: Tool,
    pub arguments: args::ArgumentSchema,
    pub handler: Arc<dyn ToolHandler>,
}

pub(crate) struct ServerInner {
    pub info: Implementation,
    pub instructions: Option<String>,
    pub tools: Vec<RegisteredTool>,
    pub tool_index: HashMap<String, usize>,
    pub supported_versions: Vec<String>,
    pub page_size: usize,
    pub list_ttl: Duration,
    pub discover_ttl: Duration,
    pub state_codec: StateCodec,
    pub state: Arc<StateMap>,
    pub max_in_flight: usize,
    pub max_message_size: usize,
    pub extensions: BTreeMap<String, Value>,
    pub tasks: Option<tasks::TaskEngine>,
}

impl Server {
    /// Starts building a server called `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            tool_index: HashMap::new(),
            page_size: 100,
            list_ttl: Duration::from_secs(300),
            discover_ttl: Duration::from_secs(3600),
            state_key: None,
            state_ttl: Duration::from_secs(600),
            state: StateMap::default(),
            max_in_flight: 1024,
            max_message_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            extensions: BTreeMap::new(),
            tasks: None,
            task_store: None,
        }
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }
}

/// Configures a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<RegisteredTool>,
    tool_index: HashMap<String, usize>,
    page_size: usize,
    list_ttl: Duration,
    discover_ttl: Duration,
    state_key: Option<[u8; 32]>,
    state_ttl: Duration,
    state: StateMap,
    max_in_flight: usize,
    max_message_size: usize,
    extensions: BTreeMap<String, Value>,
    tasks: Option<TaskSettings>,
    task_store: Option<Arc<dyn TaskStore>>,
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
    /// `inputSchema` is not a valid JSON Schema.
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        let definition = tool.definition();
        let name = definition.name.clone();
        assert!(
            !self.tool_index.contains_key(&name),
            "tool `{name}` is registered twice"
        );
        let arguments = args::ArgumentSchema::compile(&definition.input_schema)
            .unwrap_or_else(|e| panic!("tool `{name}` has an invalid inputSchema: {e}"));
        self.tool_index.insert(name, self.tools.len());
        self.tools.push(RegisteredTool {
            definition,
            arguments,
            handler: Arc::new(tool),
        });
        self
    }

    /// Shares `value` with every tool, through a `State<T>` parameter or
    /// [`Context::state`]. One value per type.
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
        self.page_size = page_size.max(1);
        self
    }

    /// The `ttlMs` of `tools/list` results (default 5 minutes).
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
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
    /// [`MAX_SUBSCRIPTIONS`] of them.
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
    /// declare the extension. See [`tasks`] for how tasks run.
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

    /// Finishes the server.
    ///
    /// # Panics
    ///
    /// If a tool runs only as a task (`task = "required"`) but tasks are
    /// not enabled.
    pub fn build(mut self) -> Server {
        let key = self.state_key.unwrap_or_else(request_state::random_key);
        if self.tasks.is_none()
            && let Some(tool) = self
                .tools
                .iter()
                .find(|t| t.handler.static_task_policy() == Some(TaskPolicy::Required))
        {
            panic!(
                "tool `{}` runs only as a task, but tasks are not enabled; call ServerBuilder::tasks",
                tool.definition.name
            );
        }
        let tasks = self.tasks.map(|settings| {
            self.extensions.insert(
                TASKS_EXTENSION.to_owned(),
                Value::Object(Default::default()),
            );
            let store = self
                .task_store
                .unwrap_or_else(|| Arc::new(InMemoryTaskStore::new()));
            tasks::TaskEngine::new(settings, store)
        });
        Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                instructions: self.instructions,
                tools: self.tools,
                tool_index: self.tool_index,
                supported_versions: vec![PROTOCOL_VERSION.to_owned()],
                page_size: self.page_size,
                list_ttl: self.list_ttl,
                discover_ttl: self.discover_ttl,
                state_codec: StateCodec::new(key, self.state_ttl),
                state: Arc::new(self.state),
                max_in_flight: self.max_in_flight,
                max_message_size: self.max_message_size,
                extensions: self.extensions,
                tasks,
            }),
        }
    }
}
