//! The client side of the Tasks extension: the one-step task requests,
//! listening to task states, and following a task to its end.
//!
//! [`Client::await_task`] keeps the state of one wait in a `Follower`: the
//! input keys it answered already, since the server shows a request on
//! every poll until it has taken the answer in. Listening only changes how
//! the follower learns of a new state; what it does with a state is the
//! same either way.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::Value;
use tokio::time::{Instant, sleep, sleep_until};

use super::api::Client;
use super::call::poll_interval;
use super::era::Era;
use super::error::ClientError;
use super::legacy_tasks::not_in_legacy;
use super::result::parse_complete;
use super::session_listen::listen_in_session;
use super::subscription::TaskSubscription;
use crate::wire::{
    CallToolResult, DetailedTask, EmptyResult, InputRequests, InputResponses, ListenParams, Method,
    SubscriptionFilter, TaskIdParams, TaskStatus, UpdateTaskParams,
};

/// How [`Client::await_task`] follows a task.
///
/// By default it polls `tasks/get` at the task's `pollIntervalMs` (after a
/// `tasks/update` too), or every second when the task suggests none; never
/// more often than every 10 ms nor less than hourly. It waits as long as
/// the task runs: set [`timeout`](AwaitOptions::timeout) to bound it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitOptions {
    listen: bool,
    fallback_poll: Duration,
    timeout: Option<Duration>,
}

impl Default for AwaitOptions {
    fn default() -> Self {
        AwaitOptions {
            listen: false,
            fallback_poll: Duration::from_secs(5),
            timeout: None,
        }
    }
}

impl AwaitOptions {
    /// Listens for `notifications/tasks` on a `subscriptions/listen` stream
    /// instead of polling, polling only every
    /// [`fallback_poll`](Self::fallback_poll) in case a notification is
    /// lost. Falls back to plain polling when the server refuses or ends the
    /// stream.
    pub fn listen(mut self, enabled: bool) -> Self {
        self.listen = enabled;
        self
    }

    /// While listening, poll `tasks/get` after this long without news
    /// (default 5 s), or after the task's `pollIntervalMs` if that is longer.
    pub fn fallback_poll(mut self, period: Duration) -> Self {
        self.fallback_poll = period;
        self
    }

    /// Gives up with [`ClientError::TaskTimeout`] after `limit`. The task
    /// keeps running on the server: await it again, or cancel it.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
}

impl Client {
    /// `tasks/get`: the task's current state, with the payload of its
    /// status (input requests, result or error). Of a legacy server it
    /// also fetches the outcome of an ended task with `tasks/result`; a
    /// legacy task that needs input shows no input requests, since the
    /// server sends them as requests of its own (answered by
    /// [`await_task`](Self::await_task)).
    pub async fn get_task(&self, task_id: impl AsRef<str>) -> Result<DetailedTask, ClientError> {
        let task_id = task_id.as_ref();
        if self.era().await? == Era::Legacy {
            return self.get_legacy_task(task_id).await;
        }
        let params = TaskIdParams {
            task_id: task_id.to_owned(),
        };
        let task: DetailedTask = self.request_complete(Method::TasksGet, &params).await?;
        if task.task.task_id != task_id {
            return Err(ClientError::InvalidResponse(format!(
                "tasks/get for task `{task_id}` returned task `{}`",
                task.task.task_id
            )));
        }
        Ok(task)
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
        if self.era().await? == Era::Legacy {
            return Err(not_in_legacy(
                Method::TasksUpdate.as_str(),
                "; a legacy server asks for a task's input with requests of its own, \
                 which await_task answers through the handlers",
            ));
        }
        let params = UpdateTaskParams {
            task_id: task_id.as_ref().to_owned(),
            input_responses,
        };
        let _: EmptyResult = self.request_complete(Method::TasksUpdate, &params).await?;
        Ok(())
    }

    /// `tasks/cancel`: asks the server to cancel the task. The server only
    /// acknowledges the request; the task may still finish otherwise.
    pub async fn cancel_task(&self, task_id: impl AsRef<str>) -> Result<(), ClientError> {
        if self.era().await? == Era::Legacy {
            return self.cancel_legacy_task(task_id.as_ref()).await;
        }
        let params = TaskIdParams {
            task_id: task_id.as_ref().to_owned(),
        };
        let _: EmptyResult = self.request_complete(Method::TasksCancel, &params).await?;
        Ok(())
    }

    /// Opens a `subscriptions/listen` stream of `notifications/tasks` for
    /// `task_ids`, and waits for the server's acknowledgement (within the
    /// request timeout, if one is set). The client must declare
    /// [`ClientBuilder::tasks`](super::ClientBuilder::tasks), or the server
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
        if let Some(session) = self.protocol().legacy_session().await? {
            let stream = listen_in_session(self.protocol(), &session, filter).await?;
            return Ok(stream.into());
        }
        let params = ListenParams {
            notifications: filter,
        };
        TaskSubscription::open(self.protocol(), &params).await
    }

    /// Follows a task to its end and returns its result.
    ///
    /// `task` is a [`TaskHandle`](super::TaskHandle) or a bare task id.
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
    /// server. [`AwaitOptions::listen`] has no effect there.
    pub async fn await_task(
        &self,
        task: impl AsRef<str>,
        options: AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        let task_id = task.as_ref();
        let follow = async {
            match self.era().await? {
                Era::Legacy => self.follow_legacy_task(task_id).await,
                Era::Modern => self.follow_task(task_id, &options).await,
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

    async fn follow_task(
        &self,
        task_id: &str,
        options: &AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        let mut follower = Follower {
            client: self,
            task_id,
            answered: HashSet::new(),
        };
        if options.listen
            && let Some(subscription) = follower.subscribe().await
            && let Some(result) = follower.listen(subscription, options.fallback_poll).await?
        {
            return Ok(result);
        }
        follower.poll().await
    }
}

/// One [`Client::await_task`] in progress.
struct Follower<'a> {
    client: &'a Client,
    task_id: &'a str,
    /// Input request keys already answered: the server shows a request on
    /// every poll until it has taken the answer in.
    answered: HashSet<String>,
}

/// Where a task stands after the client acted on one of its states.
enum Progress {
    Done(Box<CallToolResult>),
    /// Nothing to do but wait this long before looking again.
    Waiting(Duration),
}

impl Follower<'_> {
    async fn poll(&mut self) -> Result<CallToolResult, ClientError> {
        loop {
            let task = self.client.get_task(self.task_id).await?;
            match self.settle(task).await? {
                Progress::Done(result) => return Ok(*result),
                Progress::Waiting(interval) => sleep(interval).await,
            }
        }
    }

    /// A stream of the task's states, when the server agrees to send them.
    async fn subscribe(&self) -> Option<TaskSubscription> {
        let listening = self.client.listen_tasks(vec![self.task_id.to_owned()]);
        let subscription = listening
            .await
            .inspect_err(
                |e| tracing::debug!(task = self.task_id, error = %e, "cannot listen; polling"),
            )
            .ok()?;
        let agreed = subscription
            .acknowledged()
            .iter()
            .any(|t| t == self.task_id);
        if !agreed {
            tracing::debug!(
                task = self.task_id,
                "the server will not report on the task; polling"
            );
        }
        agreed.then_some(subscription)
    }

    /// Follows pushed states, polling after `fallback` without news;
    /// `None` when the stream ends before the task does.
    async fn listen(
        &mut self,
        mut subscription: TaskSubscription,
        fallback: Duration,
    ) -> Result<Option<CallToolResult>, ClientError> {
        let mut next_poll = Instant::now() + fallback;
        loop {
            let task = tokio::select! {
                pushed = subscription.next() => match pushed {
                    Some(task) if task.task.task_id == self.task_id => task,
                    Some(_) => continue,
                    None => {
                        let end = subscription.end();
                        tracing::debug!(task = self.task_id, ?end, "the stream ended; polling");
                        return Ok(None);
                    }
                },
                () = sleep_until(next_poll) => self.client.get_task(self.task_id).await?,
            };
            next_poll = Instant::now() + fallback.max(poll_interval(&task.task));
            if let Progress::Done(result) = self.settle(task).await? {
                return Ok(Some(*result));
            }
        }
    }

    /// Acts on one observed state.
    async fn settle(&mut self, task: DetailedTask) -> Result<Progress, ClientError> {
        let interval = poll_interval(&task.task);
        match task.task.status {
            TaskStatus::Working => Ok(Progress::Waiting(interval)),
            TaskStatus::InputRequired => {
                // After an update too, the next look waits for the interval:
                // the server may rate-limit faster polling.
                self.answer(task.input_requests.unwrap_or_default()).await?;
                Ok(Progress::Waiting(interval))
            }
            TaskStatus::Completed => completed(task).map(|result| Progress::Done(Box::new(result))),
            TaskStatus::Failed => Err(failed(task)),
            TaskStatus::Cancelled => Err(ClientError::TaskCancelled {
                task_id: task.task.task_id,
            }),
        }
    }

    /// Answers the requests not answered before.
    async fn answer(&mut self, mut requests: InputRequests) -> Result<(), ClientError> {
        requests.retain(|key, _| !self.answered.contains(key));
        if requests.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = requests.keys().cloned().collect();
        let responses = self
            .client
            .answer_task_input_requests(self.task_id, requests)
            .await?;
        self.client.update_task(self.task_id, responses).await?;
        self.answered.extend(keys);
        Ok(())
    }
}

fn completed(task: DetailedTask) -> Result<CallToolResult, ClientError> {
    let Some(result) = task.result else {
        return Err(ClientError::InvalidResponse(format!(
            "task `{}` completed without a result",
            task.task.task_id
        )));
    };
    // The task's result is the one `tools/call` would have answered with.
    let answered = format!("tasks/get (the result of task `{}`)", task.task.task_id);
    parse_complete(&answered, Value::Object(result))
}

fn failed(task: DetailedTask) -> ClientError {
    match task.error {
        Some(error) => ClientError::TaskFailed(error),
        None => ClientError::InvalidResponse(format!(
            "task `{}` failed without the JSON-RPC error it must carry (status message: {:?})",
            task.task.task_id, task.task.status_message
        )),
    }
}
