//! The Tasks methods of [`Client`]: the one-step task requests, listening
//! to task states, and following a task to its end, in either era (see
//! `follow` and `legacy::follow` for how each does it).

use crate::client::api::AwaitOptions;
use crate::client::api::{Client, LegacyClient, ModernClient, TaskSubscription};
use crate::client::connection::ServerEra;
use crate::client::error::ClientError;
use crate::wire::{CallToolResult, DetailedTask, InputResponses, SubscriptionFilter};

impl Client {
    /// `tasks/get`: the task's current state, with the payload of its
    /// status (input requests, result or error). Of a legacy server it
    /// also fetches the outcome of an ended task with `tasks/result`; a
    /// legacy task that needs input shows no input requests, since the
    /// server sends them as requests of its own (answered by
    /// [`await_task`](Self::await_task)).
    pub async fn get_task(&self, task_id: impl AsRef<str>) -> Result<DetailedTask, ClientError> {
        let task_id = task_id.as_ref();
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.get_task(task_id).await,
            ServerEra::Legacy(session) => LegacyClient::new(self, &session).get_task(task_id).await,
        }
    }

    /// `tasks/update`: answers some of the task's outstanding input
    /// requests, by key (see
    /// [`answer_task_input_requests`](Self::answer_task_input_requests)).
    /// The server may take the answers into account after it acknowledges
    /// them. A legacy server has no `tasks/update`: the answer is
    /// [`ClientError::NotInEra`].
    pub async fn update_task(
        &self,
        task_id: impl AsRef<str>,
        input_responses: InputResponses,
    ) -> Result<(), ClientError> {
        let task_id = task_id.as_ref();
        match self.server_era().await? {
            ServerEra::Modern { .. } => {
                let modern = ModernClient { client: self };
                modern.update_task(task_id, input_responses).await
            }
            ServerEra::Legacy(session) => LegacyClient::new(self, &session).update_task(),
        }
    }

    /// `tasks/cancel`: asks the server to cancel the task. The server only
    /// acknowledges the request; the task may still finish otherwise.
    pub async fn cancel_task(&self, task_id: impl AsRef<str>) -> Result<(), ClientError> {
        let task_id = task_id.as_ref();
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.cancel_task(task_id).await,
            ServerEra::Legacy(session) => {
                LegacyClient::new(self, &session).cancel_task(task_id).await
            }
        }
    }

    /// Opens a `subscriptions/listen` stream of `notifications/tasks` for
    /// `task_ids`, and waits for the server's acknowledgement (within the
    /// request timeout, if one is set). The client must declare
    /// [`ClientBuilder::tasks`](crate::client::ClientBuilder::tasks), or the server
    /// refuses with `-32021`. The stream stays open until the
    /// [`TaskSubscription`] is dropped or the server ends it. A legacy
    /// server sends task states (if at all) on its session: the stream
    /// takes them from there, without the outcome, until dropped.
    pub async fn listen_tasks(
        &self,
        task_ids: Vec<String>,
    ) -> Result<TaskSubscription, ClientError> {
        let filter = SubscriptionFilter {
            task_ids: Some(task_ids),
            ..Default::default()
        };
        Ok(self.listen(filter).await?.into())
    }

    /// Follows a task to its end and returns its result.
    ///
    /// `task` is a [`TaskHandle`](crate::client::TaskHandle) or a bare task id.
    /// Input the task asks for is answered through the registered handlers
    /// (each told the task id) and sent with
    /// `tasks/update`, each request key once however often the server shows
    /// it. A `completed` task gives its result (which may have `isError`);
    /// `failed` gives [`ClientError::TaskFailed`], `cancelled`
    /// [`ClientError::TaskCancelled`]. See [`AwaitOptions`] for how it
    /// polls or listens.
    ///
    /// A legacy task is polled until it needs input or ends; then
    /// `tasks/result` waits for its outcome while the server asks for the
    /// input with requests of its own, answered through the same handlers.
    /// A tool error comes back as the `isError` result, as from a modern
    /// server. [`AwaitOptions::listen`](AwaitOptions::listen()) has no
    /// effect there.
    pub async fn await_task(
        &self,
        task: impl AsRef<str>,
        options: AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        let task_id = task.as_ref();
        let follow = async {
            match self.server_era().await? {
                ServerEra::Modern { .. } => {
                    let modern = ModernClient { client: self };
                    modern.follow_task(task_id, &options).await
                }
                ServerEra::Legacy(session) => {
                    LegacyClient::new(self, &session)
                        .follow_task(task_id, &options)
                        .await
                }
            }
        };
        match options.timeout {
            None => follow.await,
            Some(limit) => tokio::time::timeout(limit, follow)
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::TaskTimeout {
                        task_id: task_id.to_owned(),
                        limit,
                    })
                }),
        }
    }
}
