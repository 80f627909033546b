//! The era seam: [`EraSide`], the client as one era has it speak, with
//! one implementation per era (`modern::methods` and `legacy::methods`),
//! and [`Client::era_client`], which chooses between them once per call.
//!
//! Most methods mean the same in either era, and the protocol gives each
//! request the shape its era wants. The others (discovery, tool listing
//! and calls, tasks, listening) are done differently by a legacy server;
//! they are this interface, and each [`Client`] method whose meaning
//! differs by era is one delegation to it. The rules, in order:
//!
//! 1. both sides take and return the same types, so that a `Client`
//!    method is one delegation, whatever the era;
//! 2. a method the legacy era lacks (`tasks/update`) is
//!    [`ClientError::NotInEra`] there;
//! 3. the era is settled before the choice (by the first request of the
//!    client, or by this one), and the choice holds for the call;
//! 4. `ModernClient` speaks to a modern server, `LegacyClient` within a
//!    legacy server's session.

use futures::future::BoxFuture;

use super::call::{CallStep, ToolCall};
use super::client::Client;
use super::legacy::LegacyClient;
use super::modern::ModernClient;
use super::subscription::Subscription;
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::protocol::Settlement;
use crate::client::tasks::AwaitOptions;
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

impl Client {
    /// The client as the server's era has it speak, settling the era first
    /// if need be (rule 3).
    pub(crate) async fn era_client(&self) -> Result<Box<dyn EraSide + '_>, ClientError> {
        Ok(match self.protocol().settled().await? {
            Settlement::Modern { .. } => Box::new(ModernClient { client: self }),
            Settlement::Legacy(session) => Box::new(LegacyClient {
                client: self,
                session,
            }),
        })
    }
}
