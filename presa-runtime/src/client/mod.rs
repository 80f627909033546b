//! The client: the server's mirror image.
//!
//! A [`Client`] sends requests over any transport, each carrying the
//! `_meta` the stateless protocol requires, and correlates responses by id.
//! Its capabilities come from the handlers registered on the
//! [`ClientBuilder`]: register an elicitation handler and the client
//! declares `elicitation`, and so on.
//!
//! [`Client::call_tool`] drives Multi Round-Trip Requests to the end: each
//! `InputRequiredResult` is answered through the handlers and the call is
//! retried under a new id with the answers and the byte-identical
//! `requestState`. [`Client::call_tool_step`] does one round, for callers
//! that drive MRTR themselves.
//!
//! # Tasks
//!
//! With [`ClientBuilder::tasks`] the client declares the Tasks extension
//! (`io.modelcontextprotocol/tasks`), and the server may then answer a tool
//! call with a task instead of a result. [`Client::call_tool`] therefore
//! returns a [`CallOutcome`]: either the complete result or a
//! [`TaskHandle`]. [`CallOutcome::into_complete`] suits callers that expect
//! no task.
//!
//! [`Client::await_task`] follows a task to its end: it polls `tasks/get`,
//! answers each of the task's input requests once through the handlers with
//! `tasks/update`, and returns the final result, or
//! [`ClientError::TaskFailed`] / [`ClientError::TaskCancelled`]. With
//! [`AwaitOptions::listen`] it listens for `notifications/tasks` instead and
//! polls only rarely, as a fallback. It takes a bare task id, so a client
//! that persisted the id can resume after a restart.
//!
//! [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`]
//! each do one step, for callers that drive a task themselves;
//! [`Client::listen_tasks`] opens a [`TaskSubscription`] to the status
//! changes of chosen tasks.
//!
//! Dropping a request future before its answer arrives sends
//! `notifications/cancelled` for it, so `tokio::time::timeout` around a
//! call cancels it on the server too. Dropping a [`TaskSubscription`] ends
//! its `subscriptions/listen` request the same way.

mod error;
mod handlers;
mod subscription;
mod tasks;
mod transport;

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

pub use error::ClientError;
pub use subscription::TaskSubscription;
pub use tasks::{AwaitOptions, CallOutcome, TaskHandle};
pub use transport::ClientTransport;

use handlers::{Handlers, boxed};
use subscription::Subscriptions;

use crate::transport::{FrameSender, Inbound, StdioChild};
use crate::util::lock;
use crate::wire::{
    CallToolResult, CreateMessageParams, CreateMessageResult, DiscoverResult, ElicitRequestParams,
    ElicitResult, Implementation, InputRequiredResult, InputResponses, JSONRPC_VERSION,
    ListToolsResult, LoggingLevel, Message, Method, Notification, Outcome, PROTOCOL_VERSION,
    RequestId, RequestMeta, Response, ResultType, Root, TASKS_EXTENSION, Tool, codes,
    notifications,
};

/// Configures a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    handlers: Handlers,
    extensions: BTreeMap<String, Value>,
    versions: Vec<String>,
    max_rounds: usize,
    log_level: Option<LoggingLevel>,
    request_timeout: Option<Duration>,
    on_notification: Option<Arc<dyn Fn(Notification) + Send + Sync>>,
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

impl ClientBuilder {
    /// The `clientInfo` sent with every request.
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// Answers `elicitation/create` (and declares the `elicitation` capability).
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
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

    /// Answers `sampling/createMessage` (and declares `sampling`).
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.handlers.sampling = Some(boxed(handler));
        self
    }

    /// Answers `roots/list` (and declares `roots`).
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.handlers.roots = Some(boxed(move |()| handler()));
        self
    }

    /// Declares the Tasks extension (`io.modelcontextprotocol/tasks`) on
    /// every request, so the server may answer a tool call with a task; see
    /// [`CallOutcome`] and [`Client::await_task`]. Off by default.
    pub fn tasks(mut self, enabled: bool) -> Self {
        if enabled {
            self.extension(TASKS_EXTENSION, Value::Object(Map::new()))
        } else {
            self.extensions.remove(TASKS_EXTENSION);
            self
        }
    }

    /// Declares extension `id` with `settings` on every request.
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
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

    /// Receives every notification from the server (progress, log messages).
    pub fn on_notification(
        mut self,
        handler: impl Fn(Notification) + Send + Sync + 'static,
    ) -> Self {
        self.on_notification = Some(Arc::new(handler));
        self
    }

    /// Connects over `transport`. Must be called inside a tokio runtime.
    pub fn connect(self, transport: impl Into<ClientTransport>) -> Client {
        let ClientTransport { channel, child } = transport.into();
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        let subscriptions: Subscriptions = Arc::default();
        tokio::spawn(read_responses(
            channel.incoming,
            Routes {
                pending: Arc::clone(&pending),
                subscriptions: Arc::clone(&subscriptions),
                on_notification: self.on_notification.clone(),
            },
        ));
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
        Client {
            inner: Arc::new(Inner {
                outgoing: channel.outgoing,
                pending,
                subscriptions,
                next_id: AtomicI64::new(1),
                meta: Mutex::new(Arc::new(meta)),
                versions: self.versions,
                request_timeout: self.request_timeout,
                handlers: self.handlers,
                max_rounds: self.max_rounds,
                child: Mutex::new(child),
            }),
        }
    }
}

type Reply = Result<Response, ClientError>;
type Pending = Arc<Mutex<Option<HashMap<RequestId, oneshot::Sender<Reply>>>>>;

struct Inner {
    outgoing: FrameSender,
    pending: Pending,
    /// Open `subscriptions/listen` streams, by request id.
    subscriptions: Subscriptions,
    next_id: AtomicI64,
    /// The `_meta` every request carries; replaced when the version changes.
    meta: Mutex<Arc<RequestMeta>>,
    versions: Vec<String>,
    request_timeout: Option<Duration>,
    handlers: Handlers,
    max_rounds: usize,
    child: Mutex<Option<StdioChild>>,
}

/// An MCP client. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

/// One `tools/call` request, as [`Client::call_tool_step`] sends it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
    /// Answers to the previous round's input requests.
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, verbatim.
    pub request_state: Option<String>,
}

impl ToolCall {
    /// A first-round call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ToolCall {
            name: name.into(),
            arguments,
            ..Default::default()
        }
    }
}

/// The outcome of one round of a tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallStep {
    /// The final result.
    Complete(CallToolResult),
    /// The server needs input; answer it and call again.
    InputRequired(InputRequiredResult),
    /// The server made the call a task (only when the client declared
    /// [`ClientBuilder::tasks`]); follow it with [`Client::await_task`].
    Task(TaskHandle),
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// `server/discover`: the server's versions, capabilities and identity.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request_typed(Method::ServerDiscover.as_str(), &Map::new())
            .await
    }

    /// One page of `tools/list`.
    pub async fn list_tools_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, ClientError> {
        let mut params = Map::new();
        if let Some(cursor) = cursor {
            params.insert("cursor".into(), cursor.into());
        }
        self.request_typed(Method::ToolsList.as_str(), &params)
            .await
    }

    /// Every tool, following `nextCursor` to the last page. A server that
    /// hands out a cursor twice is an error, not an endless loop.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor = None;
        loop {
            let page = self.list_tools_page(cursor).await?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(ClientError::InvalidResponse(format!(
                        "tools/list returned the cursor {next:?} twice"
                    )));
                }
                Some(next) => cursor = Some(next),
                None => return Ok(tools),
            }
        }
    }

    /// Calls tool `name` with `arguments` (a JSON object, or `null` for
    /// none), answering input requests through the registered handlers
    /// until the server answers with the result or, when the client
    /// declared [`ClientBuilder::tasks`], with a task.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallOutcome, ClientError> {
        let arguments = match arguments {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => return Err(ClientError::InvalidArguments(other.to_string())),
        };
        let mut call = ToolCall::new(name, arguments);
        for round in 0..=self.inner.max_rounds {
            match self.call_tool_step(&call).await? {
                CallStep::Complete(result) => return Ok(CallOutcome::Complete(result)),
                CallStep::Task(task) => return Ok(CallOutcome::Task(task)),
                CallStep::InputRequired(_) if round == self.inner.max_rounds => break,
                CallStep::InputRequired(input) => {
                    let requests = input.input_requests.unwrap_or_default();
                    call.input_responses = Some(self.answer_input_requests(requests).await?);
                    call.request_state = input.request_state;
                }
            }
        }
        Err(ClientError::TooManyRounds {
            max_rounds: self.inner.max_rounds,
        })
    }

    /// Sends one round of a tool call. A task (`resultType: "task"`) is an
    /// invalid response unless the client declared [`ClientBuilder::tasks`].
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        let params = CallParams {
            name: &call.name,
            arguments: &call.arguments,
            input_responses: call.input_responses.as_ref(),
            request_state: call.request_state.as_deref(),
        };
        let result = self.request(Method::ToolsCall.as_str(), &params).await?;
        match result_type(&result)? {
            ResultType::Complete => Ok(CallStep::Complete(parse_result(result)?)),
            ResultType::InputRequired => Ok(CallStep::InputRequired(parse_result(result)?)),
            ResultType::Task if self.declares_tasks() => Ok(CallStep::Task(
                TaskHandle::from_created(parse_result(result)?),
            )),
            ResultType::Task => Err(ClientError::InvalidResponse(
                "the server answered tools/call with a task, but this client did not declare \
                 the tasks extension (see ClientBuilder::tasks)"
                    .into(),
            )),
            other => Err(ClientError::InvalidResponse(format!(
                "unexpected resultType `{}` for tools/call",
                other.as_str()
            ))),
        }
    }

    /// Answers input requests through the registered handlers.
    pub async fn answer_input_requests(
        &self,
        requests: crate::wire::InputRequests,
    ) -> Result<InputResponses, ClientError> {
        self.inner.handlers.answer(requests).await
    }

    /// Sends a request with the required `_meta` and returns its `result`.
    /// On `-32022` it retries once with a version both sides support.
    pub async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        match self.request_once(method, params).await {
            Err(ClientError::Rpc(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                self.adopt_version(&e)?;
                self.request_once(method, params).await
            }
            other => other,
        }
    }

    async fn request_typed<T: DeserializeOwned>(
        &self,
        method: &str,
        params: &Map<String, Value>,
    ) -> Result<T, ClientError> {
        parse_result(self.request(method, params).await?)
    }

    fn adopt_version(&self, error: &crate::wire::ErrorObject) -> Result<(), ClientError> {
        let supported: Vec<String> = error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or_default();
        let mut meta = lock(&self.inner.meta);
        let choice = self
            .inner
            .versions
            .iter()
            .find(|v| supported.contains(v) && **v != meta.protocol_version);
        match choice {
            Some(v) => {
                Arc::make_mut(&mut meta).protocol_version = v.clone();
                Ok(())
            }
            None => Err(ClientError::UnsupportedVersion {
                supported,
                ours: self.inner.versions.clone(),
            }),
        }
    }

    async fn request_once<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        let id = self.next_request_id();
        let rx = self.register(&id);
        let mut guard = CancelOnDrop {
            inner: &self.inner,
            id: Some(id.clone()),
        };
        self.send_request(&id, method, params).await?;
        let response = match self.inner.request_timeout {
            Some(limit) => tokio::time::timeout(limit, rx)
                .await
                .map_err(|_| ClientError::Timeout(limit))?,
            None => rx.await,
        };
        let response = response.map_err(|_| ClientError::Closed)??;
        guard.id = None;
        match response.outcome {
            Outcome::Result(result) => Ok(result),
            Outcome::Error(error) => Err(ClientError::Rpc(error)),
        }
    }

    fn next_request_id(&self) -> RequestId {
        RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Makes `id` wait for its response; register before sending.
    fn register(&self, id: &RequestId) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        match lock(&self.inner.pending).as_mut() {
            Some(map) => {
                map.insert(id.clone(), tx);
            }
            None => {
                let _ = tx.send(Err(ClientError::Closed));
            }
        }
        rx
    }

    /// Sends request `id` with the current `_meta` beside `params`.
    async fn send_request<P: Serialize + ?Sized>(
        &self,
        id: &RequestId,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let meta = Arc::clone(&lock(&self.inner.meta));
        let frame = OutgoingRequest {
            jsonrpc: JSONRPC_VERSION,
            id,
            method,
            params: WithMeta {
                params,
                meta: &meta,
            },
        }
        .to_line()?;
        self.inner
            .outgoing
            .send(frame)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Whether this client declares the Tasks extension on its requests.
    fn declares_tasks(&self) -> bool {
        lock(&self.inner.meta)
            .client_capabilities
            .has_extension(TASKS_EXTENSION)
    }

    /// Closes the connection. A spawned stdio server gets its stdin closed,
    /// then SIGTERM, then SIGKILL, as each grace period lapses.
    pub async fn close(self) -> std::io::Result<()> {
        let child = lock(&self.inner.child).take();
        if let Some(child) = child {
            child.shutdown().await?;
        }
        Ok(())
    }
}

/// A request as sent, borrowing its params instead of copying them.
#[derive(Serialize)]
struct OutgoingRequest<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: WithMeta<'a, P>,
}

impl<P: Serialize + ?Sized> OutgoingRequest<'_, P> {
    fn to_line(&self) -> Result<String, ClientError> {
        serde_json::to_string(self)
            .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))
    }
}

/// A method's params with the request `_meta` beside them.
#[derive(Serialize)]
struct WithMeta<'a, P: ?Sized> {
    #[serde(flatten)]
    params: &'a P,
    #[serde(rename = "_meta")]
    meta: &'a RequestMeta,
}

/// `tools/call` params, borrowed from a [`ToolCall`].
#[derive(Serialize)]
struct CallParams<'a> {
    name: &'a str,
    arguments: &'a Map<String, Value>,
    #[serde(rename = "inputResponses", skip_serializing_if = "Option::is_none")]
    input_responses: Option<&'a InputResponses>,
    #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
    request_state: Option<&'a str>,
}

/// Sends `notifications/cancelled` when a request is abandoned before its
/// response arrives.
struct CancelOnDrop<'a> {
    inner: &'a Inner,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            abandon(self.inner, id);
        }
    }
}

/// Forgets request `id` and tells the server to stop working on it.
fn abandon(inner: &Inner, id: RequestId) {
    // Already answered (or the connection is gone): nothing to cancel.
    if lock(&inner.pending)
        .as_mut()
        .and_then(|m| m.remove(&id))
        .is_none()
    {
        return;
    }
    let cancel = Notification::new(
        notifications::CANCELLED,
        notifications::CancelledParams {
            request_id: id,
            reason: Some("the client abandoned the request".into()),
        },
    );
    // On stdio the notification is the only way to cancel, so a full
    // channel must delay it, never lose it.
    inner
        .outgoing
        .send_detached(Message::Notification(cancel).to_line());
}

fn result_type(result: &Value) -> Result<ResultType, ClientError> {
    match result.get("resultType") {
        None => Ok(ResultType::Complete),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| ClientError::InvalidResponse("`resultType` must be a string".into())),
    }
}

fn parse_result<T: DeserializeOwned>(result: Value) -> Result<T, ClientError> {
    serde_json::from_value(result).map_err(|e| ClientError::InvalidResponse(e.to_string()))
}

/// Where the reader delivers what the server sends.
struct Routes {
    pending: Pending,
    subscriptions: Subscriptions,
    on_notification: Option<Arc<dyn Fn(Notification) + Send + Sync>>,
}

impl Routes {
    /// Wakes the request `response` answers; a `subscriptions/listen`
    /// response also ends that subscription's stream.
    fn response(&self, response: Response) {
        let Some(id) = response.id.clone() else {
            tracing::debug!("response with a null id");
            return;
        };
        lock(&self.subscriptions).remove(&id);
        match lock(&self.pending).as_mut().and_then(|m| m.remove(&id)) {
            Some(tx) => {
                let _ = tx.send(Ok(response));
            }
            None => tracing::debug!(%id, "response to no pending request"),
        }
    }

    /// Gives `notification` to its subscription, or to the handler.
    fn notification(&self, notification: Notification) {
        if let Some(notification) = subscription::route(&self.subscriptions, notification) {
            match &self.on_notification {
                Some(handler) => handler(notification),
                None => {
                    tracing::debug!(method = notification.method, "notification from the server")
                }
            }
        }
    }

    /// Fails every waiter: which request a discarded message answered is
    /// unknowable, and failing beats one hanging forever.
    fn fail_all(&self, error: ClientError) {
        for (_, waiter) in lock(&self.pending).iter_mut().flat_map(|m| m.drain()) {
            let _ = waiter.send(Err(error.clone()));
        }
    }
}

async fn read_responses(mut incoming: mpsc::Receiver<Inbound>, routes: Routes) {
    while let Some(inbound) = incoming.recv().await {
        let frame = match inbound {
            Inbound::Frame(frame) => frame,
            Inbound::Oversized { limit } => {
                tracing::warn!(limit, "discarded a server message over the size limit");
                routes.fail_all(ClientError::ResponseTooLarge { limit });
                continue;
            }
            Inbound::NotUtf8 => {
                tracing::warn!("discarded a server message that is not UTF-8");
                continue;
            }
        };
        match frame.parse::<Message>() {
            Ok(Message::Response(response)) => routes.response(response),
            Ok(Message::Notification(n)) => routes.notification(n),
            Ok(Message::Request(r)) => {
                tracing::warn!(
                    method = r.method,
                    "ignoring a request from the server; 2026-07-28 servers use MRTR"
                )
            }
            Err(e) => tracing::warn!(error = ?e, "unparseable message from the server"),
        }
    }
    // Dropping the senders wakes every waiter with `Closed` and ends every
    // subscription.
    lock(&routes.pending).take();
    lock(&routes.subscriptions).clear();
}
