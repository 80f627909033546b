//! Discovery, tools, and tool calls driven through their input rounds
//! (MRTR).
//!
//! A round that ends `input_required` is answered through the registered
//! handlers and retried under a new id, with the answers and the
//! byte-identical `requestState`, until the server answers with the result
//! or a task. A legacy server asks with requests of its own instead, so a
//! call to it takes one round (see `legacy::tools`).

use serde_json::{Map, Value};

use super::call::{CallOutcome, CallStep, ToolCall};
use super::client::{Client, every_page};
use super::legacy::LegacyClient;
use super::modern::ModernClient;
use crate::client::connection::ServerEra;
use crate::client::error::ClientError;
use crate::wire::{DiscoverResult, ListToolsResult, Method, Tool};

impl Client {
    /// `server/discover`: the server's versions, capabilities and identity.
    /// A legacy server has no `server/discover`: the answer is what it said
    /// when the session opened (its one version, its capabilities, with
    /// task-augmented tool calls shown as the Tasks extension, its
    /// instructions and identity), not cacheable.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.discover().await,
            ServerEra::Legacy(session) => Ok(LegacyClient::new(self, &session).discover()),
        }
    }

    /// One page of `tools/list`.
    pub async fn list_tools_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, ClientError> {
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.list_tools_page(cursor).await,
            ServerEra::Legacy(session) => {
                LegacyClient::new(self, &session)
                    .list_tools_page(cursor)
                    .await
            }
        }
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
    /// declared [`ClientBuilder::tasks`](crate::client::ClientBuilder::tasks), with
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
        let max_rounds = self.max_rounds();
        for round in 0..=max_rounds {
            match self.call_tool_step(&call).await? {
                CallStep::Complete(result) => return Ok(CallOutcome::Complete(result)),
                CallStep::Task(task) => return Ok(CallOutcome::Task(task)),
                CallStep::InputRequired(_) if round == max_rounds => break,
                CallStep::InputRequired(input) => {
                    let requests = input.input_requests.unwrap_or_default();
                    call.input_responses = Some(self.answer_input_requests(requests).await?);
                    call.request_state = input.request_state;
                }
            }
        }
        Err(ClientError::TooManyRounds { max_rounds })
    }

    /// Sends one round of a tool call. A task (`resultType: "task"`) is an
    /// invalid response unless the client declared
    /// [`ClientBuilder::tasks`](crate::client::ClientBuilder::tasks).
    ///
    /// To a legacy server the round is the whole call: it asks for input
    /// with requests of its own, answered through the handlers while the
    /// call runs, so the step is never `InputRequired`, and
    /// `input_responses` and `request_state` are not sent.
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.call_tool_step(call).await,
            ServerEra::Legacy(session) => {
                LegacyClient::new(self, &session).call_tool_step(call).await
            }
        }
    }
}
