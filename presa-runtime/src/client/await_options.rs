//! [`AwaitOptions`]: how [`Client::await_task`](super::Client::await_task)
//! follows a task, in either era.

use std::time::Duration;

/// How [`Client::await_task`](super::Client::await_task) follows a task.
///
/// By default it polls `tasks/get` at the task's `pollIntervalMs` (after a
/// `tasks/update` too), or every second when the task suggests none; never
/// more often than every 10 ms nor less than hourly. It waits as long as
/// the task runs: set [`timeout`](AwaitOptions::timeout()) to bound it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitOptions {
    pub(super) listen: bool,
    pub(super) fallback_poll: Duration,
    pub(super) timeout: Option<Duration>,
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
    /// [`fallback_poll`](Self::fallback_poll()) in case a notification is
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

    /// Gives up with [`ClientError::TaskTimeout`](super::ClientError::TaskTimeout) after `limit`. The task
    /// keeps running on the server: await it again, or cancel it.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
}
