//! The era seam: [`EraClient`], the client as the server's era has it
//! speak, with one implementation per era.
//!
//! Most methods mean the same in either era, and the protocol gives each
//! request the shape its era wants. The others (discovery, tool listing
//! and calls, tasks, listening) are done differently by a legacy server,
//! and each [`Client`] method of that kind is one delegation to
//! [`Client::era_client`]. The rules, in order:
//!
//! 1. the era is settled before the choice (by the first request of the
//!    client, or by this one), and the choice holds for the call;
//! 2. [`ModernClient`] speaks to a modern server, [`LegacyClient`] within
//!    a legacy server's session; both take and return the same types;
//! 3. a method the legacy era lacks (`tasks/update`) is
//!    [`ClientError::NotInEra`] there.

use super::api::Client;
use super::await_options::AwaitOptions;
use super::call::{CallStep, ToolCall};
use super::error::ClientError;
use super::legacy::client::LegacyClient;
use super::modern::client::ModernClient;
use super::protocol::Settled;
use super::subscription::Subscription;
use crate::wire::{
    CallToolResult, DetailedTask, DiscoverResult, InputResponses, ListToolsResult,
    SubscriptionFilter,
};

/// The client, as the server's era has it speak (rule 2).
pub(super) enum EraClient<'a> {
    /// A modern server.
    Modern(ModernClient<'a>),
    /// A legacy server, within its session.
    Legacy(LegacyClient<'a>),
}

impl Client {
    /// The client as the server's era has it speak, settling the era first
    /// if need be (rule 1).
    pub(super) async fn era_client(&self) -> Result<EraClient<'_>, ClientError> {
        Ok(match self.protocol().settled().await? {
            Settled::Modern => EraClient::Modern(ModernClient { client: self }),
            Settled::Legacy(session) => EraClient::Legacy(LegacyClient {
                client: self,
                session,
            }),
        })
    }
}

impl EraClient<'_> {
    /// `server/discover`, or what the legacy session's `initialize` said.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.discover().await,
            EraClient::Legacy(legacy) => Ok(legacy.discover()),
        }
    }

    /// One page of `tools/list`.
    pub async fn list_tools_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.list_tools_page(cursor).await,
            EraClient::Legacy(legacy) => legacy.list_tools_page(cursor).await,
        }
    }

    /// One round of a tool call; with a legacy server, the whole call.
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.call_tool_step(call).await,
            EraClient::Legacy(legacy) => legacy.call_tool_step(call).await,
        }
    }

    /// The task's state, with the payload of its status.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.get_task(task_id).await,
            EraClient::Legacy(legacy) => legacy.get_task(task_id).await,
        }
    }

    /// `tasks/update`, which only the modern era has (rule 3).
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: InputResponses,
    ) -> Result<(), ClientError> {
        match self {
            EraClient::Modern(modern) => modern.update_task(task_id, input_responses).await,
            EraClient::Legacy(legacy) => legacy.update_task(),
        }
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        match self {
            EraClient::Modern(modern) => modern.cancel_task(task_id).await,
            EraClient::Legacy(legacy) => legacy.cancel_task(task_id).await,
        }
    }

    /// Follows a task to its end, as `options` says where the era lets it.
    pub async fn follow_task(
        &self,
        task_id: &str,
        options: &AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.follow_task(task_id, options).await,
            EraClient::Legacy(legacy) => legacy.follow_task(task_id).await,
        }
    }

    /// A stream of what `filter` asks for: a `subscriptions/listen` stream,
    /// or what the legacy session sends.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        match self {
            EraClient::Modern(modern) => modern.listen(filter).await,
            EraClient::Legacy(legacy) => legacy.listen(filter).await,
        }
    }
}
