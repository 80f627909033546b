//! [`TaskLink`]: a running handler's tie to its task, through which its
//! input requests reach the store and its answers come back.
//!
//! The handler registers and withdraws input requests synchronously (at
//! `ctx.elicit` call time, and when it drops a parked future), but writes
//! to the store are asynchronous. The link therefore queues every change in
//! the order the handler made it, and one writer at a time empties the
//! queue into the store, so the store sees the handler's changes in order:
//! a request withdrawn and then asked again ends up listed, never lost to a
//! withdrawal that happened to be written last.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::store::{StoredRequest, TaskChange, TaskLimits, TaskRecord, TaskStore};
use crate::server::request::error::InputRequired;
use crate::server::request::reply::{answers_unusable, internal_error};
use crate::telemetry::metrics;
use crate::util::lock;
use crate::wire::{InputRequest, InputRequests, InputResponse};

/// A context's tie to its task.
#[derive(Clone)]
pub(crate) struct TaskLink {
    inner: Arc<LinkInner>,
}

struct LinkInner {
    id: String,
    store: Arc<dyn TaskStore>,
    limits: TaskLimits,
    /// How many times a key is asked again after unusable answers.
    max_reasks: u32,
    /// Changes not yet written, in the order the handler made them.
    queue: Mutex<Vec<LinkChange>>,
    /// Held while the queue is written out, so that writes keep its order.
    writing: tokio::sync::Mutex<()>,
    /// The handler is being dropped to sleep (see the `dormant` module):
    /// its questions stay asked.
    asleep: AtomicBool,
    /// The handler waits for an answer that does not come through the
    /// store, so it may never sleep.
    awake: AtomicBool,
    /// The task as the runner's watch last saw it: what a parked question
    /// waits on, so that a run follows its task through one watch.
    seen: tokio::sync::watch::Sender<Seen>,
}

/// What the runner has seen of the task, for the questions that wait.
#[derive(Clone)]
enum Seen {
    /// Nothing yet: the runner's watch is being set up.
    Nothing,
    /// This version.
    Record(Arc<TaskRecord>),
    /// The runner stopped following the task: nothing more will come.
    Closed,
}

/// One queued change to the task's input requests.
enum LinkChange {
    Request(String, InputRequest),
    Withdraw(String),
}

impl TaskLink {
    pub fn new(id: String, store: Arc<dyn TaskStore>, limits: TaskLimits, max_reasks: u32) -> Self {
        TaskLink {
            inner: Arc::new(LinkInner {
                id,
                store,
                limits,
                max_reasks,
                queue: Mutex::default(),
                writing: tokio::sync::Mutex::new(()),
                asleep: AtomicBool::new(false),
                awake: AtomicBool::new(false),
                seen: tokio::sync::watch::Sender::new(Seen::Nothing),
            }),
        }
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// Queues `request` under `key`; the next parked future writes it.
    pub fn register(&self, key: String, request: InputRequest) {
        lock(&self.inner.queue).push(LinkChange::Request(key, request));
    }

    /// Readies the handler to be dropped while it waits, its questions
    /// staying asked (rule 2 of the `dormant` module): from now on,
    /// dropping a parked future withdraws nothing, and what is still
    /// queued is left for the run again to ask. `false`, changing
    /// nothing, once [`keep_awake`](Self::keep_awake) was called.
    pub(super) fn sleep(&self) -> bool {
        if self.inner.awake.load(Ordering::Acquire) {
            return false;
        }
        self.inner.asleep.store(true, Ordering::Release);
        lock(&self.inner.queue).clear();
        true
    }

    /// Keeps the handler from ever sleeping: it waits for an answer that
    /// does not come through the store, which a run again would never
    /// receive.
    pub(crate) fn keep_awake(&self) {
        self.inner.awake.store(true, Ordering::Release);
    }

    /// Hands `record`, a version the runner's watch yielded, to the
    /// questions that wait; an older version than one seen is ignored.
    pub(super) fn saw(&self, record: &Arc<TaskRecord>) {
        self.inner.seen.send_if_modified(|seen| match seen {
            Seen::Record(old) if old.version() >= record.version() => false,
            Seen::Closed => false,
            _ => {
                *seen = Seen::Record(Arc::clone(record));
                true
            }
        });
    }

    /// Tells the questions that wait that the runner follows the task no
    /// more: they end as if the task had ended.
    pub(super) fn close(&self) {
        self.inner.seen.send_replace(Seen::Closed);
    }

    /// Takes back a request nobody waits for any more. A request still in
    /// the queue is simply dropped from it; one the store already lists is
    /// withdrawn there, in the background. A handler dropped to sleep
    /// withdraws nothing.
    fn withdraw(&self, key: String) {
        if self.inner.asleep.load(Ordering::Acquire) {
            return;
        }
        {
            let mut queue = lock(&self.inner.queue);
            let queued = queue
                .iter()
                .rposition(|c| matches!(c, LinkChange::Request(k, _) if *k == key));
            match queued {
                Some(at) => {
                    queue.remove(at);
                    return;
                }
                None => queue.push(LinkChange::Withdraw(key)),
            }
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let link = self.clone();
        runtime.spawn(async move {
            // A finished or expired task ignores it, which is fine.
            link.flush().await;
        });
    }

    /// Writes the queued changes in order, runs of requests as one change
    /// (so parallel elicits land together); `false` if the task is gone.
    pub(crate) async fn flush(&self) -> bool {
        let _writing = self.inner.writing.lock().await;
        let queued = std::mem::take(&mut *lock(&self.inner.queue));
        for change in batches(queued) {
            match self.apply(change).await {
                // The version written is one the questions may wait on.
                Ok(Some(record)) => self.saw(&record),
                Ok(None) => return false,
                Err(e) => {
                    tracing::warn!(task = self.inner.id, error = %e, "could not record input requests");
                    return false;
                }
            }
        }
        true
    }

    async fn apply(
        &self,
        change: TaskChange,
    ) -> Result<Option<Arc<TaskRecord>>, super::store::StoreError> {
        let inner = &self.inner;
        inner.store.apply(&inner.id, change, &inner.limits).await
    }

    /// Parks until `key` is answered and returns the parsed answer.
    ///
    /// An answer that does not parse cannot be asked again under its key,
    /// so the request is repeated under a fresh `key~2`, `key~3`, … up to
    /// the task's limit of re-asks; one more unusable answer fails the
    /// task, with a message that says so. The task ending (cancelled,
    /// expired, failed) releases the wait with
    /// [`InputRequired`]. Dropping the future withdraws the request, so a
    /// handler that stops waiting (`select!`, a timeout) does not leave the
    /// task `input_required`.
    ///
    /// A parked task holds this future for as long as nobody answers, so
    /// it keeps only what the wait needs: the question as text, not the
    /// parsed request, and the writing of queued changes boxed, since it
    /// is done before the wait.
    pub fn wait<T>(
        self,
        key: String,
        request: InputRequest,
        parse: impl Fn(InputResponse) -> Option<T>,
    ) -> impl Future<Output = Result<T, InputRequired>> {
        // Kept for the re-asks, which are rare, as text: a parsed form
        // schema costs many times its text.
        let question = StoredRequest::question(&request);
        drop(request);
        async move {
            // Cancellation by drop: while armed, dropping this future
            // withdraws the key it currently waits for.
            let mut waiting = Waiting {
                link: self.clone(),
                key: Some(key.clone()),
            };
            // Counted as parked while it waits, however the wait ends.
            let _parked = Parked::new();
            let mut current = key.clone();
            let mut attempt = 1;
            loop {
                if !Box::pin(self.flush()).await {
                    return Err(InputRequired);
                }
                let (answer, record) = self.answer_to(&current).await.ok_or(InputRequired)?;
                if let Some(value) = parse(answer) {
                    waiting.key = None;
                    return Ok(value);
                }
                if attempt > self.inner.max_reasks {
                    let error = answers_unusable(&key, attempt);
                    let _ = Box::pin(self.apply(TaskChange::Fail(error))).await;
                    waiting.key = None;
                    return Err(InputRequired);
                }
                loop {
                    attempt += 1;
                    current = format!("{key}~{attempt}");
                    if !record.asked.contains_key(&current) {
                        break;
                    }
                }
                tracing::debug!(
                    task = self.id(),
                    key = current,
                    "answer did not parse; asking again"
                );
                let Ok(request) = question.parse() else {
                    let error = internal_error("(task)", "a stored input request no longer parses");
                    let _ = Box::pin(self.apply(TaskChange::Fail(error))).await;
                    waiting.key = None;
                    return Err(InputRequired);
                };
                waiting.key = Some(current.clone());
                self.register(current.clone(), request);
            }
        }
    }

    /// The answer to `key` once it arrives, with the record it came in;
    /// `None` if the task ends first, or the runner stops following it.
    ///
    /// It waits on the versions the runner's watch hands over
    /// ([`saw`](Self::saw)) rather than on a watch of its own: the
    /// runner follows the task for as long as the handler runs, so a
    /// second watch would only cost another read of the record.
    async fn answer_to(&self, key: &str) -> Option<(InputResponse, Arc<TaskRecord>)> {
        let mut seen = self.inner.seen.subscribe();
        loop {
            let now = seen.borrow_and_update().clone();
            match now {
                Seen::Nothing => {}
                Seen::Closed => return None,
                Seen::Record(record) => {
                    if record.status.is_terminal() {
                        return None;
                    }
                    if let Some(answer) = record.answers.get(key) {
                        // Text that is no answer at all reads as one that
                        // does not fit the request: the key is asked again.
                        let answer = answer
                            .parse()
                            .unwrap_or_else(|_| InputResponse::Other(serde_json::Map::new()));
                        return Some((answer, record));
                    }
                }
            }
            // The link holds the sender, so this never fails.
            if seen.changed().await.is_err() {
                return None;
            }
        }
    }

    pub async fn set_status_message(&self, message: Option<String>) {
        let change = TaskChange::StatusMessage(message);
        if let Err(e) = self.apply(change).await {
            tracing::warn!(task = self.inner.id, error = %e, "could not set the status message");
        }
    }
}

/// Groups queued changes into store changes, keeping their order.
fn batches(queued: Vec<LinkChange>) -> Vec<TaskChange> {
    let mut changes = Vec::new();
    for change in queued {
        match (change, changes.last_mut()) {
            (LinkChange::Request(key, request), Some(TaskChange::RequestInput(batch))) => {
                batch.entry(key).or_insert(request);
            }
            (LinkChange::Request(key, request), _) => {
                changes.push(TaskChange::RequestInput(InputRequests::from([(
                    key, request,
                )])));
            }
            (LinkChange::Withdraw(key), Some(TaskChange::Withdraw(keys))) => keys.push(key),
            (LinkChange::Withdraw(key), _) => changes.push(TaskChange::Withdraw(vec![key])),
        }
    }
    changes
}

/// Counts a run waiting for input in `presa.tasks.parked` while it lives.
struct Parked;

impl Parked {
    fn new() -> Self {
        metrics::parked(1);
        Parked
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        metrics::parked(-1);
    }
}

/// The drop guard of a parked input future: withdraws its key when the
/// future is dropped unanswered.
pub(crate) struct Waiting {
    pub(crate) link: TaskLink,
    pub(crate) key: Option<String>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.link.withdraw(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_keep_the_order_of_requests_and_withdrawals() {
        let queued = vec![
            LinkChange::Request("a".into(), InputRequest::ListRoots),
            LinkChange::Request("b".into(), InputRequest::ListRoots),
            LinkChange::Withdraw("a".into()),
            LinkChange::Request("a".into(), InputRequest::ListRoots),
        ];
        let changes = batches(queued);
        assert_eq!(changes.len(), 3);
        assert!(matches!(&changes[0], TaskChange::RequestInput(r) if r.len() == 2));
        assert!(matches!(&changes[1], TaskChange::Withdraw(k) if k == &["a"]));
        assert!(matches!(&changes[2], TaskChange::RequestInput(r) if r.contains_key("a")));
    }
}
