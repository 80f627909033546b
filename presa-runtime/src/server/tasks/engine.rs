//! Creating tasks, running their handlers, and the `tasks/*` methods.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::{Value, json};

use super::TaskEngine;
use super::store::{StoreError, TaskChange, TaskRecord, TaskStore};
use crate::server::ServerInner;
use crate::server::connection::{Caller, lock};
use crate::server::context::{Context, InputBook};
use crate::server::dispatch::{
    internal_error, invalid_params, missing_capability, parse_params, report_internal, settle_run,
    to_value,
};
use crate::server::error::{Failure, InputRequired};
use crate::wire::{
    ClientCapabilities, CreateTaskResult, ErrorObject, GetTaskResult, InputRequest, InputRequests,
    InputResponse, InputResponses, RequestMeta, ResultType, TASKS_EXTENSION, TaskIdParams,
    UpdateTaskParams, codes, task_methods,
};

/// A context's tie to its task: where its input requests go and its
/// answers come from.
#[derive(Clone)]
pub(crate) struct TaskLink {
    inner: Arc<LinkInner>,
}

struct LinkInner {
    id: String,
    store: Arc<dyn TaskStore>,
    /// Requests registered but not yet written to the store. Registration
    /// is synchronous (at `elicit` call time); the first parked future to
    /// run writes them all, so parallel elicits land in one change.
    unflushed: Mutex<InputRequests>,
}

impl TaskLink {
    pub fn new(id: String, store: Arc<dyn TaskStore>) -> Self {
        TaskLink {
            inner: Arc::new(LinkInner {
                id,
                store,
                unflushed: Mutex::default(),
            }),
        }
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    pub fn register(&self, key: String, request: InputRequest) {
        lock(&self.inner.unflushed).entry(key).or_insert(request);
    }

    /// Writes the registered requests; `false` if the task is gone.
    async fn flush(&self) -> bool {
        let batch = std::mem::take(&mut *lock(&self.inner.unflushed));
        if batch.is_empty() {
            return true;
        }
        let change = TaskChange::RequestInput(batch);
        match self.inner.store.apply(&self.inner.id, change).await {
            Ok(record) => record.is_some(),
            Err(e) => {
                tracing::warn!(task = self.inner.id, error = %e, "could not record input requests");
                false
            }
        }
    }

    /// Parks until `key` is answered and returns the parsed answer.
    ///
    /// An answer that does not parse cannot be asked again under its key,
    /// so the request is repeated under a fresh `key~2`, `key~3`, … The
    /// task ending (cancelled, expired) releases the wait with
    /// [`InputRequired`]. Dropping the future withdraws the request, so a
    /// handler that stops waiting (`select!`, a timeout) does not leave the
    /// task `input_required`.
    pub async fn wait<T>(
        self,
        key: String,
        request: InputRequest,
        parse: impl Fn(InputResponse) -> Option<T>,
    ) -> Result<T, InputRequired> {
        let mut waiting = Waiting {
            link: self.clone(),
            key: Some(key.clone()),
        };
        let mut current = key.clone();
        let mut attempt = 1;
        loop {
            if !self.flush().await {
                return Err(InputRequired);
            }
            let (answer, record) = self.answer_to(&current).await.ok_or(InputRequired)?;
            if let Some(value) = parse(answer) {
                waiting.key = None;
                return Ok(value);
            }
            loop {
                attempt += 1;
                current = format!("{key}~{attempt}");
                if !record.asked.contains(&current) {
                    break;
                }
            }
            tracing::debug!(
                task = self.id(),
                key = current,
                "answer did not parse; asking again"
            );
            waiting.key = Some(current.clone());
            self.register(current.clone(), request.clone());
        }
    }

    /// The answer to `key` once it arrives, with the record it came in;
    /// `None` if the task ends first.
    async fn answer_to(&self, key: &str) -> Option<(InputResponse, Arc<TaskRecord>)> {
        let mut watch = self.inner.store.watch(&self.inner.id).await.ok()??;
        while let Some(record) = watch.next().await {
            if record.status.is_terminal() {
                return None;
            }
            if let Some(answer) = record.answers.get(key) {
                return Some((answer.clone(), record));
            }
        }
        None
    }

    /// Takes back a request nobody waits for any more.
    fn withdraw(&self, key: String) {
        if lock(&self.inner.unflushed).remove(&key).is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let link = self.clone();
        runtime.spawn(async move {
            let change = TaskChange::Withdraw(vec![key]);
            // A finished or expired task ignores it, which is fine.
            let _ = link.inner.store.apply(&link.inner.id, change).await;
        });
    }

    pub async fn set_status_message(&self, message: Option<String>) {
        let change = TaskChange::StatusMessage(message);
        if let Err(e) = self.inner.store.apply(&self.inner.id, change).await {
            tracing::warn!(task = self.inner.id, error = %e, "could not set the status message");
        }
    }
}

/// Withdraws its key when a parked input future is dropped unanswered.
struct Waiting {
    link: TaskLink,
    key: Option<String>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.link.withdraw(key);
        }
    }
}

/// A handler run, as the runner receives it: caught panics are `Err`.
pub(crate) type Run = futures::future::BoxFuture<
    'static,
    Result<crate::server::ToolResult, Box<dyn std::any::Any + Send>>,
>;

/// Fails a task whose creation was abandoned half-way (the request was
/// cancelled while an async store created it), since no runner will ever
/// finish it. Disarmed once the runner owns the task.
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

/// Why a task could not be created.
pub(crate) enum CreateError {
    /// At `max_tasks`.
    Full { limit: usize },
    /// The store failed.
    Store(ErrorObject),
}

impl ServerInner {
    pub(crate) fn engine(&self) -> &TaskEngine {
        self.tasks.as_ref().expect("tasks are enabled")
    }

    /// Creates a task owned by `caller`, seeded with the answers carried
    /// from MRTR rounds before the task.
    ///
    /// Until `orphan` is disarmed, dropping the calling future (a cancelled
    /// request) fails the task, so that none is left without its runner.
    pub(crate) async fn create_task(
        &self,
        caller: &Caller,
        answers: InputResponses,
        orphan: &mut OrphanGuard,
    ) -> Result<Arc<TaskRecord>, CreateError> {
        let engine = self.engine();
        engine.start_sweeper();
        let settings = &engine.settings;
        let mut record = TaskRecord::new(
            new_task_id(),
            caller.subject.clone(),
            settings.ttl,
            Some(settings.poll_interval),
        );
        record.answers = answers;
        record.asked = record.answers.keys().cloned().collect();
        let created = Arc::new(record.clone());
        orphan.arm(Arc::clone(&engine.store), record.id.clone());
        match engine.store.create(record, settings.max_tasks).await {
            Ok(()) => Ok(created),
            Err(StoreError::Full { limit }) => Err(CreateError::Full { limit }),
            Err(e) => Err(CreateError::Store(internal_error(
                "(task store)",
                &e.to_string(),
            ))),
        }
    }

    pub(crate) fn create_task_result(&self, record: &TaskRecord) -> Value {
        to_value(CreateTaskResult {
            result_type: ResultType::Task,
            task: record.to_task(),
            meta: self.result_meta(),
        })
    }

    /// Runs `run` on its own tokio task until it finishes, or until the
    /// task ends without it (cancelled, expired), which drops it.
    pub(crate) fn spawn_runner(self: &Arc<Self>, tool: String, ctx: Context, run: Run) {
        let inner = Arc::clone(self);
        let link = ctx
            .task_link()
            .expect("the context is attached to its task");
        let ttl = self.engine().settings.ttl;
        tokio::spawn(async move {
            let store = &inner.engine().store;
            let watch = match store.watch(link.id()).await {
                Ok(Some(watch)) => watch,
                Ok(None) => return,
                Err(e) => {
                    let cause = format!("could not follow the task: {e}");
                    let change = TaskChange::Fail(internal_error(&tool, &cause));
                    let _ = store.apply(link.id(), change).await;
                    return;
                }
            };
            tokio::select! {
                // Ending first: a handler released by the end (its input
                // wait returns `InputRequired`) has nothing to report.
                biased;
                () = ended(watch) => {
                    tracing::debug!(task = link.id(), "task ended; dropping its handler");
                }
                () = expiry(ttl) => {
                    tracing::debug!(task = link.id(), "task expired; dropping its handler");
                }
                outcome = run => {
                    let change = inner.settle_task(&tool, ctx.take_input_book(), settle_run(outcome));
                    if let Err(e) = store.apply(link.id(), change).await {
                        report_internal(&tool, &format!("could not record the task's outcome: {e}"));
                    }
                }
            }
        });
    }

    /// The change that records a finished handler run.
    fn settle_task(
        &self,
        tool: &str,
        book: InputBook,
        outcome: Result<crate::wire::CallToolResult, Failure>,
    ) -> TaskChange {
        if let Some(key) = book.conflict {
            let cause = format!("input key `{key}` was used for two different requests");
            return TaskChange::Fail(internal_error(tool, &cause));
        }
        if let Some(missing) = book.missing {
            let message = format!("Tool `{tool}` needs input the client cannot give");
            return TaskChange::Fail(missing_capability(message, missing));
        }
        match outcome {
            Ok(result) => match self.complete(result) {
                Value::Object(result) => TaskChange::Complete(result),
                _ => unreachable!("a CallToolResult serializes to an object"),
            },
            Err(Failure::Internal(cause)) => TaskChange::Fail(internal_error(tool, &cause)),
            Err(Failure::InputRequired) => TaskChange::Fail(internal_error(
                tool,
                "the tool returned InputRequired without a pending input request",
            )),
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub(crate) async fn task_request(
        &self,
        method: &str,
        params: Option<Value>,
        meta: &RequestMeta,
        caller: &Caller,
    ) -> Result<Value, ErrorObject> {
        require_tasks_capability(meta, method)?;
        match method {
            task_methods::TASKS_GET => {
                let TaskIdParams { task_id } = parse_params(params)?;
                let record = self.owned_task(&task_id, caller, "retrieve").await?;
                Ok(to_value(GetTaskResult {
                    result_type: ResultType::Complete,
                    task: record.to_detailed(),
                    meta: self.result_meta(),
                }))
            }
            task_methods::TASKS_UPDATE => {
                let params: UpdateTaskParams = parse_params(params)?;
                self.owned_task(&params.task_id, caller, "update").await?;
                let change = TaskChange::Answer(params.input_responses);
                self.apply_change(&params.task_id, change, "update").await?;
                Ok(self.acknowledgement())
            }
            task_methods::TASKS_CANCEL => {
                let TaskIdParams { task_id } = parse_params(params)?;
                self.owned_task(&task_id, caller, "cancel").await?;
                self.apply_change(&task_id, TaskChange::Cancel, "cancel")
                    .await?;
                Ok(self.acknowledgement())
            }
            other => unreachable!("`{other}` is not a tasks method"),
        }
    }

    /// The task, if it exists and belongs to `caller`; a foreign task is
    /// reported exactly as an unknown one.
    pub(crate) async fn owned_task(
        &self,
        task_id: &str,
        caller: &Caller,
        verb: &str,
    ) -> Result<Arc<TaskRecord>, ErrorObject> {
        let record = self
            .engine()
            .store
            .get(task_id)
            .await
            .map_err(|e| internal_error("(task store)", &e.to_string()))?;
        record
            .filter(|record| record.owner == caller.subject)
            .ok_or_else(|| task_not_found(verb))
    }

    async fn apply_change(
        &self,
        task_id: &str,
        change: TaskChange,
        verb: &str,
    ) -> Result<(), ErrorObject> {
        match self.engine().store.apply(task_id, change).await {
            Ok(Some(_)) => Ok(()),
            // Expired between the ownership check and the change.
            Ok(None) => Err(task_not_found(verb)),
            Err(e) => Err(internal_error("(task store)", &e.to_string())),
        }
    }

    fn acknowledgement(&self) -> Value {
        json!({ "resultType": "complete", "_meta": self.result_meta() })
    }
}

/// Resolves once the task is terminal or gone.
async fn ended(mut watch: super::TaskWatch) {
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

fn task_not_found(verb: &str) -> ErrorObject {
    invalid_params(format!("Failed to {verb} task: Task not found"))
}

/// `-32021` for a client that did not declare the Tasks extension.
pub(crate) fn require_tasks_capability(meta: &RequestMeta, what: &str) -> Result<(), ErrorObject> {
    if meta.client_capabilities.has_extension(TASKS_EXTENSION) {
        return Ok(());
    }
    Err(missing_capability(
        format!("`{what}` needs the client to declare the {TASKS_EXTENSION} extension"),
        tasks_capability(),
    ))
}

pub(crate) fn tasks_capability() -> ClientCapabilities {
    ClientCapabilities {
        extensions: Some([(TASKS_EXTENSION.to_owned(), json!({}))].into()),
        ..Default::default()
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

/// `TOO_MANY_TASKS`, for a `required` tool at the cap.
pub(crate) fn too_many_tasks(limit: usize) -> ErrorObject {
    ErrorObject::new(
        codes::TOO_MANY_TASKS,
        format!("The server is at its limit of {limit} live tasks and this tool runs only as a task; retry later"),
    )
    .with_data(json!({ "maxTasks": limit }))
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
