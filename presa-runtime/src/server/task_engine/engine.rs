//! [`TaskEngine`]: creating tasks, running their handlers, and the
//! operations of `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! The engine knows the store and its settings, nothing of the server
//! around it: each operation takes what it needs (the caller, the result
//! `_meta`), and a handler reaches it as a future that yields the task's
//! [`TaskEnd`].
//!
//! A store that fails ([`StoreError::Backend`]: a shared database that is
//! down) fails the client's request with `-31002`, whose message says the
//! task store is unavailable and to retry; the cause goes to the logs.
//! Nothing is cached here, so the next request after the store is back
//! succeeds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use futures::StreamExt;

use super::link::TaskLink;
use super::runner::Resume;
use super::runner::{Runners, TaskEnd};
use super::settings::TaskSettings;
use super::store::{
    StoreError, StoredAnswer, StoredAnswers, StoredCall, TaskChange, TaskLimits, TaskRecord,
    TaskStore, TaskWatch,
};
use super::takeover::take_over_lapsed;
use crate::server::caller::Caller;
use crate::server::request::reply::{
    answer_too_large, answers_too_large, internal_error, task_not_found, task_store_full,
    task_store_unavailable, too_many_listeners, too_many_tasks,
};
use crate::telemetry::{context, metrics};
use crate::util::{BoxFuture, Charge, lock};
use crate::wire::{
    CreateTaskResult, ErrorObject, GetTaskResult, InputResponses, ResultMeta, ResultType,
};

/// The tasks part of a server: the settings, the store, the sweeper that
/// purges expired tasks, and who listens to which task.
pub(crate) struct TaskEngine {
    settings: TaskSettings,
    pub(crate) store: Arc<dyn TaskStore>,
    /// The largest answer accepted, in bytes of JSON.
    max_answer_bytes: usize,
    sweeper: Mutex<Option<tokio::task::JoinHandle<()>>>,
    listeners: Arc<Mutex<HashMap<String, usize>>>,
    /// What a handler's runner needs.
    runners: Runners,
}

/// Why a task could not be created.
pub(crate) enum CreateError {
    /// A limit on tasks: an `optional` tool runs synchronously instead, a
    /// `required` one fails with this error. No task was stored.
    AtLimit(ErrorObject),
    /// The store is unavailable (`-31002`): an `optional` tool runs
    /// synchronously instead, a `required` one fails with this error. The
    /// store may have kept the task before failing.
    Unavailable(ErrorObject),
    /// The store failed otherwise (`-32603`). It may have kept the task.
    Store(ErrorObject),
}

impl TaskEngine {
    pub fn new(settings: TaskSettings, store: Arc<dyn TaskStore>, max_answer_bytes: usize) -> Self {
        // With telemetry on, the store's operations are timed and its
        // status changes counted, whatever store it is.
        #[cfg(feature = "otel")]
        let store: Arc<dyn TaskStore> = Arc::new(super::measured::Measured(store));
        let runners = Runners::new(&settings, Arc::clone(&store));
        TaskEngine {
            settings,
            store,
            max_answer_bytes,
            sweeper: Mutex::new(None),
            listeners: Arc::default(),
            runners,
        }
    }

    /// Sets how the server runs a resumable task again, when it takes one
    /// over from a server that died or wakes one that slept.
    pub fn set_resume(&self, resume: Resume) {
        self.runners.set_resume(resume);
    }

    /// Creates a task of tool `tool` owned by `owner`, seeded with the
    /// answers carried from MRTR rounds before the task, and keeping `call`
    /// when its tool is resumable.
    ///
    /// Until `orphan` is disarmed, dropping the calling future (a cancelled
    /// request) fails the task, so that none is left without its runner.
    pub async fn create(
        &self,
        tool: Arc<str>,
        owner: Option<String>,
        answers: &InputResponses,
        call: Option<StoredCall>,
        orphan: &mut OrphanGuard,
    ) -> Result<Arc<TaskRecord>, CreateError> {
        self.start_sweeper();
        let settings = &self.settings;
        let mut record = TaskRecord::new(
            new_task_id(),
            owner,
            settings.ttl,
            Some(settings.poll_interval),
        )
        .with_answers(stored(answers))
        .with_tool(tool)
        .with_trace_parent(context::current_traceparent());
        record.call = call;
        let created = Arc::new(record.clone());
        orphan.arm(
            Arc::clone(&self.store),
            record.id().to_owned(),
            settings.limits,
        );
        match self.store.create(record, &settings.limits).await {
            Ok(()) => Ok(created),
            Err(e) => Err(match e {
                StoreError::Full { limit } => {
                    metrics::refused("tasks");
                    CreateError::AtLimit(too_many_tasks(limit, false))
                }
                StoreError::QuotaExceeded { limit } => {
                    metrics::refused("task_quota");
                    CreateError::AtLimit(too_many_tasks(limit, true))
                }
                StoreError::OutOfSpace { limit } => {
                    metrics::refused("task_store_space");
                    CreateError::AtLimit(task_store_full(limit))
                }
                StoreError::Backend(cause) => {
                    CreateError::Unavailable(task_store_unavailable("create", &cause))
                }
                e => CreateError::Store(store_failed("create", e)),
            }),
        }
    }

    /// The `CreateTaskResult` that answers the request creating `record`.
    pub fn created(record: &TaskRecord, meta: &ResultMeta) -> CreateTaskResult {
        CreateTaskResult {
            result_type: ResultType::Task,
            task: record.to_task(),
            meta: Some(meta.clone()),
        }
    }

    /// The tie through which a handler running as task `id` asks for input.
    pub fn link(&self, id: &str) -> TaskLink {
        self.runners.link(id)
    }

    /// Runs `run` as the task of `link` on its own tokio task (see
    /// [`Runners::spawn`]).
    pub fn run(
        &self,
        link: TaskLink,
        record: &TaskRecord,
        origin: String,
        run: BoxFuture<TaskEnd>,
        charge: Charge,
    ) {
        self.runners.spawn(link, record, origin, run, charge);
    }

    /// `tasks/get`: the task with the payload of its status.
    pub async fn get(
        &self,
        id: &str,
        caller: &Caller,
        meta: &ResultMeta,
    ) -> Result<GetTaskResult, ErrorObject> {
        let record = self.owned(id, caller, "retrieve").await?;
        Ok(GetTaskResult {
            result_type: ResultType::Complete,
            task: record.to_detailed(),
            meta: Some(meta.clone()),
        })
    }

    /// `tasks/update`: stores answers to the task's outstanding requests.
    pub async fn update(
        &self,
        id: &str,
        answers: InputResponses,
        caller: &Caller,
    ) -> Result<(), ErrorObject> {
        let record = self.owned_to_change(id, caller, "update").await?;
        context::link_to(&tracing::Span::current(), record.trace_parent());
        let answers = self.checked(&answers)?;
        let outcome = self
            .store
            .apply(id, TaskChange::Answer(answers), &self.settings.limits)
            .await;
        if let Ok(Some(record)) = &outcome {
            self.runners.wake(record).await;
        }
        match outcome {
            Err(StoreError::AnswersTooLarge(too_large)) => Err(answers_too_large(too_large.room)),
            outcome => settled(outcome, "update"),
        }
    }

    /// The answers as a task keeps them, each within the size limit.
    fn checked(&self, answers: &InputResponses) -> Result<StoredAnswers, ErrorObject> {
        let answers = stored(answers);
        let too_large = answers
            .iter()
            .find(|(_, a)| a.len() > self.max_answer_bytes)
            .map(|(key, answer)| answer_too_large(key, answer.len(), self.max_answer_bytes));
        match too_large {
            Some(error) => Err(error),
            None => Ok(answers),
        }
    }

    /// `tasks/cancel`: cancels a running task; a finished one stays as it
    /// is.
    pub async fn cancel(&self, id: &str, caller: &Caller) -> Result<(), ErrorObject> {
        let record = self.owned_to_change(id, caller, "cancel").await?;
        context::link_to(&tracing::Span::current(), record.trace_parent());
        let outcome = self
            .store
            .apply(id, TaskChange::Cancel, &self.settings.limits)
            .await;
        if let Ok(Some(record)) = &outcome {
            self.runners.wake(record).await;
        }
        settled(outcome, "cancel")
    }

    /// Each of `ids` that `caller` owns, with a watch that starts at its
    /// current state, in order. The others are left out silently. A task
    /// followed by as many listeners as it may have fails the whole
    /// request with `-31001`.
    pub async fn watch_owned(
        &self,
        ids: &[String],
        caller: &Caller,
    ) -> Result<Vec<(String, TaskWatch)>, ErrorObject> {
        self.start_sweeper();
        let mut visible = Vec::new();
        for id in ids {
            let watch = self
                .store
                .watch(id)
                .await
                .map_err(|e| store_failed("watch", e))?;
            let Some(mut watch) = watch else { continue };
            // The first item is the current record, available at once.
            let Some(current) = watch.next().await else {
                continue;
            };
            if current.owner != caller.task_owner() {
                continue;
            }
            let listening = self.listen(id)?;
            let watch = futures::stream::once(async move { current })
                .chain(watch)
                // The guard lives in the closure, so as long as the stream.
                .map(move |record| {
                    let _listening = &listening;
                    record
                })
                .boxed();
            visible.push((id.clone(), watch));
        }
        Ok(visible)
    }

    /// The task, if it exists and belongs to `caller`; a foreign task is
    /// reported exactly as an unknown one.
    pub async fn owned(
        &self,
        id: &str,
        caller: &Caller,
        verb: &str,
    ) -> Result<Arc<TaskRecord>, ErrorObject> {
        self.start_sweeper();
        let record = self.store.get(id).await;
        owned_by_caller(record, caller, verb)
    }

    /// As [`owned`](Self::owned), for a request that changes the task:
    /// the record may be the store's copy ([`TaskStore::peek`]), which
    /// may be older, since only what never changes is checked (the owner,
    /// the trace parent). The change reads the record as it is anyway, and
    /// finds a task that is gone meanwhile.
    async fn owned_to_change(
        &self,
        id: &str,
        caller: &Caller,
        verb: &str,
    ) -> Result<Arc<TaskRecord>, ErrorObject> {
        self.start_sweeper();
        let record = self.store.peek(id).await;
        owned_by_caller(record, caller, verb)
    }

    /// Counts a listener of task `id` until the guard is dropped; `-31001`
    /// at the limit.
    fn listen(&self, id: &str) -> Result<Listening, ErrorObject> {
        let limit = self.settings.max_listeners;
        let mut listeners = lock(&self.listeners);
        let count = listeners.entry(id.to_owned()).or_default();
        if *count >= limit {
            return Err(too_many_listeners(limit));
        }
        *count += 1;
        Ok(Listening {
            listeners: Arc::clone(&self.listeners),
            id: id.to_owned(),
        })
    }

    /// Starts the background sweeper from inside the runtime, unless it
    /// runs already (it is started again if the runtime that ran it is
    /// gone): it purges expired tasks and, when the server takes leases,
    /// takes over the tasks whose lease lapsed. Every task request starts
    /// it, so a server restarted on a shared store takes over its old
    /// tasks once a client asks about one. It stops when the store is
    /// dropped.
    pub(crate) fn start_sweeper(&self) {
        let mut sweeper = lock(&self.sweeper);
        if sweeper.as_ref().is_some_and(|s| !s.is_finished()) {
            return;
        }
        let period = self.settings.sweeper_period();
        // Runners would hold the store, which must go with its server.
        let runners = self.runners.downgrade();
        *sweeper = Some(tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(runners) = runners.upgrade() else {
                    return;
                };
                if let Err(e) = runners.store.purge_expired().await {
                    tracing::warn!(error = %e, "purging expired tasks failed");
                }
                runners.rules.dormant.sweep(SystemTime::now());
                if let Some(keeper) = &runners.rules.leases {
                    take_over_lapsed(&runners, keeper).await;
                }
            }
        }));
    }
}

/// The drop guard of task creation: fails a task whose creation was
/// abandoned half-way (the request was cancelled while an async store
/// created it, or the store failed after keeping it), since no runner will
/// ever finish it. Disarmed once the runner owns the task, or once the
/// store has said it kept nothing.
#[derive(Default)]
pub(crate) struct OrphanGuard {
    armed: Option<(Arc<dyn TaskStore>, String, TaskLimits)>,
}

impl OrphanGuard {
    fn arm(&mut self, store: Arc<dyn TaskStore>, id: String, limits: TaskLimits) {
        self.armed = Some((store, id, limits));
    }

    pub fn disarm(&mut self) {
        self.armed = None;
    }
}

impl Drop for OrphanGuard {
    fn drop(&mut self) {
        let Some((store, id, limits)) = self.armed.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let cause = "the task never started: its request was cancelled, or the store \
                         failed while creating it";
            let change = TaskChange::Fail(internal_error("(task start)", cause));
            // Unknown (never created) is fine too.
            let _ = store.apply(&id, change, &limits).await;
        });
    }
}

/// The drop guard of a listener: while it lives, the listen stream counts
/// against its task's limit of listeners.
struct Listening {
    listeners: Arc<Mutex<HashMap<String, usize>>>,
    id: String,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut listeners = lock(&self.listeners);
        if let Some(count) = listeners.get_mut(&self.id) {
            *count -= 1;
            if *count == 0 {
                listeners.remove(&self.id);
            }
        }
    }
}

/// Answers as a task keeps them.
fn stored(answers: &InputResponses) -> StoredAnswers {
    answers
        .iter()
        .map(|(key, answer)| (key.clone(), StoredAnswer::new(answer)))
        .collect()
}

/// The outcome of a change made for a client's request.
fn settled(
    outcome: Result<Option<Arc<TaskRecord>>, StoreError>,
    verb: &str,
) -> Result<(), ErrorObject> {
    match outcome {
        Ok(Some(_)) => Ok(()),
        // Expired between the ownership check and the change.
        Ok(None) => Err(task_not_found(verb)),
        Err(e) => Err(store_failed(verb, e)),
    }
}

/// `record`, read for a request by `caller`, if the store found it and it
/// is the caller's: a foreign task is reported exactly as an unknown one.
fn owned_by_caller(
    record: Result<Option<Arc<TaskRecord>>, StoreError>,
    caller: &Caller,
    verb: &str,
) -> Result<Arc<TaskRecord>, ErrorObject> {
    record
        .map_err(|e| store_failed("get", e))?
        .filter(|record| record.owner == caller.task_owner())
        .ok_or_else(|| task_not_found(verb))
}

/// The error of a request whose store call, `doing` something, failed:
/// `-31002` when the store is unavailable, `-32603` for any other
/// failure, which a request's own checks should have prevented.
pub(crate) fn store_failed(doing: &str, error: StoreError) -> ErrorObject {
    match error {
        StoreError::Backend(cause) => task_store_unavailable(doing, &cause),
        error => internal_error("(task store)", &format!("{doing}: {error}")),
    }
}

/// Resolves once the task is terminal or gone.
/// 144 bits from the OS CSPRNG, base64url: unguessable, and safe in URLs
/// and HTTP headers (`Mcp-Name`).
fn new_task_id() -> String {
    crate::util::random_id::<18>()
}

#[cfg(test)]
mod tests {
    #[test]
    fn task_ids_are_long_distinct_and_url_safe() {
        let a = super::new_task_id();
        assert_eq!(a.len(), 24);
        assert_ne!(a, super::new_task_id());
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }
}
