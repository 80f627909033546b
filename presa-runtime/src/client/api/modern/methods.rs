//! [`ModernClient`]: the client's requests as a modern server takes them,
//! the modern arm of each method whose meaning differs by era (see
//! `api`), with discovery, tool calls and listening here, and tasks in
//! `tasks::requests` and `tasks::follow`.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::client::api::call::{CallStep, TaskHandle, ToolCall};
use crate::client::api::client::Client;
use crate::client::api::subscription::Subscription;
use crate::client::error::ClientError;
use crate::client::protocol::{ResultKind, parse_result, result_kind};
use crate::wire::{
    DiscoverResult, InputResponses, ListToolsResult, ListenParams, Method, PaginatedParams,
    SubscriptionFilter, TASKS_EXTENSION,
};

/// A client speaking to a modern server.
#[derive(Clone, Copy)]
pub(crate) struct ModernClient<'a> {
    pub client: &'a Client,
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

impl ModernClient<'_> {
    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        let params = Map::new();
        self.client
            .request_complete(Method::ServerDiscover, &params)
            .await
    }

    /// One page of `tools/list`.
    pub async fn list_tools_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, ClientError> {
        let params = PaginatedParams { cursor, meta: None };
        self.client
            .request_complete(Method::ToolsList, &params)
            .await
    }

    /// One round of a tool call; a task only for a client that declared
    /// the Tasks extension (rule 2).
    pub async fn call_tool_step(&self, call: &ToolCall) -> Result<CallStep, ClientError> {
        let method = Method::ToolsCall.as_str();
        let result = self.client.request(method, &CallParams::from(call)).await?;
        match result_kind(method, &result)? {
            ResultKind::Complete => Ok(CallStep::Complete(parse_result(result)?)),
            ResultKind::InputRequired => Ok(CallStep::InputRequired(parse_result(result)?)),
            ResultKind::Task if self.client.protocol().declares(TASKS_EXTENSION) => Ok(
                CallStep::Task(TaskHandle::from_created(parse_result(result)?)),
            ),
            ResultKind::Task => Err(ClientError::InvalidResponse(
                "the server answered tools/call with a task, but this client did not declare \
                 the tasks extension (see ClientBuilder::tasks)"
                    .into(),
            )),
        }
    }

    /// A `subscriptions/listen` stream for what `filter` asks.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let params = ListenParams {
            notifications: filter,
        };
        Subscription::open(self.client.protocol(), &params).await
    }
}
