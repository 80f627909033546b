//! [`AwaitOptions`]: how [`Client::await_task`](crate::client::Client::await_task)
//! follows a task, in either era.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::wire::Task;

/// How [`Client::await_task`](crate::client::Client::await_task) follows a task.
///
/// By default it polls `tasks/get` at the task's `pollIntervalMs` (after a
/// `tasks/update` too), or every second when the task suggests none; never
/// more often than every 10 ms nor less than hourly. It waits as long as
/// the task runs: set [`timeout`](AwaitOptions::timeout()) to bound it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitOptions {
    pub(crate) listen: bool,
    pub(crate) fallback_poll: Duration,
    pub(crate) timeout: Option<Duration>,
    pub(crate) on_state: Option<StateObserver>,
}

/// What [`AwaitOptions::on_state`] calls. Two observers are equal when
/// they are the same function, so options stay comparable.
#[derive(Clone)]
pub(crate) struct StateObserver(Arc<dyn Fn(&Task) + Send + Sync>);

impl StateObserver {
    /// Shows `task` to the observer.
    pub(crate) fn observe(&self, task: &Task) {
        (self.0)(task);
    }
}

impl fmt::Debug for StateObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateObserver")
    }
}

impl PartialEq for StateObserver {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for StateObserver {}

impl Default for AwaitOptions {
    fn default() -> Self {
        AwaitOptions {
            listen: false,
            fallback_poll: Duration::from_secs(5),
            timeout: None,
            on_state: None,
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

    /// Gives up with [`ClientError::TaskTimeout`](crate::client::ClientError::TaskTimeout) after `limit`. The task
    /// keeps running on the server: await it again, or cancel it.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Calls `observer` with each state of the task the wait sees, polled
    /// or pushed, before acting on it: for a progress display of the
    /// task's status and status message. A legacy task is seen while it
    /// works; once it needs input or ends, `tasks/result` waits in one
    /// request and shows no further state.
    pub fn on_state(mut self, observer: impl Fn(&Task) + Send + Sync + 'static) -> Self {
        self.on_state = Some(StateObserver(Arc::new(observer)));
        self
    }

    /// Shows `task` to the observer, if there is one.
    pub(crate) fn observe(&self, task: &Task) {
        if let Some(observer) = &self.on_state {
            observer.observe(task);
        }
    }
}
