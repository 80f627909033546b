//! [`EraSide`]: the client as one era has it speak, the interface that
//! `modern::methods` and `legacy::methods` each implement, and that
//! `dispatch` chooses between (its module docs give the rules).

use futures::future::BoxFuture;

use super::await_options::AwaitOptions;
use super::call::{CallStep, ToolCall};
use super::subscription::Subscription;
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::wire::{
    CallToolResult, DetailedTask, DiscoverResult, InputResponses, ListToolsResult,
    SubscriptionFilter,
};

/// What a method's answer comes to, later.
pub(crate) type Answer<'a, T> = BoxFuture<'a, Result<T, ClientError>>;

/// The client, as one era has it speak (rule 1).
pub(crate) trait EraSide: Send + Sync {
    /// The era this side speaks.
    fn era(&self) -> Era;

    /// `server/discover`, or what the legacy session's `initialize` said.
    fn discover(&self) -> Answer<'_, DiscoverResult>;

    /// One page of `tools/list`.
    fn list_tools_page(&self, cursor: Option<String>) -> Answer<'_, ListToolsResult>;

    /// One round of a tool call; with a legacy server, the whole call.
    fn call_tool_step<'a>(&'a self, call: &'a ToolCall) -> Answer<'a, CallStep>;

    /// The task's state, with the payload of its status.
    fn get_task<'a>(&'a self, task_id: &'a str) -> Answer<'a, DetailedTask>;

    /// `tasks/update`, which only the modern era has (rule 2).
    fn update_task<'a>(
        &'a self,
        task_id: &'a str,
        input_responses: InputResponses,
    ) -> Answer<'a, ()>;

    /// `tasks/cancel`.
    fn cancel_task<'a>(&'a self, task_id: &'a str) -> Answer<'a, ()>;

    /// Follows a task to its end, as `options` says where the era lets it.
    fn follow_task<'a>(
        &'a self,
        task_id: &'a str,
        options: &'a AwaitOptions,
    ) -> Answer<'a, CallToolResult>;

    /// A stream of what `filter` asks for: a `subscriptions/listen` stream,
    /// or what the legacy session sends.
    fn listen(&self, filter: SubscriptionFilter) -> Answer<'_, Subscription>;
}
