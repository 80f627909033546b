//! [`StoreError`]: why a store operation failed, in the few cases the
//! engine answers differently: a limit (the task runs synchronously when
//! its tool allows, or the call is refused), answers too large for their
//! task (`-32602`), and a backend that failed (`-31002`, "task store
//! unavailable", which a client may retry).

use super::change::AnswersTooLarge;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Every one of the `limit` tasks the store keeps is running: there is
    /// no finished task to evict.
    #[error("the task store holds {limit} running tasks")]
    Full {
        /// [`TaskLimits::max_tasks`](super::TaskLimits::max_tasks).
        limit: usize,
    },
    /// The task's owner already runs as many tasks as one subject may.
    #[error("the subject already runs {limit} tasks")]
    QuotaExceeded {
        /// [`TaskLimits::max_running_per_subject`](super::TaskLimits::max_running_per_subject).
        limit: usize,
    },
    /// Running tasks fill the store's bytes: there is no finished task to
    /// evict.
    #[error("running tasks fill the task store's {limit} bytes")]
    OutOfSpace {
        /// [`TaskLimits::max_store_bytes`](super::TaskLimits::max_store_bytes).
        limit: usize,
    },
    /// Answers that do not fit the task's record.
    #[error(transparent)]
    AnswersTooLarge(#[from] AnswersTooLarge),
    /// The backing store failed (unreachable, timed out): the client's
    /// request fails with `-31002`, "task store unavailable", and a retry
    /// may succeed. The message is for the logs only.
    #[error("task store failure: {0}")]
    Backend(String),
}
