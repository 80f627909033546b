//! [`TaskRecord`]: everything the server keeps about one task, and what it
//! weighs.
//!
//! The rules of a record, in order:
//!
//! 1. **A record is made once**, `working`, by [`TaskRecord::new`] (with
//!    the answers and the call it came with), and from then on changed
//!    only by [`TaskChange::apply`](super::TaskChange::apply): a store
//!    keeps it and hands it back, but never edits it itself. So its
//!    fields are read through accessors, and a store that persists it
//!    writes its JSON form (it is `Serialize` and `Deserialize`: see the
//!    `json` module) rather than its fields.
//! 2. **Answers stay after they are used**, so that a task whose server
//!    died can be resumed elsewhere by replaying its handler against them.
//! 3. **Every change bumps [`version`](TaskRecord::version)**, so a
//!    watcher drops copies older than one it has seen.
//! 4. **A record is weighed** ([`TaskRecord::weight`]): the JSON length of
//!    what varies, plus [`RECORD_OVERHEAD`]. The limits on one record and
//!    on a whole store count this, so every store counts the same.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};

use super::by_input_key::ByInputKey;
use super::call::StoredCall;
use super::stored::{StoredAnswers, StoredJson, StoredRequests, StoredResult};
use crate::wire::{DetailedTask, ErrorObject, InputRequests, Task, TaskStatus, json_len};

/// What every record costs besides its contents: ids, times, the status,
/// the map headers. Charged so that many small tasks still count.
pub const RECORD_OVERHEAD: usize = 512;

/// Everything the server keeps about one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    pub(crate) id: Arc<str>,
    pub(crate) owner: Option<String>,
    pub(crate) status: TaskStatus,
    /// A `Box<str>`: a `String`'s capacity word is room every record
    /// would keep for growth a message never has.
    pub(crate) status_message: Option<Box<str>>,
    pub(crate) created_at: SystemTime,
    pub(crate) last_updated_at: SystemTime,
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Option<Duration>,
    pub(crate) input_requests: StoredRequests,
    pub(crate) answers: StoredAnswers,
    pub(crate) asked: ByInputKey<()>,
    pub(crate) result: Option<StoredResult>,
    pub(crate) version: u64,
    pub(crate) call: Option<StoredCall>,
    pub(crate) tool: Option<Arc<str>>,
    /// The error and the trace context, which few records hold: boxed
    /// together, so that a record without them keeps one word for both.
    pub(crate) seldom: Option<Box<Seldom>>,
}

/// The fields of a [`TaskRecord`] that few records hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Seldom {
    /// The error of a failed task.
    pub error: Option<ErrorObject>,
    /// The W3C `traceparent` of the request that created the task, when
    /// telemetry is on: later spans of the task link to it.
    pub trace_parent: Option<Box<str>>,
}

impl TaskRecord {
    /// A new `working` task: `id` (unguessable), the subject that owns it,
    /// how long it is kept after creation (`None` for ever), and the poll
    /// interval suggested to clients.
    pub fn new(
        id: String,
        owner: Option<String>,
        ttl: Option<Duration>,
        poll_interval: Option<Duration>,
    ) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id: id.into(),
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl,
            poll_interval,
            input_requests: StoredRequests::new(),
            answers: StoredAnswers::new(),
            asked: ByInputKey::new(),
            result: None,
            version: 0,
            call: None,
            tool: None,
            seldom: None,
        }
    }

    /// The task with the answers its call came with: asked and answered
    /// from the start.
    pub fn with_answers(mut self, answers: StoredAnswers) -> Self {
        self.asked = answers.keys().map(|key| (key, ())).collect();
        self.answers = answers;
        self
    }

    /// The task with the call of its resumable tool, which another server
    /// needs to run the handler again if this one dies.
    pub fn with_call(mut self, call: StoredCall) -> Self {
        self.call = Some(call);
        self
    }

    /// The task of a call of `tool`.
    pub fn with_tool(mut self, tool: impl Into<Arc<str>>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    /// The task, started within the trace `traceparent` names (W3C Trace
    /// Context), so that its later spans link to that trace.
    pub fn with_trace_parent(mut self, traceparent: Option<Box<str>>) -> Self {
        if traceparent.is_some() || self.seldom.is_some() {
            self.seldom_mut().trace_parent = traceparent;
        }
        self
    }

    /// The seldom fields, made when first written.
    pub(crate) fn seldom_mut(&mut self) -> &mut Seldom {
        self.seldom.get_or_insert_default()
    }

    /// The unguessable id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The authenticated subject that created the task; only it may see
    /// it. Anonymous callers' tasks have none.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The current status.
    pub fn status(&self) -> TaskStatus {
        self.status
    }

    /// The handler's note on the current status.
    pub fn status_message(&self) -> Option<&str> {
        self.status_message.as_deref()
    }

    /// When the task was created (wall clock, for the wire).
    pub fn created_at(&self) -> SystemTime {
        self.created_at
    }

    /// When the task last changed.
    pub fn last_updated_at(&self) -> SystemTime {
        self.last_updated_at
    }

    /// How long after creation the task is kept; `None` for ever.
    pub fn ttl(&self) -> Option<Duration> {
        self.ttl
    }

    /// The poll interval suggested to clients.
    pub fn poll_interval(&self) -> Option<Duration> {
        self.poll_interval
    }

    /// Input requests not answered yet, by key, as JSON text.
    pub fn input_requests(&self) -> &StoredRequests {
        &self.input_requests
    }

    /// Every answer received, by key, as JSON text.
    pub fn answers(&self) -> &StoredAnswers {
        &self.answers
    }

    /// Every key ever asked. An answered key is never asked again.
    pub fn asked(&self) -> impl Iterator<Item = &str> {
        self.asked.keys()
    }

    /// The final result, once `completed`, as JSON text.
    pub fn stored_result(&self) -> Option<&StoredResult> {
        self.result.as_ref()
    }

    /// The JSON-RPC error, once `failed`.
    pub fn error(&self) -> Option<&ErrorObject> {
        self.seldom.as_ref()?.error.as_ref()
    }

    /// Increases with every change, so watchers can drop stale copies.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The call, for a resumable tool's task.
    pub fn call(&self) -> Option<&StoredCall> {
        self.call.as_ref()
    }

    /// The tool whose call the task runs, so that its result can be shown
    /// as that tool's (a legacy peer's view depends on the tool's
    /// `outputSchema`). `None` in a record an older presa stored.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The W3C `traceparent` of the request that created the task, when
    /// it was traced.
    pub fn trace_parent(&self) -> Option<&str> {
        self.seldom.as_ref()?.trace_parent.as_deref()
    }

    /// The task's metadata as sent on the wire.
    pub fn to_task(&self) -> Task {
        Task {
            task_id: self.id.to_string(),
            status: self.status,
            status_message: self.status_message.as_deref().map(str::to_owned),
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
            .filter_map(|(key, request)| Some((key.to_owned(), request.parse().ok()?)))
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
                .then(|| self.error().cloned())
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
            + self.status_message.as_deref().map_or(0, str::len)
            + texts_weight(&self.input_requests)
            + texts_weight(&self.answers)
            + self.asked.keys().map(str::len).sum::<usize>()
            + self.result.as_ref().map_or(0, StoredResult::len)
            + self.call.as_ref().map_or(0, StoredCall::len)
            + self.tool.as_ref().map_or(0, |tool| tool.len())
            + self.error().map_or(0, json_len)
    }
}

fn texts_weight<T>(texts: &ByInputKey<StoredJson<T>>) -> usize {
    texts.iter().map(|(k, text)| k.len() + text.len()).sum()
}

/// ISO 8601 (RFC 3339) in UTC, to the millisecond.
fn iso8601(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::TaskRecord;

    /// A sleeping task of a resumable tool keeps little besides its
    /// record (`docs/benchmarks.md`: about 1 KiB in all, its target), and
    /// the record lives in an `Arc`: 264 bytes and the `Arc`'s two counts
    /// fill a 288-byte block of the system allocator, and one word more
    /// takes the next block size. A field that needs the room is welcome;
    /// this says what it costs.
    #[test]
    fn a_record_and_its_counts_fit_a_288_byte_block() {
        let size = size_of::<TaskRecord>();
        assert!(size <= 264, "TaskRecord is {size} bytes, past 264");
    }
}
