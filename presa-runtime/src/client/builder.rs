//! [`ClientBuilder`]: what the client declares, how it answers input, and
//! how long it waits.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::api::Client;
use super::connection::{Connection, ConnectionSettings};
use super::handlers::{Handlers, PendingInput, boxed};
use super::routing::NotificationHandler;
use super::transport::ClientTransport;
use crate::wire::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Implementation,
    LoggingLevel, Notification, PROTOCOL_VERSION, RequestMeta, Root, TASKS_EXTENSION,
};

/// Configures a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    handlers: Handlers,
    extensions: BTreeMap<String, Map<String, Value>>,
    versions: Vec<String>,
    max_rounds: usize,
    log_level: Option<LoggingLevel>,
    request_timeout: Option<Duration>,
    on_notification: Option<NotificationHandler>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            info: Implementation::new("presa-client", env!("CARGO_PKG_VERSION")),
            handlers: Handlers::default(),
            extensions: BTreeMap::new(),
            versions: vec![PROTOCOL_VERSION.to_owned()],
            max_rounds: 10,
            log_level: None,
            request_timeout: None,
            on_notification: None,
        }
    }
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}

impl ClientBuilder {
    /// The `clientInfo` sent with every request.
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// Answers `elicitation/create` (and declares the `elicitation`
    /// capability). The handler receives each request with its key and,
    /// inside a task, the task id: see [`PendingInput`].
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingInput<ElicitRequestParams>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.handlers.elicitation = Some(boxed(handler));
        self
    }

    /// Also declares URL-mode elicitation; the elicitation handler then
    /// receives [`ElicitRequestParams::Url`] requests too.
    pub fn url_elicitation(mut self, enabled: bool) -> Self {
        self.handlers.url_elicitation = enabled;
        self
    }

    /// Answers `sampling/createMessage` (and declares `sampling`). The
    /// handler receives each request with its key and, inside a task, the
    /// task id: see [`PendingInput`].
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingInput<CreateMessageParams>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.handlers.sampling = Some(boxed(handler));
        self
    }

    /// Answers `roots/list` (and declares `roots`). The request has no
    /// params, so the handler's [`PendingInput`] carries `()`: its key and,
    /// inside a task, the task id are what it can go by.
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingInput<()>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.handlers.roots = Some(boxed(handler));
        self
    }

    /// Declares the Tasks extension (`io.modelcontextprotocol/tasks`) on
    /// every request, so the server may answer a tool call with a task; see
    /// [`CallOutcome`](super::CallOutcome) and [`Client::await_task`]. Off
    /// by default.
    pub fn tasks(mut self, enabled: bool) -> Self {
        if enabled {
            self.extension(TASKS_EXTENSION, Map::new())
        } else {
            self.extensions.remove(TASKS_EXTENSION);
            self
        }
    }

    /// Declares extension `id` with its `settings` object (empty for none)
    /// on every request.
    pub fn extension(mut self, id: impl Into<String>, settings: Map<String, Value>) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// The protocol versions this client speaks, preferred first.
    pub fn protocol_versions(mut self, versions: Vec<String>) -> Self {
        if !versions.is_empty() {
            self.versions = versions;
        }
        self
    }

    /// How many rounds of input one call may take (default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Gives up on a request (and cancels it on the server) when no answer
    /// arrives within `limit`. Each MRTR round is its own request. No limit
    /// by default.
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = Some(limit);
        self
    }

    /// Asks the server for log messages at `level` and above, on every request.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Receives every notification from the server (progress, log
    /// messages) that no [`TaskSubscription`](super::TaskSubscription)
    /// takes.
    pub fn on_notification(
        mut self,
        handler: impl Fn(Notification) + Send + Sync + 'static,
    ) -> Self {
        self.on_notification = Some(Arc::new(handler));
        self
    }

    /// Connects over `transport`. Must be called inside a tokio runtime.
    pub fn connect(self, transport: impl Into<ClientTransport>) -> Client {
        let mut capabilities = self.handlers.capabilities();
        if !self.extensions.is_empty() {
            capabilities.extensions = Some(self.extensions);
        }
        let meta = RequestMeta {
            protocol_version: self.versions[0].clone(),
            client_capabilities: capabilities,
            client_info: Some(self.info),
            log_level: self.log_level,
            progress_token: None,
            other: Map::new(),
        };
        let settings = ConnectionSettings {
            meta,
            versions: self.versions,
            request_timeout: self.request_timeout,
            on_notification: self.on_notification,
        };
        let connection = Connection::open(transport.into(), settings);
        Client::new(connection, self.handlers, self.max_rounds)
    }
}
