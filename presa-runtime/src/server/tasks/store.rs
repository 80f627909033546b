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

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use futures::stream::BoxStream;
use litemap::LiteMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::lease::Lease;
use crate::server::core::reply::task_record_full;
use crate::wire::{
    ClientCapabilities, DetailedTask, ErrorObject, Implementation, InputRequest, InputRequests,
    InputResponse, Task, TaskStatus, json_len,
};

/// What every record costs besides its contents: ids, times, the status,
/// the map headers. Charged so that many small tasks still count.
pub const RECORD_OVERHEAD: usize = 512;

/// What a task keeps by input key, in order of key: a sorted vector, as a
/// task holds few keys, where a `BTreeMap` spends the room of eleven
/// entries on its first.
pub type Keyed<V> = LiteMap<String, V>;

/// Answers as a task keeps them, by key.
pub type StoredAnswers = Keyed<StoredAnswer>;

/// Input requests as a task keeps them, by key, until they are answered.
pub type StoredRequests = Keyed<StoredRequest>;

/// One input request, kept as JSON text: a form's schema parsed into maps
/// costs many times its text, and a parked task keeps its question until
/// the user answers, which may be never.
pub type StoredRequest = StoredJson<InputRequest>;

/// One answer, kept as the JSON text it arrived as: it is only parsed when
/// the handler reads it, costs exactly its length, and is what a durable
/// store writes out anyway.
pub type StoredAnswer = StoredJson<InputResponse>;

/// A completed task's result, kept as JSON text for the same reasons as
/// [`StoredAnswer`]: a parsed result costs many times its text (every JSON
/// object is a map with room for eleven entries), and a finished task is
/// read far less often than it is kept.
pub type StoredResult = StoredJson<Map<String, Value>>;

/// The call of a resumable tool's task, kept so that another server can
/// run the handler again (`#[tool(resumable)]`): the tool, its checked
/// arguments, and what the handler's context knew of the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumableCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments, as they passed the input schema.
    pub arguments: Map<String, Value>,
    /// The protocol version of the call.
    pub protocol_version: String,
    /// The capabilities the client declared on the call.
    pub client_capabilities: ClientCapabilities,
    /// The client's self-reported identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The authenticated subject of the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The authorization server that vouched for the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The scopes the caller held; `None` for every scope (the caller of
    /// a transport that trusts its peer, such as stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// The claims of the caller's token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<Map<String, Value>>,
}

/// A [`ResumableCall`], kept as JSON text.
pub type StoredCall = StoredJson<ResumableCall>;

/// A `T` kept as its JSON text, parsed back on demand.
pub struct StoredJson<T> {
    text: Box<RawValue>,
    of: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> StoredJson<T> {
    /// `value` as JSON text.
    pub fn new(value: &T) -> Self {
        let text =
            serde_json::value::to_raw_value(value).expect("a stored value always serializes");
        StoredJson {
            text,
            of: PhantomData,
        }
    }

    /// The value, parsed.
    pub fn parse(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.text.get())
    }
}

impl<T> StoredJson<T> {
    /// A value read back from a store that keeps the text.
    pub fn from_json(text: String) -> Result<Self, serde_json::Error> {
        let text = RawValue::from_string(text)?;
        Ok(StoredJson {
            text,
            of: PhantomData,
        })
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.text.get()
    }

    /// Its length in bytes: what the value weighs in its record.
    pub fn len(&self) -> usize {
        self.text.get().len()
    }

    /// Whether the text is empty (never, for a stored value).
    pub fn is_empty(&self) -> bool {
        self.text.get().is_empty()
    }
}

impl<T> Clone for StoredJson<T> {
    fn clone(&self) -> Self {
        StoredJson {
            text: self.text.clone(),
            of: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for StoredJson<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StoredJson").field(&self.text.get()).finish()
    }
}

impl<T> PartialEq for StoredJson<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text.get() == other.text.get()
    }
}

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
    /// Input requests not answered yet, by key, as JSON text.
    pub input_requests: StoredRequests,
    /// Every answer received, by key, as JSON text.
    pub answers: StoredAnswers,
    /// Every key ever asked. An answered key is never asked again.
    pub asked: Keyed<()>,
    /// The final result, once `completed`, as JSON text.
    pub result: Option<StoredResult>,
    /// The JSON-RPC error, once `failed`.
    pub error: Option<ErrorObject>,
    /// Increases with every change, so watchers can drop stale copies.
    pub version: u64,
    /// The call, for a resumable tool's task: what another server needs to
    /// run the handler again if this one dies.
    pub call: Option<StoredCall>,
    /// The tool whose call the task runs, so that its result can be shown
    /// as that tool's (a legacy peer's view depends on the tool's
    /// `outputSchema`). `None` in a record an older presa stored.
    pub tool: Option<Arc<str>>,
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
            input_requests: StoredRequests::new(),
            answers: StoredAnswers::new(),
            asked: Keyed::new(),
            result: None,
            error: None,
            version: 0,
            call: None,
            tool: None,
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

    /// The final result, parsed; `None` before the task completed. Text
    /// that does not parse (from a store that lost its integrity) reads as
    /// no result.
    pub fn result(&self) -> Option<Map<String, Value>> {
        self.result.as_ref()?.parse().ok()
    }

    /// The outstanding input requests, parsed. A request whose text does
    /// not parse (from a store that lost its integrity) is left out.
    pub fn requests(&self) -> InputRequests {
        self.input_requests
            .iter()
            .filter_map(|(key, request)| Some((key.clone(), request.parse().ok()?)))
            .collect()
    }

    /// The task with the payload of its status, as `tasks/get` returns it.
    pub fn to_detailed(&self) -> DetailedTask {
        DetailedTask {
            task: self.to_task(),
            input_requests: (self.status == TaskStatus::InputRequired).then(|| self.requests()),
            result: (self.status == TaskStatus::Completed)
                .then(|| self.result().unwrap_or_default()),
            error: (self.status == TaskStatus::Failed)
                .then(|| self.error.clone())
                .flatten(),
        }
    }

    /// What the record weighs, in bytes: [`RECORD_OVERHEAD`] plus the JSON
    /// length of everything of variable size in it. Limits on records and
    /// stores count this.
    pub fn weight(&self) -> usize {
        RECORD_OVERHEAD
            + self.id.len()
            + self.owner.as_ref().map_or(0, String::len)
            + self.status_message.as_ref().map_or(0, String::len)
            + texts_weight(&self.input_requests)
            + texts_weight(&self.answers)
            + self.asked.keys().map(String::len).sum::<usize>()
            + self.result.as_ref().map_or(0, StoredResult::len)
            + self.call.as_ref().map_or(0, StoredCall::len)
            + self.tool.as_ref().map_or(0, |tool| tool.len())
            + self.error.as_ref().map_or(0, json_len)
    }
}

fn texts_weight<T>(texts: &Keyed<StoredJson<T>>) -> usize {
    texts.iter().map(|(k, text)| k.len() + text.len()).sum()
}

fn requests_weight(requests: &InputRequests) -> usize {
    requests.iter().map(|(k, r)| k.len() + json_len(r)).sum()
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
    Answer(StoredAnswers),
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

/// Answers that would take a task's record past the room it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answers would take the task past the {room} bytes it may hold")]
pub struct AnswersTooLarge {
    /// The bytes the record may weigh.
    pub room: usize,
}

impl TaskChange {
    /// Applies the change to `record`; returns whether anything changed.
    /// A change bumps `version` and `last_updated_at`.
    ///
    /// `room` is what the record may weigh afterwards (see
    /// [`TaskRecord::weight`]): the record limit, or less when the store is
    /// nearly full. A change that needs more is not applied as it is:
    ///
    /// - answers are refused, with [`AnswersTooLarge`]: the client sent too
    ///   much, and the task goes on waiting;
    /// - input requests and a result fail the task instead, with a message
    ///   that says so: the tool made something the server cannot keep.
    ///
    /// Every store applies changes through this function, so the rules of
    /// the state machine live in one place.
    pub fn apply(self, record: &mut TaskRecord, room: usize) -> Result<bool, AnswersTooLarge> {
        if record.status.is_terminal() {
            return Ok(false);
        }
        let change = self.within(record, room)?;
        let changed = match change {
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
                record.result = Some(StoredResult::new(&result));
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
        Ok(changed)
    }

    /// The change itself when the record has room for what it adds;
    /// otherwise what the rules above make of it.
    fn within(self, record: &TaskRecord, room: usize) -> Result<TaskChange, AnswersTooLarge> {
        let added = match &self {
            TaskChange::RequestInput(requests) => {
                let new: InputRequests = requests
                    .iter()
                    .filter(|(k, _)| {
                        !record.answers.contains_key(*k) && !record.input_requests.contains_key(*k)
                    })
                    .map(|(k, r)| (k.clone(), r.clone()))
                    .collect();
                requests_weight(&new) + new.keys().map(String::len).sum::<usize>()
            }
            TaskChange::Answer(answers) => answers
                .iter()
                .filter(|(k, _)| record.input_requests.contains_key(*k))
                .map(|(k, a)| k.len() + a.len())
                .sum(),
            TaskChange::Complete(result) => json_len(result),
            _ => return Ok(self),
        };
        if added == 0 || record.weight() + added <= room {
            return Ok(self);
        }
        match self {
            TaskChange::Answer(_) => Err(AnswersTooLarge { room }),
            TaskChange::RequestInput(_) => Ok(TaskChange::Fail(task_record_full(
                "the tool's input requests",
                room,
            ))),
            _ => Ok(TaskChange::Fail(task_record_full(
                "the tool's result",
                room,
            ))),
        }
    }
}

fn request_input(record: &mut TaskRecord, requests: InputRequests) -> bool {
    let mut changed = false;
    for (key, request) in requests {
        record.asked.insert(key.clone(), ());
        if record.answers.contains_key(&key) || record.input_requests.contains_key(&key) {
            continue;
        }
        record.input_requests.insert(key, StoredJson::new(&request));
        changed = true;
    }
    if changed {
        record.status = TaskStatus::InputRequired;
    }
    changed
}

fn answer(record: &mut TaskRecord, answers: StoredAnswers) -> bool {
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

/// What a store may hold. The engine passes them with every call that can
/// make a store grow, so a store needs no settings of its own; they come
/// from [`TaskSettings`](super::TaskSettings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks kept, running and finished. At the cap, the task that
    /// finished first is evicted to make room; when every task runs, the
    /// new one is refused.
    pub max_tasks: usize,
    /// Running tasks of one subject. Anonymous callers share one quota.
    pub max_running_per_subject: usize,
    /// What one record may weigh ([`TaskRecord::weight`]).
    pub max_record_bytes: usize,
    /// What all records together may weigh. Finished tasks are evicted,
    /// oldest first, to make room.
    pub max_store_bytes: usize,
}

/// The changes of one task: the current record first, then each new
/// version. Nothing follows a terminal version, so a store may end the
/// watch there; it must end it when the task is removed (expired). A
/// watcher that falls behind may skip versions, but always receives the
/// latest.
pub type TaskWatch = BoxStream<'static, Arc<TaskRecord>>;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// Every one of the `limit` tasks the store keeps is running: there is
    /// no finished task to evict.
    #[error("the task store holds {limit} running tasks")]
    Full {
        /// [`TaskLimits::max_tasks`].
        limit: usize,
    },
    /// The task's owner already runs as many tasks as one subject may.
    #[error("the subject already runs {limit} tasks")]
    QuotaExceeded {
        /// [`TaskLimits::max_running_per_subject`].
        limit: usize,
    },
    /// Running tasks fill the store's bytes: there is no finished task to
    /// evict.
    #[error("running tasks fill the task store's {limit} bytes")]
    OutOfSpace {
        /// [`TaskLimits::max_store_bytes`].
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

/// Where tasks live. [`InMemoryTaskStore`](super::InMemoryTaskStore) is
/// the default; implement this trait to keep tasks in a shared database.
///
/// A store must be linearizable per task: [`apply`](TaskStore::apply) is
/// an atomic read-modify-write, and watchers see versions in order.
/// Expired tasks must be invisible to every method even before they are
/// purged. A store keeps to the [`TaskLimits`] it is given: it evicts
/// finished tasks, the one that finished first first, before it refuses
/// anything.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. Fails with [`StoreError::QuotaExceeded`] when its
    /// owner already runs `max_running_per_subject` tasks, and with
    /// [`StoreError::Full`] or [`StoreError::OutOfSpace`] when it does not
    /// fit even after evicting every finished task. When this returns,
    /// [`get`](TaskStore::get) must find the task.
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError>;

    /// The task, unless it is unknown or expired.
    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// Applies `change` with [`TaskChange::apply`], with the room the
    /// record has under `limits` (evicting finished tasks to make it),
    /// publishes the result to watchers if it changed anything, and
    /// returns the record as it now is; `None` if the task is unknown or
    /// expired.
    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError>;

    /// Follows the task's changes; `None` if it is unknown or expired.
    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError>;

    /// Removes expired tasks (ending their watches); returns how many.
    async fn purge_expired(&self) -> Result<usize, StoreError>;

    /// How many live (unexpired) tasks the store holds, running or not.
    async fn count(&self) -> Result<usize, StoreError>;

    /// Takes or renews `lease` on the running task `id`, following
    /// [`Lease::may_hold`] at `now`: `false` if another server holds a
    /// lease that has not lapsed, or the task is finished or unknown. A
    /// store without leases keeps this default, which grants every lease:
    /// it suits a store that only one server uses.
    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        let _ = (id, lease, now);
        Ok(true)
    }

    /// Up to `limit` running tasks whose lease has lapsed at `now`: tasks
    /// whose server stopped renewing it. A store without leases keeps this
    /// default, which finds none.
    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        let _ = (now, limit);
        Ok(Vec::new())
    }

    /// Up to `limit` live tasks of `owner`, in order of id, starting after
    /// the id `after`: a page of legacy `tasks/list`. A store that cannot
    /// list keeps this default, and `tasks/list` then fails with `-32603`.
    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError> {
        let _ = (owner, after, limit);
        Err(StoreError::Backend(
            "this task store does not list tasks".into(),
        ))
    }
}

/// A shared store: several servers (or a server and its operator's tools)
/// can hold the same one.
#[async_trait]
impl<S: TaskStore + ?Sized> TaskStore for Arc<S> {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        (**self).create(record, limits).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        (**self).apply(id, change, limits).await
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

    async fn hold(&self, id: &str, lease: &Lease, now: SystemTime) -> Result<bool, StoreError> {
        (**self).hold(id, lease, now).await
    }

    async fn lapsed(&self, now: SystemTime, limit: usize) -> Result<Vec<String>, StoreError> {
        (**self).lapsed(now, limit).await
    }

    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError> {
        (**self).list(owner, after, limit).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ElicitResult, InputRequest, InputResponse};
    use serde_json::json;

    const ROOM: usize = 1 << 20;

    fn record() -> TaskRecord {
        TaskRecord::new("t".into(), None, None, None)
    }

    #[test]
    fn a_completed_result_is_kept_as_text_and_read_back_whole() {
        let mut completed = record();
        let result = json!({"content": [{"type": "text", "text": "done"}], "isError": false});
        let Value::Object(result) = result else {
            unreachable!()
        };
        TaskChange::Complete(result.clone())
            .apply(&mut completed, ROOM)
            .unwrap();
        let stored = completed.result.as_ref().unwrap();
        assert_eq!(stored.len(), serde_json::to_string(&result).unwrap().len());
        assert_eq!(completed.result(), Some(result.clone()));
        assert_eq!(completed.to_detailed().result, Some(result));
    }

    #[test]
    fn a_stored_result_that_no_longer_parses_reads_as_none() {
        let mut damaged = record();
        damaged.status = TaskStatus::Completed;
        damaged.result = Some(StoredResult::from_json("[1, 2]".into()).unwrap());
        assert_eq!(damaged.result(), None);
        assert_eq!(damaged.to_detailed().result, Some(Map::new()));
        assert!(StoredResult::from_json("{not json".into()).is_err());
    }

    #[test]
    fn a_request_kept_as_text_reads_back_whole_and_weighs_its_text() {
        let mut task = record();
        let form = InputRequest::Elicit(crate::wire::ElicitRequestParams::Form {
            message: "Go ahead?".into(),
            requested_schema: json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
            }),
        });
        let asked = InputRequests::from([("confirm".to_owned(), form)]);
        let before = task.weight();
        TaskChange::RequestInput(asked.clone())
            .apply(&mut task, ROOM)
            .unwrap();
        assert_eq!(task.requests(), asked);
        assert_eq!(task.to_detailed().input_requests, Some(asked.clone()));
        assert_eq!(
            task.weight() - before,
            2 * "confirm".len() + json_len(&asked["confirm"])
        );
    }

    #[test]
    fn a_stored_request_that_no_longer_parses_is_left_out() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a", "b"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let damaged = StoredRequest::from_json("[1, 2]".into()).unwrap();
        task.input_requests.insert("a".into(), damaged);
        assert_eq!(task.requests().keys().collect::<Vec<_>>(), ["b"]);
    }

    fn requests(keys: &[&str]) -> InputRequests {
        keys.iter()
            .map(|k| (k.to_string(), InputRequest::ListRoots))
            .collect()
    }

    fn answers(keys: &[&str]) -> StoredAnswers {
        keys.iter()
            .map(|k| {
                let answer = InputResponse::Elicit(ElicitResult::accept(json!({})));
                (k.to_string(), StoredAnswer::new(&answer))
            })
            .collect()
    }

    #[test]
    fn partial_answers_keep_the_task_waiting() {
        let mut task = record();
        assert!(
            TaskChange::RequestInput(requests(&["a", "b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(
            TaskChange::Answer(answers(&["a", "zzz"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        assert!(!task.answers.contains_key("zzz"));
        assert!(
            TaskChange::Answer(answers(&["b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert_eq!(task.version, 3);
    }

    #[test]
    fn answered_and_unknown_keys_change_nothing() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Answer(answers(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let before = task.clone();
        assert!(
            !TaskChange::Answer(answers(&["a", "b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task, before);
    }

    #[test]
    fn a_key_is_never_asked_twice() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Answer(answers(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            !TaskChange::RequestInput(requests(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
    }

    #[test]
    fn withdrawn_keys_stop_being_outstanding_but_stay_asked() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a", "b"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            TaskChange::Withdraw(vec!["b".into(), "zzz".into()])
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(
            TaskChange::Withdraw(vec!["a".into()])
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.asked.contains_key("a") && task.asked.contains_key("b"));
        assert!(
            !TaskChange::Answer(answers(&["b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
    }

    #[test]
    fn a_withdrawn_key_asked_again_is_listed_again() {
        // A handler that gave up on `a` (a timeout) and then asks for it
        // again waits for it: the task must list it, or it parks forever.
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Withdraw(vec!["a".into()])
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            TaskChange::RequestInput(requests(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(task.input_requests.contains_key("a"));
        assert!(
            TaskChange::Answer(answers(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.answers.contains_key("a"));
    }

    #[test]
    fn terminal_tasks_accept_no_change() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(TaskChange::Cancel.apply(&mut task, ROOM).unwrap());
        assert!(task.input_requests.is_empty());
        for change in [
            TaskChange::Cancel,
            TaskChange::Complete(Map::new()),
            TaskChange::Answer(answers(&["a"])),
            TaskChange::StatusMessage(Some("x".into())),
        ] {
            assert!(!change.apply(&mut task, ROOM).unwrap());
        }
        assert_eq!(task.status, TaskStatus::Cancelled);
    }

    #[test]
    fn the_detailed_task_carries_only_its_status_payload() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_some() && detailed.result.is_none());
        TaskChange::Complete(Map::new())
            .apply(&mut task, ROOM)
            .unwrap();
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_none() && detailed.result.is_some());
        assert!(detailed.task.created_at.ends_with('Z'));
    }
}
