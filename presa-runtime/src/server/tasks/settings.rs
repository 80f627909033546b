//! [`TaskSettings`]: how long tasks live, how often clients poll, how many
//! a server keeps.

use std::time::Duration;

/// How the server runs tasks: [`ServerBuilder::tasks`](crate::server::ServerBuilder::tasks).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSettings {
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) max_tasks: usize,
    pub(crate) sweep_interval: Duration,
}

impl Default for TaskSettings {
    /// A one-hour TTL, a 20 ms poll interval and at most 1 000 live tasks.
    fn default() -> Self {
        TaskSettings {
            ttl: Some(Duration::from_millis(3_600_000)),
            poll_interval: Duration::from_millis(20),
            max_tasks: 1000,
            sweep_interval: Duration::from_secs(60),
        }
    }
}

impl TaskSettings {
    /// How long a task is kept after its creation (`ttlMs`; at least one
    /// second, so that a client can read what it was just given); `None`
    /// keeps it until the process ends.
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl.map(|ttl| ttl.max(Duration::from_secs(1)));
        self
    }

    /// The `pollIntervalMs` suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many live (unexpired) tasks the server keeps at most. At the cap,
    /// an `optional` tool runs synchronously and a `required` one fails
    /// with [`TOO_MANY_TASKS`](crate::wire::codes::TOO_MANY_TASKS).
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.max_tasks = tasks;
        self
    }

    /// How often expired tasks are purged in the background (default one
    /// minute; at least one millisecond).
    pub fn sweep_interval(mut self, interval: Duration) -> Self {
        self.sweep_interval = interval.max(Duration::from_millis(1));
        self
    }
}
