//! The Tasks methods of [`Client`]: the one-step task requests, listening
//! to task states, and following a task to its end, in either era (see
//! `follow` and `legacy::follow` for how each does it).

use crate::client::api::AwaitOptions;
use crate::client::api::{Client, TaskSubscription};
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
        self.era_client().await?.get_task(task_id.as_ref()).await
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
        let era = self.era_client().await?;
        era.update_task(task_id.as_ref(), input_responses).await
    }

    /// `tasks/cancel`: asks the server to cancel the task. The server only
    /// acknowledges the request; the task may still finish otherwise.
    pub async fn cancel_task(&self, task_id: impl AsRef<str>) -> Result<(), ClientError> {
        self.era_client().await?.cancel_task(task_id.as_ref()).await
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
        let stream = self.era_client().await?.listen(filter).await?;
        Ok(stream.into())
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
            let era = self.era_client().await?;
            era.follow_task(task_id, &options).await
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
