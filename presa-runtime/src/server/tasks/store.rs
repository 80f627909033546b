//! The [`TaskStore`] trait: where tasks live, and how their changes reach
//! whoever waits on them.
//!
//! The engine never touches task state directly. It creates a
//! [`TaskRecord`], reads it back, and describes every change as a
//! [`TaskChange`]; the store applies the change atomically with
//! [`TaskChange::apply`] and publishes the new record to every
//! [`watch`](TaskStore::watch)er. Parked `ctx.elicit` futures, the task
//! runner (which drops a cancelled handler) and `subscriptions/listen`
//! streams are all watchers, so a shared store (Redis, Postgres) that
//! publishes changes across processes makes all three work across
//! processes, with no change to the engine.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use futures::stream::BoxStream;
use serde_json::{Map, Value};

use crate::wire::{DetailedTask, ErrorObject, InputRequests, InputResponses, Task, TaskStatus};

/// Everything the server keeps about one task.
///
/// Answers stay in the record after they are used, so that a durable store
/// can resume a task after a restart by replaying its handler against them.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The unguessable id.
    pub id: String,
    /// The authenticated subject that created the task; only it may see it.
    pub owner: Option<String>,
    /// The current status.
    pub status: TaskStatus,
    /// The handler's note on the current status.
    pub status_message: Option<String>,
    /// When the task was created (wall clock, for the wire).
    pub created_at: SystemTime,
    /// When the task last changed.
    pub last_updated_at: SystemTime,
    /// How long after creation the task is kept; `None` for ever.
    pub ttl: Option<Duration>,
    /// The poll interval suggested to clients.
    pub poll_interval: Option<Duration>,
    /// Input requests not answered yet, by key.
    pub input_requests: InputRequests,
    /// Every answer received, by key.
    pub answers: InputResponses,
    /// Every key ever asked. An answered key is never asked again.
    pub asked: BTreeSet<String>,
    /// The final result, once `completed`.
    pub result: Option<Map<String, Value>>,
    /// The JSON-RPC error, once `failed`.
    pub error: Option<ErrorObject>,
    /// Increases with every change, so watchers can drop stale copies.
    pub version: u64,
}

impl TaskRecord {
    /// A new `working` task.
    pub fn new(
        id: String,
        owner: Option<String>,
        ttl: Option<Duration>,
        poll_interval: Option<Duration>,
    ) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl,
            poll_interval,
            input_requests: InputRequests::new(),
            answers: InputResponses::new(),
            asked: BTreeSet::new(),
            result: None,
            error: None,
            version: 0,
        }
    }

    /// The task's metadata as sent on the wire.
    pub fn to_task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_at),
            last_updated_at: iso8601(self.last_updated_at),
            ttl_ms: self.ttl.map(|ttl| ttl.as_millis() as u64),
            poll_interval_ms: self.poll_interval.map(|p| p.as_millis() as u64),
        }
    }

    /// The task with the payload of its status, as `tasks/get` returns it.
    pub fn to_detailed(&self) -> DetailedTask {
        DetailedTask {
            task: self.to_task(),
            input_requests: (self.status == TaskStatus::InputRequired)
                .then(|| self.input_requests.clone()),
            result: (self.status == TaskStatus::Completed)
                .then(|| self.result.clone().unwrap_or_default()),
            error: (self.status == TaskStatus::Failed)
                .then(|| self.error.clone())
                .flatten(),
        }
    }
}

/// ISO 8601 (RFC 3339) in UTC, to the millisecond.
fn iso8601(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

/// One change to a task. Terminal tasks accept none.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskChange {
    /// The handler asks for input: lists the requests whose keys are
    /// neither answered nor already listed, and moves the task to
    /// `input_required`. A key withdrawn unanswered is listed again: the
    /// handler is waiting for it, and `inputRequests` must show every
    /// request it waits for.
    RequestInput(InputRequests),
    /// `tasks/update`: keeps the answers to outstanding keys and ignores the
    /// rest; once nothing is outstanding the task is `working` again.
    Answer(InputResponses),
    /// The handler stopped waiting for these keys (it dropped their
    /// futures): they are no longer outstanding, and answers to them are
    /// ignored until they are asked again. With nothing left outstanding
    /// the task is `working`.
    Withdraw(Vec<String>),
    /// The handler's note on the current status.
    StatusMessage(Option<String>),
    /// The handler returned a result.
    Complete(Map<String, Value>),
    /// The handler failed with a JSON-RPC error.
    Fail(ErrorObject),
    /// `tasks/cancel`.
    Cancel,
}

impl TaskChange {
    /// Applies the change to `record`; returns whether anything changed.
    /// A change bumps `version` and `last_updated_at`.
    ///
    /// Every store applies changes through this function, so the rules of
    /// the state machine live in one place.
    pub fn apply(self, record: &mut TaskRecord) -> bool {
        if record.status.is_terminal() {
            return false;
        }
        let changed = match self {
            TaskChange::RequestInput(requests) => request_input(record, requests),
            TaskChange::Answer(answers) => answer(record, answers),
            TaskChange::Withdraw(keys) => withdraw(record, keys),
            TaskChange::StatusMessage(message) => {
                let changed = record.status_message != message;
                record.status_message = message;
                changed
            }
            TaskChange::Complete(result) => {
                finish(record, TaskStatus::Completed);
                record.result = Some(result);
                true
            }
            TaskChange::Fail(error) => {
                finish(record, TaskStatus::Failed);
                record.status_message = Some(format!("The tool failed: {}", error.message));
                record.error = Some(error);
                true
            }
            TaskChange::Cancel => {
                finish(record, TaskStatus::Cancelled);
                record.status_message = Some("Cancelled at the client's request".into());
                true
            }
        };
        if changed {
            record.version += 1;
            record.last_updated_at = SystemTime::now().max(record.last_updated_at);
        }
        changed
    }
}

fn request_input(record: &mut TaskRecord, requests: InputRequests) -> bool {
    let mut changed = false;
    for (key, request) in requests {
        record.asked.insert(key.clone());
        if record.answers.contains_key(&key) || record.input_requests.contains_key(&key) {
            continue;
        }
        record.input_requests.insert(key, request);
        changed = true;
    }
    if changed {
        record.status = TaskStatus::InputRequired;
    }
    changed
}

fn answer(record: &mut TaskRecord, answers: InputResponses) -> bool {
    let mut changed = false;
    for (key, answer) in answers {
        if record.input_requests.remove(&key).is_some() {
            record.answers.insert(key, answer);
            changed = true;
        }
    }
    if changed && record.input_requests.is_empty() {
        record.status = TaskStatus::Working;
    }
    changed
}

fn withdraw(record: &mut TaskRecord, keys: Vec<String>) -> bool {
    let before = record.input_requests.len();
    for key in keys {
        record.input_requests.remove(&key);
    }
    let changed = record.input_requests.len() != before;
    if changed && record.input_requests.is_empty() {
        record.status = TaskStatus::Working;
    }
    changed
}

fn finish(record: &mut TaskRecord, status: TaskStatus) {
    record.status = status;
    record.input_requests.clear();
}

/// The changes of one task: the current record first, then each new
/// version. It ends when the task is removed (expired). A watcher that
/// falls behind may skip versions, but always receives the latest.
pub type TaskWatch = BoxStream<'static, Arc<TaskRecord>>;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The store holds its maximum number of live tasks.
    #[error("the task store is full ({limit} live tasks)")]
    Full {
        /// The limit.
        limit: usize,
    },
    /// The backing store failed; the message is for the logs.
    #[error("task store failure: {0}")]
    Backend(String),
}

/// Where tasks live. [`InMemoryTaskStore`](super::InMemoryTaskStore) is
/// the default; implement this trait to keep tasks in a shared database.
///
/// A store must be linearizable per task: [`apply`](TaskStore::apply) is
/// an atomic read-modify-write, and watchers see versions in order.
/// Expired tasks must be invisible to every method even before they are
/// purged.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. Fails with [`StoreError::Full`] when `max_tasks`
    /// live tasks remain after purging the expired ones. When this returns,
    /// [`get`](TaskStore::get) must find the task.
    async fn create(&self, record: TaskRecord, max_tasks: usize) -> Result<(), StoreError>;

    /// The task, unless it is unknown or expired.
    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// Applies `change` with [`TaskChange::apply`], publishes the result to
    /// watchers if it changed anything, and returns the record as it now
    /// is; `None` if the task is unknown or expired.
    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// Follows the task's changes; `None` if it is unknown or expired.
    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError>;

    /// Removes expired tasks (ending their watches); returns how many.
    async fn purge_expired(&self) -> Result<usize, StoreError>;

    /// How many live (unexpired) tasks the store holds.
    async fn count(&self) -> Result<usize, StoreError>;
}

/// A shared store: several servers (or a server and its operator's tools)
/// can hold the same one.
#[async_trait]
impl<S: TaskStore + ?Sized> TaskStore for Arc<S> {
    async fn create(&self, record: TaskRecord, max_tasks: usize) -> Result<(), StoreError> {
        (**self).create(record, max_tasks).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).apply(id, change).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        (**self).watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        (**self).purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        (**self).count().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ElicitResult, InputRequest, InputResponse};
    use serde_json::json;

    fn record() -> TaskRecord {
        TaskRecord::new("t".into(), None, None, None)
    }

    fn requests(keys: &[&str]) -> InputRequests {
        keys.iter()
            .map(|k| (k.to_string(), InputRequest::ListRoots))
            .collect()
    }

    fn answers(keys: &[&str]) -> InputResponses {
        keys.iter()
            .map(|k| {
                let answer = InputResponse::Elicit(ElicitResult::accept(json!({})));
                (k.to_string(), answer)
            })
            .collect()
    }

    #[test]
    fn partial_answers_keep_the_task_waiting() {
        let mut task = record();
        assert!(TaskChange::RequestInput(requests(&["a", "b"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(TaskChange::Answer(answers(&["a", "zzz"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        assert!(!task.answers.contains_key("zzz"));
        assert!(TaskChange::Answer(answers(&["b"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::Working);
        assert_eq!(task.version, 3);
    }

    #[test]
    fn answered_and_unknown_keys_change_nothing() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"])).apply(&mut task);
        TaskChange::Answer(answers(&["a"])).apply(&mut task);
        let before = task.clone();
        assert!(!TaskChange::Answer(answers(&["a", "b"])).apply(&mut task));
        assert_eq!(task, before);
    }

    #[test]
    fn a_key_is_never_asked_twice() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"])).apply(&mut task);
        TaskChange::Answer(answers(&["a"])).apply(&mut task);
        assert!(!TaskChange::RequestInput(requests(&["a"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::Working);
    }

    #[test]
    fn withdrawn_keys_stop_being_outstanding_but_stay_asked() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a", "b"])).apply(&mut task);
        assert!(TaskChange::Withdraw(vec!["b".into(), "zzz".into()]).apply(&mut task));
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(TaskChange::Withdraw(vec!["a".into()]).apply(&mut task));
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.asked.contains("a") && task.asked.contains("b"));
        assert!(!TaskChange::Answer(answers(&["b"])).apply(&mut task));
    }

    #[test]
    fn a_withdrawn_key_asked_again_is_listed_again() {
        // A handler that gave up on `a` (a timeout) and then asks for it
        // again waits for it: the task must list it, or it parks forever.
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"])).apply(&mut task);
        TaskChange::Withdraw(vec!["a".into()]).apply(&mut task);
        assert!(TaskChange::RequestInput(requests(&["a"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(task.input_requests.contains_key("a"));
        assert!(TaskChange::Answer(answers(&["a"])).apply(&mut task));
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.answers.contains_key("a"));
    }

    #[test]
    fn terminal_tasks_accept_no_change() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"])).apply(&mut task);
        assert!(TaskChange::Cancel.apply(&mut task));
        assert!(task.input_requests.is_empty());
        for change in [
            TaskChange::Cancel,
            TaskChange::Complete(Map::new()),
            TaskChange::Answer(answers(&["a"])),
            TaskChange::StatusMessage(Some("x".into())),
        ] {
            assert!(!change.apply(&mut task));
        }
        assert_eq!(task.status, TaskStatus::Cancelled);
    }

    #[test]
    fn the_detailed_task_carries_only_its_status_payload() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"])).apply(&mut task);
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_some() && detailed.result.is_none());
        TaskChange::Complete(Map::new()).apply(&mut task);
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_none() && detailed.result.is_some());
        assert!(detailed.task.created_at.ends_with('Z'));
    }
}
