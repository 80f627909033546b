//! [`TaskEngine`]: creating tasks, running their handlers, and the
//! operations of `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! The engine knows the store and its settings, nothing of the server
//! around it: each operation takes what it needs (the caller, the result
//! `_meta`), and a handler reaches it as a future that yields the task's
//! [`TaskEnd`].

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::link::TaskLink;
use super::settings::TaskSettings;
use super::store::{StoreError, TaskChange, TaskRecord, TaskStore, TaskWatch};
use crate::server::caller::Caller;
use crate::server::reply::{internal_error, report_internal, task_not_found};
use crate::util::{BoxFuture, lock};
use crate::wire::{
    CreateTaskResult, ErrorObject, GetTaskResult, InputResponses, ResultMeta, ResultType,
};

/// The tasks part of a server: the settings, the store, and the sweeper
/// that purges expired tasks.
pub(crate) struct TaskEngine {
    settings: TaskSettings,
    store: Arc<dyn TaskStore>,
    sweeper: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// Why a task could not be created.
pub(crate) enum CreateError {
    /// At `max_tasks`.
    Full { limit: usize },
    /// The store failed.
    Store(ErrorObject),
}

/// How a task's handler ended.
pub(crate) enum TaskEnd {
    /// With a result (which may be an `isError` result).
    Completed(Map<String, Value>),
    /// With a JSON-RPC error.
    Failed(ErrorObject),
}

impl From<TaskEnd> for TaskChange {
    fn from(end: TaskEnd) -> Self {
        match end {
            TaskEnd::Completed(result) => TaskChange::Complete(result),
            TaskEnd::Failed(error) => TaskChange::Fail(error),
        }
    }
}

impl TaskEngine {
    pub fn new(settings: TaskSettings, store: Arc<dyn TaskStore>) -> Self {
        TaskEngine {
            settings,
            store,
            sweeper: Mutex::new(None),
        }
    }

    /// Creates a task owned by `owner`, seeded with the answers carried
    /// from MRTR rounds before the task.
    ///
    /// Until `orphan` is disarmed, dropping the calling future (a cancelled
    /// request) fails the task, so that none is left without its runner.
    pub async fn create(
        &self,
        owner: Option<String>,
        answers: InputResponses,
        orphan: &mut OrphanGuard,
    ) -> Result<Arc<TaskRecord>, CreateError> {
        self.start_sweeper();
        let settings = &self.settings;
        let mut record = TaskRecord::new(
            new_task_id(),
            owner,
            settings.ttl,
            Some(settings.poll_interval),
        );
        record.asked = answers.keys().cloned().collect();
        record.answers = answers;
        let created = Arc::new(record.clone());
        orphan.arm(Arc::clone(&self.store), record.id.clone());
        match self.store.create(record, settings.max_tasks).await {
            Ok(()) => Ok(created),
            Err(StoreError::Full { limit }) => Err(CreateError::Full { limit }),
            Err(e) => Err(CreateError::Store(internal_error(
                "(task store)",
                &e.to_string(),
            ))),
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
        TaskLink::new(id.to_owned(), Arc::clone(&self.store))
    }

    /// Runs `run` on its own tokio task until it ends, and records how it
    /// ended; or until the task ends without it (cancelled, expired), which
    /// drops it. `origin` names the tool in logs; the run is traced in a
    /// `mcp.task` span with the task id, the tool and the owner.
    pub fn run(&self, id: String, origin: String, owner: Option<&str>, run: BoxFuture<TaskEnd>) {
        let store = Arc::clone(&self.store);
        let ttl = self.settings.ttl;
        let span = tracing::info_span!("mcp.task", task = %id, tool = %origin, subject = owner);
        let runner = async move {
            let watch = match store.watch(&id).await {
                Ok(Some(watch)) => watch,
                Ok(None) => return,
                Err(e) => {
                    let cause = format!("could not follow the task: {e}");
                    let change = TaskChange::Fail(internal_error(&origin, &cause));
                    let _ = store.apply(&id, change).await;
                    return;
                }
            };
            tokio::select! {
                // Ending first: a handler released by the end (its input
                // wait returns `InputRequired`) has nothing to report.
                biased;
                () = ended(watch) => {
                    tracing::debug!(task = id, "task ended; dropping its handler");
                }
                () = expiry(ttl) => {
                    tracing::debug!(task = id, "task expired; dropping its handler");
                }
                end = run => {
                    if let Err(e) = store.apply(&id, end.into()).await {
                        report_internal(&origin, &format!("could not record the task's outcome: {e}"));
                    }
                }
            }
        };
        tokio::spawn(runner.instrument(span));
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
        self.owned(id, caller, "update").await?;
        self.apply(id, TaskChange::Answer(answers), "update").await
    }

    /// `tasks/cancel`: cancels a running task; a finished one stays as it
    /// is.
    pub async fn cancel(&self, id: &str, caller: &Caller) -> Result<(), ErrorObject> {
        self.owned(id, caller, "cancel").await?;
        self.apply(id, TaskChange::Cancel, "cancel").await
    }

    /// Each of `ids` that `caller` owns, with a watch that starts at its
    /// current state, in order. The others are left out silently.
    pub async fn watch_owned(
        &self,
        ids: &[String],
        caller: &Caller,
    ) -> Result<Vec<(String, TaskWatch)>, ErrorObject> {
        let mut visible = Vec::new();
        for id in ids {
            let watch = self
                .store
                .watch(id)
                .await
                .map_err(|e| internal_error("(task store)", &e.to_string()))?;
            let Some(mut watch) = watch else { continue };
            // The first item is the current record, available at once.
            let Some(current) = watch.next().await else {
                continue;
            };
            if current.owner != caller.subject {
                continue;
            }
            let watch = futures::stream::once(async move { current })
                .chain(watch)
                .boxed();
            visible.push((id.clone(), watch));
        }
        Ok(visible)
    }

    /// The task, if it exists and belongs to `caller`; a foreign task is
    /// reported exactly as an unknown one.
    async fn owned(
        &self,
        id: &str,
        caller: &Caller,
        verb: &str,
    ) -> Result<Arc<TaskRecord>, ErrorObject> {
        let record = self
            .store
            .get(id)
            .await
            .map_err(|e| internal_error("(task store)", &e.to_string()))?;
        record
            .filter(|record| record.owner == caller.subject)
            .ok_or_else(|| task_not_found(verb))
    }

    async fn apply(&self, id: &str, change: TaskChange, verb: &str) -> Result<(), ErrorObject> {
        match self.store.apply(id, change).await {
            Ok(Some(_)) => Ok(()),
            // Expired between the ownership check and the change.
            Ok(None) => Err(task_not_found(verb)),
            Err(e) => Err(internal_error("(task store)", &e.to_string())),
        }
    }

    /// Starts the background sweeper from inside the runtime, unless it
    /// runs already (it is started again if the runtime that ran it is
    /// gone). It stops when the store is dropped.
    fn start_sweeper(&self) {
        let mut sweeper = lock(&self.sweeper);
        if sweeper.as_ref().is_some_and(|s| !s.is_finished()) {
            return;
        }
        let store = Arc::downgrade(&self.store);
        let period = self.settings.sweep_interval;
        *sweeper = Some(tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(store) = store.upgrade() else { return };
                if let Err(e) = store.purge_expired().await {
                    tracing::warn!(error = %e, "purging expired tasks failed");
                }
            }
        }));
    }
}

/// The drop guard of task creation: fails a task whose creation was
/// abandoned half-way (the request was cancelled while an async store
/// created it), since no runner will ever finish it. Disarmed once the
/// runner owns the task.
#[derive(Default)]
pub(crate) struct OrphanGuard {
    armed: Option<(Arc<dyn TaskStore>, String)>,
}

impl OrphanGuard {
    fn arm(&mut self, store: Arc<dyn TaskStore>, id: String) {
        self.armed = Some((store, id));
    }

    pub fn disarm(&mut self) {
        self.armed = None;
    }
}

impl Drop for OrphanGuard {
    fn drop(&mut self) {
        let Some((store, id)) = self.armed.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let cause = "the request creating the task was cancelled before it started";
            let change = TaskChange::Fail(internal_error("(task start)", cause));
            // Unknown (never created) is fine too.
            let _ = store.apply(&id, change).await;
        });
    }
}

/// Resolves once the task is terminal or gone.
async fn ended(mut watch: TaskWatch) {
    while let Some(record) = watch.next().await {
        if record.status.is_terminal() {
            return;
        }
    }
}

/// Resolves `ttl` from now; never without a TTL.
async fn expiry(ttl: Option<std::time::Duration>) {
    match ttl {
        Some(ttl) => tokio::time::sleep(ttl).await,
        None => std::future::pending().await,
    }
}

/// 144 bits from the OS CSPRNG, base64url: unguessable, and safe in URLs
/// and HTTP headers (`Mcp-Name`).
fn new_task_id() -> String {
    use base64::Engine;
    let mut bytes = [0u8; 18];
    getrandom::fill(&mut bytes).expect("the OS random number generator is available");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
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
