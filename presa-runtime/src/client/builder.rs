//! [`ClientBuilder`]: what the client declares, how it answers input, and
//! how long it waits.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use serde_json::{Map, Value};

use super::api::Client;
use super::connection::{Connection, NotificationHandler};
use super::era::Era;
use super::input::{Handlers, PendingInput, SamplingAnswer, boxed};
use super::link::ClientTransport;
use super::protocol::{Detection, Protocol, ProtocolSettings, Versions};
use crate::wire::{
    CreateMessageParams, ElicitRequestParams, ElicitResult, Implementation, LoggingLevel,
    Notification, PROTOCOL_VERSION, RequestMeta, Root, TASKS_EXTENSION,
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
    detection: Detection,
    /// The era probe's limit, when set with [`ClientBuilder::probe_timeout`].
    probe_timeout: Option<Duration>,
    on_notification: Option<NotificationHandler>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            info: Implementation::new("presa-client", env!("CARGO_PKG_VERSION")),
            handlers: Handlers::default(),
            extensions: BTreeMap::new(),
            versions: std::iter::once(PROTOCOL_VERSION)
                .chain(crate::wire::legacy::LEGACY_VERSIONS)
                .map(str::to_owned)
                .collect(),
            max_rounds: 10,
            log_level: None,
            request_timeout: None,
            detection: Detection::default(),
            probe_timeout: None,
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
    /// task id: see [`PendingInput`]. It answers with the model's
    /// [`CreateMessageResult`](crate::wire::CreateMessageResult), or, to
    /// be able to decline, with a `Result<CreateMessageResult,
    /// SamplingDeclined>` (see [`SamplingAnswer`], and
    /// [`SamplingDeclined`](super::SamplingDeclined) for what the server
    /// hears of a refusal in each era).
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingInput<CreateMessageParams>) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: SamplingAnswer,
    {
        self.handlers.sampling = Some(boxed(move |input| {
            handler(input).map(SamplingAnswer::into_answer)
        }));
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

    /// The protocol versions this client speaks, preferred first within
    /// each era: by default 2026-07-28, then the legacy 2025-11-25,
    /// 2025-06-18 and 2025-03-26. A list with legacy versions only speaks
    /// the legacy era without probing; one with modern versions only
    /// still probes, to fail clearly against a legacy server (see
    /// [`Client::era`]). An empty list keeps the default.
    pub fn protocol_versions(mut self, versions: Vec<String>) -> Self {
        if !versions.is_empty() {
            self.versions = versions;
        }
        self
    }

    /// Speaks `era` without asking the server which one it speaks: no
    /// `server/discover` probe before the first request. A legacy server
    /// then gets `initialize` first; a modern one gets each request as is.
    pub fn force_era(mut self, era: Era) -> Self {
        self.detection = Detection::Forced(era);
        self
    }

    /// How long the era probe (`server/discover`, before the first
    /// request) waits for an answer before taking the server for a legacy
    /// one that stays silent. The default is 10 s, or the
    /// [`request_timeout`](Self::request_timeout) when that is shorter.
    /// Raise it for a server that is slow to start. Has no effect with
    /// [`force_era`](Self::force_era).
    pub fn probe_timeout(mut self, limit: Duration) -> Self {
        self.probe_timeout = Some(limit);
        self
    }

    /// How many rounds of input one call may take (default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Gives up on a request (and cancels it on the server) when no answer
    /// arrives within `limit`. Each MRTR round is its own request. No limit
    /// by default. A legacy `tasks/result`, which waits for a task to end,
    /// is bounded by [`AwaitOptions::timeout`](super::AwaitOptions::timeout())
    /// instead.
    ///
    /// The era probe waits no longer than `limit` either, unless
    /// [`probe_timeout`](Self::probe_timeout) says otherwise: a server
    /// that stays silent that long is taken for a legacy one, and its
    /// `initialize` then has `limit` to answer.
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

    /// How the era is settled: forced, or probed for as long as
    /// [`probe_timeout`](Self::probe_timeout) says, else the default or
    /// the request timeout, whichever is shorter.
    fn detection(&self) -> Detection {
        match self.detection {
            Detection::Probe(default) => Detection::Probe(
                self.probe_timeout.unwrap_or(
                    self.request_timeout
                        .map_or(default, |limit| limit.min(default)),
                ),
            ),
            forced => forced,
        }
    }

    /// Connects over `transport`. Must be called inside a tokio runtime.
    pub fn connect(self, transport: impl Into<ClientTransport>) -> Client {
        let detection = self.detection();
        let mut capabilities = self.handlers.capabilities();
        if !self.extensions.is_empty() {
            capabilities.extensions = Some(self.extensions);
        }
        let versions = Versions::split(self.versions);
        let meta = RequestMeta {
            protocol_version: versions
                .modern
                .first()
                .map_or(PROTOCOL_VERSION, String::as_str)
                .to_owned(),
            client_capabilities: capabilities,
            client_info: Some(self.info),
            log_level: self.log_level,
            progress_token: None,
            other: Map::new(),
        };
        let handlers = Arc::new(self.handlers);
        let connection = Connection::open(transport.into(), self.on_notification);
        let settings = ProtocolSettings {
            meta,
            versions,
            request_timeout: self.request_timeout,
            detection,
            handlers: Arc::clone(&handlers),
        };
        Client::new(
            Protocol::new(connection, settings),
            handlers,
            self.max_rounds,
        )
    }
}
