//! [`Client`]: discovery, tools, and tool calls driven through their input
//! rounds (MRTR).
//!
//! A round that ends `input_required` is answered through the registered
//! handlers and retried under a new id, with the answers and the
//! byte-identical `requestState`, until the server answers with the result
//! or a task. A legacy server asks with requests of its own instead, so a
//! call to it takes one round (see `legacy`).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use super::call::{CallOutcome, CallStep, TaskHandle, ToolCall};
use super::era::Era;
use super::error::ClientError;
use super::handlers::Handlers;
use super::legacy::{
    LegacyCallParams, ToolTasks, asks_for_task, discover_result, offers_tool_tasks, read_call,
};
use super::protocol::{Protocol, Session};
use super::result::{ResultKind, parse_complete, parse_result, result_kind};
use crate::wire::legacy::tasks::TaskParams;
use crate::wire::{
    DiscoverResult, InputRequests, InputResponses, ListToolsResult, Method, TASKS_EXTENSION, Tool,
};

/// An MCP client. Cheap to clone; clones share the connection. Built with
/// [`Client::builder`].
#[derive(Clone)]
pub struct Client {
    protocol: Arc<Protocol>,
    handlers: Arc<Handlers>,
    /// How many input rounds one call may take.
    max_rounds: usize,
    /// Which tools a legacy server runs as tasks.
    tool_tasks: Arc<ToolTasks>,
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

impl<'a> From<&'a ToolCall> for CallParams<'a> {
    fn from(call: &'a ToolCall) -> Self {
        CallParams {
            name: &call.name,
            arguments: &call.arguments,
            input_responses: call.input_responses.as_ref(),
            request_state: call.request_state.as_deref(),
        }
    }
}

impl Client {
    pub(super) fn new(protocol: Protocol, handlers: Arc<Handlers>, max_rounds: usize) -> Self {
        Client {
            protocol: Arc::new(protocol),
            handlers,
            max_rounds,
            tool_tasks: Arc::default(),
        }
    }

    /// How the client speaks to the server, for the requests other files
    /// add to the client.
    pub(super) fn protocol(&self) -> &Arc<Protocol> {
        &self.protocol
    }

    /// The era of MCP the server speaks. The first request of a client
    /// settles it (by probing, unless
    /// [`ClientBuilder::force_era`](super::ClientBuilder::force_era) says),
    /// and the answer holds for the client's lifetime; calling this first
    /// only settles it sooner. Every method works in either era unless
    /// its documentation says otherwise.
    pub async fn era(&self) -> Result<Era, ClientError> {
        self.protocol.era().await
    }

    /// How many input rounds one request may take.
    pub(super) fn max_rounds(&self) -> usize {
        self.max_rounds
    }

    /// `server/discover`: the server's versions, capabilities and identity.
    /// A legacy server has no `server/discover`: the answer is what it said
    /// when the session opened (its one version, its capabilities, with
    /// task-augmented tool calls shown as the Tasks extension, its
    /// instructions and identity), not cacheable.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        match self.protocol.legacy_session().await? {
            Some(session) => Ok(discover_result(&session.server)),
            None => {
                self.request_complete(Method::ServerDiscover, &Map::new())
                    .await
            }
        }
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
        let method = Method::ToolsList.as_str();
        let page = self.request(method, &params).await?;
        self.tool_tasks.learn(&page);
        parse_complete(method, page)
    }

    /// Every tool, following `nextCursor` to the last page. A server that
    /// hands out a cursor twice is an error, not an endless loop.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let pages = every_page(Method::ToolsList, |cursor| async move {
            let page = self.list_tools_page(cursor).await?;
            Ok((page.items.tools, page.next_cursor))
        });
        pages.await
    }

    /// Calls tool `name` with `arguments` (a JSON object, or `null` for
    /// none), answering input requests through the registered handlers
    /// until the server answers with the result or, when the client
    /// declared [`ClientBuilder::tasks`](super::ClientBuilder::tasks), with
    /// a task.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallOutcome, ClientError> {
        let arguments = match arguments {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(ClientError::InvalidArguments(format!(
                    "tool arguments must be a JSON object (or null), not {other}"
                )));
            }
        };
        let mut call = ToolCall::new(name, arguments);
        for round in 0..=self.max_rounds {
            match self.call_tool_step(&call).await? {
                CallStep::Complete(result) => return Ok(CallOutcome::Complete(result)),
                CallStep::Task(task) => return Ok(CallOutcome::Task(task)),
                CallStep::InputRequired(_) if round == self.max_rounds => break,
                CallStep::InputRequired(input) => {
                    let requests = input.input_requests.unwrap_or_default();
                    call.input_responses = Some(self.answer_input_requests(requests).await?);
                    call.request_state = input.request_state;
                }
            }
        }
        Err(ClientError::TooManyRounds {
            max_rounds: self.max_rounds,
        })
    }

    /// Sends one round of a tool call. A task (`resultType: "task"`) is an
    /// invalid response unless the client declared
    /// [`ClientBuilder::tasks`](super::ClientBuilder::tasks).
    ///
    /// To a legacy server the round is the whole call: it asks for input
    /// with requests of its own, answered through the handlers while the
    /// call runs, so the step is never `InputRequired`, and
    /// `input_responses` and `request_state` are not sent.
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        if let Some(session) = self.protocol.legacy_session().await? {
            return self.call_legacy_tool(call, &session).await;
        }
        let method = Method::ToolsCall.as_str();
        let result = self.request(method, &CallParams::from(call)).await?;
        match result_kind(method, &result)? {
            ResultKind::Complete => Ok(CallStep::Complete(parse_result(result)?)),
            ResultKind::InputRequired => Ok(CallStep::InputRequired(parse_result(result)?)),
            ResultKind::Task if self.protocol.declares(TASKS_EXTENSION) => Ok(CallStep::Task(
                TaskHandle::from_created(parse_result(result)?),
            )),
            ResultKind::Task => Err(ClientError::InvalidResponse(
                "the server answered tools/call with a task, but this client did not declare \
                 the tasks extension (see ClientBuilder::tasks)"
                    .into(),
            )),
        }
    }

    /// One legacy `tools/call`, as a task when the tool allows one and the
    /// client declared tasks.
    async fn call_legacy_tool(
        &self,
        call: &ToolCall,
        session: &Session,
    ) -> Result<CallStep, ClientError> {
        let task = self
            .runs_as_task(&call.name, session)
            .await
            .then(TaskParams::default);
        let params = LegacyCallParams {
            name: &call.name,
            arguments: &call.arguments,
            task: task.as_ref(),
        };
        let result = self.request(Method::ToolsCall.as_str(), &params).await?;
        read_call(result, task.is_some())
    }

    /// Whether this client asks a legacy server to run tool `name` as a
    /// task; lists the tools first when it does not know the tool.
    async fn runs_as_task(&self, name: &str, session: &Session) -> bool {
        if !self.protocol.declares(TASKS_EXTENSION) || !offers_tool_tasks(&session.server) {
            return false;
        }
        if self.tool_tasks.support(name).is_none()
            && let Err(error) = self.list_tools().await
        {
            tracing::debug!(tool = name, %error, "cannot list the tools; calling without a task");
        }
        asks_for_task(self.tool_tasks.support(name))
    }

    /// Answers the input requests of a tool call's round through the
    /// registered handlers, each under its key. For the input requests of
    /// a task, use [`answer_task_input_requests`](Self::answer_task_input_requests).
    pub async fn answer_input_requests(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ClientError> {
        self.handlers.answer(requests, None).await
    }

    /// Answers the input requests of task `task_id` through the registered
    /// handlers, each under its key, telling each handler the task; send
    /// the answers with [`update_task`](Self::update_task).
    pub async fn answer_task_input_requests(
        &self,
        task_id: impl AsRef<str>,
        requests: InputRequests,
    ) -> Result<InputResponses, ClientError> {
        self.handlers.answer(requests, Some(task_id.as_ref())).await
    }

    /// Sends a request with the required `_meta` and returns its `result`
    /// as the server sent it, `resultType` and all: interpreting it is the
    /// caller's business. On `-32022` it retries once with a version both
    /// sides support. To a legacy server it goes without the modern
    /// `_meta`, within the session.
    pub async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        self.protocol.request(method, params).await
    }

    /// Sends `method`, which only ever completes, and parses its result;
    /// any other `resultType` is an invalid response.
    pub(super) async fn request_complete<P, T>(
        &self,
        method: Method,
        params: &P,
    ) -> Result<T, ClientError>
    where
        P: Serialize + ?Sized,
        T: serde::de::DeserializeOwned,
    {
        let method = method.as_str();
        parse_complete(method, self.request(method, params).await?)
    }

    /// Closes the connection. A spawned stdio server gets its stdin closed,
    /// then SIGTERM, then SIGKILL, as each grace period lapses (on Windows:
    /// stdin closed, then the process terminated).
    pub async fn close(self) -> std::io::Result<()> {
        self.protocol.close().await
    }
}

/// Every entry of a paginated list, following `nextCursor`; a server that
/// hands out a cursor twice is an error, not an endless loop.
pub(super) async fn every_page<T, F, Fut>(
    method: Method,
    mut page: F,
) -> Result<Vec<T>, ClientError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ClientError>>,
{
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    loop {
        let (more, next) = page(cursor).await?;
        entries.extend(more);
        match next {
            Some(next) if !seen.insert(next.clone()) => {
                return Err(ClientError::InvalidResponse(format!(
                    "{method} returned the cursor {next:?} twice"
                )));
            }
            Some(next) => cursor = Some(next),
            None => return Ok(entries),
        }
    }
}
