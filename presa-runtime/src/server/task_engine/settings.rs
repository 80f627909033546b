//! [`TaskSettings`]: how long tasks live, how often clients poll, and what
//! the server keeps of them.

use std::time::Duration;

use super::store::TaskLimits;

/// How the server runs tasks: [`ServerBuilder::tasks`](crate::server::ServerBuilder::tasks).
///
/// The defaults: a one-hour TTL; a 20 ms poll interval; 1 000 tasks kept,
/// running or finished, of which one subject may run 100 at once; records
/// of at most 4 MiB, 128 MiB for all of them; three re-asks of a key whose
/// answers do not parse; 16 listeners per task.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskSettings {
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) limits: TaskLimits,
    pub(crate) max_reasks: u32,
    pub(crate) max_listeners: usize,
    pub(crate) sweep_interval: Duration,
    pub(crate) lease: Option<Duration>,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Some(Duration::from_millis(3_600_000)),
            poll_interval: Duration::from_millis(20),
            limits: TaskLimits::default(),
            max_reasks: 3,
            max_listeners: 16,
            sweep_interval: Duration::from_secs(60),
            lease: None,
        }
    }
}

impl TaskSettings {
    /// How long a task is kept after its creation (`ttlMs`; at least one
    /// second, so that a client can read what it was just given); `None`
    /// keeps it until the process ends, or until it is evicted.
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl.map(|ttl| ttl.max(Duration::from_secs(1)));
        self
    }

    /// The `pollIntervalMs` suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many tasks the server keeps, running or finished (at least
    /// one). Finished tasks stay readable until their TTL ends, but never
    /// stand in the way of a new task: at the cap, the task that finished
    /// first is evicted. Only when every task kept is running is a new one
    /// refused: an `optional` tool then runs synchronously, and a
    /// `required` one fails with
    /// [`TOO_MANY_TASKS`](crate::wire::codes::TOO_MANY_TASKS).
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.limits.max_tasks = tasks.max(1);
        self
    }

    /// How many tasks one subject may run at once (at least one), so that
    /// one caller cannot take every task for itself. Anonymous callers
    /// share one quota: authenticate callers to keep them apart. Past it,
    /// the subject's calls behave as at [`max_tasks`](Self::max_tasks).
    pub fn max_tasks_per_subject(mut self, tasks: usize) -> Self {
        self.limits.max_running_per_subject = tasks.max(1);
        self
    }

    /// What one task's record may weigh, in bytes of JSON: its input
    /// requests, answers and result. Answers that would take it further
    /// are refused (`-32602`); a tool whose input requests or result would
    /// take it further fails the task with a message that says so.
    pub fn max_record_size(mut self, bytes: usize) -> Self {
        self.limits.max_record_bytes = bytes;
        self
    }

    /// What all task records together may weigh, in bytes of JSON. This is
    /// the tasks' share of the server's
    /// [`memory_limit`](crate::server::ServerBuilder::memory_limit), which
    /// must be larger. Finished tasks are evicted, the first to finish
    /// first, to make room.
    pub fn max_store_size(mut self, bytes: usize) -> Self {
        self.limits.max_store_bytes = bytes;
        self
    }

    /// How many times a key is asked again after an answer that does not
    /// parse (`confirm~2`, `confirm~3`, …) before the task fails with a
    /// message that says why.
    pub fn max_reasks(mut self, times: u32) -> Self {
        self.max_reasks = times;
        self
    }

    /// How many `subscriptions/listen` streams may follow one task at
    /// once; past it, a listen request naming the task fails with
    /// [`SERVER_BUSY`](crate::wire::codes::SERVER_BUSY).
    pub fn max_listeners_per_task(mut self, listeners: usize) -> Self {
        self.max_listeners = listeners;
        self
    }

    /// How often expired tasks are purged in the background (default one
    /// minute; at least one millisecond).
    pub fn sweep_interval(mut self, interval: Duration) -> Self {
        self.sweep_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Takes a lease of `length` on every task this server runs, and takes
    /// over the tasks whose lease lapsed: for servers that share a task
    /// store, so that a task whose server died does not stay running until
    /// its TTL (see [`Lease`](super::store::Lease)). The server renews its leases
    /// every third of `length` (at least 300 ms), and looks for lapsed ones
    /// every half `length` (or every
    /// [`sweep_interval`](Self::sweep_interval), if shorter). Off by default:
    /// a store that only one server uses needs none.
    pub fn lease(mut self, length: Duration) -> Self {
        self.lease = Some(length.max(Duration::from_millis(300)));
        self
    }

    /// How often the sweeper runs: the sweep interval, or half the lease
    /// when that is shorter.
    pub(crate) fn sweeper_period(&self) -> Duration {
        match self.lease {
            Some(lease) => self.sweep_interval.min(lease / 2),
            None => self.sweep_interval,
        }
    }
}
