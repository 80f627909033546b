//! [`LegacyClient`]: the client's requests as a legacy server takes them,
//! the legacy arm of each method whose meaning differs by era (see
//! `api`), with discovery and tools here, tasks in
//! `tasks::legacy::follow` and listening in `listen`.

use super::discover::discover_result;
use super::tools::{LegacyCallParams, offers_tool_tasks, read_call};
use crate::client::api::call::{CallStep, ToolCall};
use crate::client::api::client::{Client, every_page};
use crate::client::connection::{LegacyServer, asks_for_task};
use crate::client::error::ClientError;
use crate::client::protocol::parse_complete;
use crate::wire::legacy::tasks::TaskParams;
use crate::wire::{DiscoverResult, ListToolsResult, Method, PaginatedParams, TASKS_EXTENSION};

/// A client speaking to a legacy server, within its session.
pub(crate) struct LegacyClient<'a> {
    pub client: &'a Client,
    /// The server, with the session open with it.
    pub session: &'a LegacyServer,
}

impl<'a> LegacyClient<'a> {
    /// `client`'s methods within the session open with `session`.
    pub fn new(client: &'a Client, session: &'a LegacyServer) -> Self {
        LegacyClient { client, session }
    }

    /// What the session's `InitializeResult` said, as `server/discover`
    /// would have said it.
    pub fn discover(&self) -> DiscoverResult {
        discover_result(&self.session.current().server)
    }

    /// One page of `tools/list`, which teaches the tools' task support
    /// (see `tools`).
    pub async fn list_tools_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, ClientError> {
        let method = Method::ToolsList.as_str();
        let params = PaginatedParams { cursor, meta: None };
        let page = self.client.request(method, &params).await?;
        self.session.tool_tasks.learn(&page);
        parse_complete(method, page)
    }

    /// One `tools/call`, the whole call: the server asks for input with
    /// requests of its own. A task when the tool allows one and the client
    /// declared tasks.
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        let task = self
            .runs_as_task(&call.name)
            .await
            .then(TaskParams::default);
        let params = LegacyCallParams {
            name: &call.name,
            arguments: &call.arguments,
            task: task.as_ref(),
        };
        let result = self
            .client
            .request(Method::ToolsCall.as_str(), &params)
            .await?;
        read_call(result, task.is_some())
    }

    /// Whether this client asks the server to run tool `name` as a task;
    /// lists the tools first when it does not know the tool.
    async fn runs_as_task(&self, name: &str) -> bool {
        let tool_tasks = &self.session.tool_tasks;
        let offered = offers_tool_tasks(&self.session.current().server);
        if !self.client.protocol().declares(TASKS_EXTENSION) || !offered {
            return false;
        }
        if tool_tasks.support(name).is_none()
            && let Err(error) = self.list_tools().await
        {
            tracing::debug!(tool = name, %error, "cannot list the tools; calling without a task");
        }
        asks_for_task(tool_tasks.support(name))
    }

    /// Every tool, which teaches each one's task support.
    async fn list_tools(&self) -> Result<(), ClientError> {
        let pages = every_page(Method::ToolsList, |cursor| async move {
            let page = self.list_tools_page(cursor).await?;
            Ok((page.items.tools, page.next_cursor))
        });
        pages.await.map(drop)
    }
}
