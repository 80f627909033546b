//! [`LegacyClient`]: the client's requests as a legacy server takes them,
//! the legacy side of the era seam (see `dispatch`), with discovery and
//! tools here, tasks in `tasks::legacy::follow` and listening in
//! `listen`; the interface itself at the end.

use super::discover::discover_result;
use super::tools::{LegacyCallParams, offers_tool_tasks, read_call};
use crate::client::api::await_options::AwaitOptions;
use crate::client::api::call::{CallStep, ToolCall};
use crate::client::api::client::{Client, every_page};
use crate::client::api::era_side::{Answer, EraSide};
use crate::client::api::subscription::Subscription;
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::protocol::{LegacySession, asks_for_task, parse_complete};
use crate::wire::legacy::tasks::TaskParams;
use crate::wire::{
    CallToolResult, DetailedTask, DiscoverResult, InputResponses, ListToolsResult, Method,
    PaginatedParams, SubscriptionFilter, TASKS_EXTENSION,
};

/// A client speaking to a legacy server, within its session.
pub(crate) struct LegacyClient<'a> {
    pub client: &'a Client,
    pub session: &'a LegacySession,
}

impl LegacyClient<'_> {
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

impl EraSide for LegacyClient<'_> {
    fn era(&self) -> Era {
        Era::Legacy
    }

    fn discover(&self) -> Answer<'_, DiscoverResult> {
        Box::pin(std::future::ready(Ok(LegacyClient::discover(self))))
    }

    fn list_tools_page(&self, cursor: Option<String>) -> Answer<'_, ListToolsResult> {
        Box::pin(LegacyClient::list_tools_page(self, cursor))
    }

    fn call_tool_step<'a>(&'a self, call: &'a ToolCall) -> Answer<'a, CallStep> {
        Box::pin(LegacyClient::call_tool_step(self, call))
    }

    fn get_task<'a>(&'a self, task_id: &'a str) -> Answer<'a, DetailedTask> {
        Box::pin(LegacyClient::get_task(self, task_id))
    }

    fn update_task<'a>(&'a self, _: &'a str, _: InputResponses) -> Answer<'a, ()> {
        Box::pin(std::future::ready(LegacyClient::update_task(self)))
    }

    fn cancel_task<'a>(&'a self, task_id: &'a str) -> Answer<'a, ()> {
        Box::pin(LegacyClient::cancel_task(self, task_id))
    }

    fn follow_task<'a>(
        &'a self,
        task_id: &'a str,
        options: &'a AwaitOptions,
    ) -> Answer<'a, CallToolResult> {
        Box::pin(LegacyClient::follow_task(self, task_id, options))
    }

    fn listen(&self, filter: SubscriptionFilter) -> Answer<'_, Subscription> {
        Box::pin(LegacyClient::listen(self, filter))
    }
}
