//! Following a modern task to its end: polling `tasks/get`, or listening
//! for `notifications/tasks` and polling only as a fallback.
//!
//! A `Follower` keeps the state of one wait: the input keys it answered
//! already, since the server shows a request on every poll until it has
//! taken the answer in. Listening only changes how the follower learns of
//! a new state; what it does with a state is the same either way.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::Value;
use tokio::time::{Instant, sleep, sleep_until};

use crate::client::api::AwaitOptions;
use crate::client::api::{ModernClient, TaskSubscription, poll_interval};
use crate::client::error::ClientError;
use crate::client::protocol::parse_complete;
use crate::wire::{CallToolResult, DetailedTask, InputRequests, SubscriptionFilter, TaskStatus};

impl ModernClient<'_> {
    /// Follows a task to its end, polling `tasks/get` or listening for
    /// its states as `options` says (rule 3).
    pub async fn follow_task(
        &self,
        task_id: &str,
        options: &AwaitOptions,
    ) -> Result<CallToolResult, ClientError> {
        let mut follower = Follower {
            client: *self,
            task_id,
            options,
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

/// One [`Client::await_task`](crate::client::Client::await_task) in progress.
struct Follower<'a> {
    client: ModernClient<'a>,
    task_id: &'a str,
    /// How to follow it, and whom to show each state.
    options: &'a AwaitOptions,
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
        let filter = SubscriptionFilter {
            task_ids: Some(vec![self.task_id.to_owned()]),
            ..Default::default()
        };
        let subscription = self
            .client
            .listen(filter)
            .await
            .map(TaskSubscription::from)
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
        self.options.observe(&task.task);
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

    /// Answers the requests not answered before. A declined sampling
    /// request ends the wait, once the other answers are sent: the task
    /// takes them in, and keeps asking for the one left out.
    async fn answer(&mut self, mut requests: InputRequests) -> Result<(), ClientError> {
        requests.retain(|key, _| !self.answered.contains(key));
        if requests.is_empty() {
            return Ok(());
        }
        let answered = self
            .client
            .client
            .answer_task_inputs(self.task_id, requests)
            .await?;
        if !answered.responses.is_empty() {
            let keys: Vec<String> = answered.responses.keys().cloned().collect();
            self.client
                .update_task(self.task_id, answered.responses)
                .await?;
            self.answered.extend(keys);
        }
        answered.declined.map_or(Ok(()), Err)
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
