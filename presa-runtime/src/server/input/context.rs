//! The context a tool runs with: who is calling, and how to ask them for
//! input.
//!
//! See [`Context`] for how input requests work and the re-run rule.

use std::any::type_name;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context as TaskContext, Poll};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use super::elicit::{Elicit, Elicitation};
use super::form::FormSchema;
use super::question::Question;
use super::verdict::InputBook;
use crate::server::caller::Caller;
use crate::server::request::error::{InputRequired, ToolError};
use crate::server::request::state::{State, StateMap};
use crate::server::task_engine::TaskLink;
use crate::util::{BoxFuture, lock};
use crate::wire::{
    AbsoluteUrl, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction,
    ElicitRequestParams, Implementation, InputRequest, InputResponse, InputResponses, LoggingLevel,
    Message, Notification, ProgressToken, Root, notifications, strict,
};

/// Who sent a request, as far as the server knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestInfo {
    /// The protocol version of the request.
    pub protocol_version: String,
    /// The capabilities the client declared on this request. Shared:
    /// requests that declare the same capabilities, as a client's
    /// requests do, hold one copy between them.
    pub client_capabilities: Arc<ClientCapabilities>,
    /// The client's self-reported identity. Shared, as the capabilities
    /// are.
    pub client_info: Option<Arc<Implementation>>,
    /// Who is calling, as the transport vouches: subject, issuer, scopes
    /// and token claims.
    pub caller: Caller,
}

/// How a run's questions reach the client. The transport's era chooses
/// it once per request ([`InputRoute::Mrtr`] for a 2026-07-28 request,
/// [`InputRoute::Legacy`] in a legacy session), and it changes only when
/// the call becomes a task ([`InputRoute::attach`]).
#[derive(Clone)]
pub(crate) enum InputRoute {
    /// Within a request: a question not yet answered ends the round with
    /// an `InputRequiredResult`, and the client retries with the answers.
    Mrtr,
    /// Inside a task: the run parks until `tasks/update` brings the answer.
    Task(TaskLink),
    /// In a legacy session: a request of the server's own, answered while
    /// the run waits; inside a task, the task shows `input_required`
    /// meanwhile.
    Legacy {
        peer: super::legacy::peer::PeerLink,
        task: Option<TaskLink>,
    },
}

impl InputRoute {
    /// The route once the call has become the task `link`.
    fn attach(&mut self, link: TaskLink) {
        match self {
            InputRoute::Mrtr => *self = InputRoute::Task(link),
            InputRoute::Task(_) => {}
            InputRoute::Legacy { task, .. } => *task = Some(link),
        }
    }
}

/// Asks the dispatcher to turn the call into a task; it answers once the
/// task exists (or once it decided to stay synchronous).
pub(crate) type StartRequest = oneshot::Sender<oneshot::Sender<()>>;

struct Inner {
    info: RequestInfo,
    input: Mutex<InputBook>,
    /// Set once, when the call becomes a task.
    task: OnceLock<TaskLink>,
    /// Present while [`Context::start_task`] may still start a task.
    start: Mutex<Option<StartRequest>>,
    /// Taken away when the call becomes a task: tasks have no progress or
    /// log channel.
    notifier: Mutex<Option<mpsc::Sender<Message>>>,
    progress_token: Option<ProgressToken>,
    /// The last progress value sent; progress must increase.
    last_progress: Mutex<Option<f64>>,
    log_level: Option<LoggingLevel>,
    state: Arc<StateMap>,
    /// How questions reach the client.
    route: Mutex<InputRoute>,
}

/// The context of one tool call. Cheap to clone; every clone is the same
/// context.
///
/// # Inside a task
///
/// When the call runs as a task (see [`TaskPolicy`](crate::server::TaskPolicy)),
/// the context outlives the request. An input request then does not end
/// the run: it moves the task to `input_required` and the future **parks**
/// until `tasks/update` brings the answer, so code before it runs once.
/// Several requests registered before the first is awaited (a
/// `tokio::try_join!`) are listed together. A task has no progress or log
/// channel; report with [`Context::set_status_message`] instead.
///
/// # Asking for input, and the re-run rule
///
/// [`Context::elicit`], [`Context::sample`] and [`Context::list_roots`]
/// return the answer if the client already gave it. Otherwise they register
/// the request on the context and return [`InputRequired`], which the tool
/// propagates with `?`. The server then answers the call with an
/// `InputRequiredResult` carrying **every** request registered during the
/// run, so `tokio::try_join!(ctx.elicit(..), ctx.elicit(..))` asks both in
/// one round. (Requests register when `elicit` is *called*, not when its
/// future is first polled, so a join that stops at the first error still
/// registers both.)
///
/// When the client retries with the answers, **the tool runs again from the
/// start**. Code before an `elicit` may therefore run more than once: keep
/// side effects after the last input, or make them idempotent.
///
/// Registered input wins over the tool's return value: a tool that catches
/// [`InputRequired`] and returns something else still answers with an
/// `InputRequiredResult`. To make input optional, check
/// [`RequestInfo::client_capabilities`] before asking. A key names one
/// request: asking two different things under one key in a run fails the
/// call with `-32603`.
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

/// Everything needed to build a [`Context`].
pub(crate) struct ContextParts {
    pub info: RequestInfo,
    pub answers: InputResponses,
    pub notifier: Option<mpsc::Sender<Message>>,
    pub progress_token: Option<ProgressToken>,
    pub log_level: Option<LoggingLevel>,
    pub state: Arc<StateMap>,
    pub route: InputRoute,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Self {
        Context {
            inner: Arc::new(Inner {
                info: parts.info,
                input: Mutex::new(InputBook::with_answers(parts.answers)),
                task: OnceLock::new(),
                start: Mutex::new(None),
                notifier: Mutex::new(parts.notifier),
                progress_token: parts.progress_token,
                last_progress: Mutex::new(None),
                log_level: parts.log_level,
                state: parts.state,
                route: Mutex::new(parts.route),
            }),
        }
    }

    /// A context outside any server, for calling a [`ToolHandler`](crate::server::ToolHandler)
    /// directly (in a unit test, say): no answers, so input requests
    /// return [`InputRequired`]; no progress or log channel; no state.
    pub fn standalone(info: RequestInfo) -> Self {
        Context::new(ContextParts {
            info,
            answers: InputResponses::new(),
            notifier: None,
            progress_token: None,
            log_level: None,
            state: Arc::default(),
            route: InputRoute::Mrtr,
        })
    }

    /// Who is calling.
    pub fn request(&self) -> &RequestInfo {
        &self.inner.info
    }

    /// A clone of the application state of type `T`.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Result<State<T>, ToolError> {
        self.inner
            .state
            .get::<T>()
            .cloned()
            .map(State)
            .ok_or_else(|| {
                ToolError::internal(format!(
                    "no state of type `{}` was registered; call `ServerBuilder::state`",
                    type_name::<T>()
                ))
            })
    }

    /// Asks the user to fill in a form of type `T`, under `key`.
    ///
    /// Returns the user's [`Elicitation`], or [`InputRequired`] if the
    /// answer is not in yet. Content that breaks the form's schema (a
    /// `maximum`, a `format`, an `enum`) or does not deserialize as `T` is
    /// discarded and the key asked again. See [`Context`] for the re-run
    /// rule.
    pub fn elicit<T: Elicit>(
        &self,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> InputFuture<Elicitation<T>> {
        let form = FormSchema::of::<T>();
        self.ask_form(key.into(), message.into(), form, |content| {
            strict::from_value(content).ok()
        })
    }

    /// Asks the user to fill in a form built at run time, under `key`: for
    /// a form whose fields are only known then (the columns of a table the
    /// user picked, say). The answer passes the same checks as a typed
    /// one, and comes back as the submitted object. Prefer
    /// [`Context::elicit`] when the fields are known at compile time.
    pub fn elicit_form(
        &self,
        key: impl Into<String>,
        message: impl Into<String>,
        form: &FormSchema,
    ) -> InputFuture<Elicitation<Map<String, Value>>> {
        self.ask_form(key.into(), message.into(), form.clone(), |content| {
            strict::from_value(content).ok()
        })
    }

    /// Asks `form` under `key`. An accepted answer's content must match
    /// the form's schema and then `parse`; otherwise it is discarded and
    /// the question asked again.
    fn ask_form<T: Send + 'static>(
        &self,
        key: String,
        message: String,
        form: FormSchema,
        parse: impl Fn(Value) -> Option<T> + Send + 'static,
    ) -> InputFuture<Elicitation<T>> {
        let question = Question::Form {
            message,
            form: form.clone(),
        };
        self.ask(key, question, move |response| {
            let InputResponse::Elicit(answer) = response else {
                return None;
            };
            match answer.action {
                ElicitAction::Accept => {
                    let content = Value::Object(answer.content.unwrap_or_default());
                    if let Err(violation) = form.check(&content) {
                        tracing::debug!(
                            field = violation.field,
                            reason = violation.reason,
                            "the answer does not match the form; asking again"
                        );
                        return None;
                    }
                    parse(content).map(Elicitation::Accepted)
                }
                ElicitAction::Decline => Some(Elicitation::Declined),
                ElicitAction::Cancel => Some(Elicitation::Cancelled),
            }
        })
    }

    /// Sends the user to `url` for an out-of-band interaction (URL-mode
    /// elicitation). Accept means the user consented to go, not that the
    /// interaction finished.
    ///
    /// `url` must be an absolute URL, as the spec requires; one that is not
    /// fails the call with `-32603` (the cause, naming the key and the
    /// text, goes to the logs), since it is a bug in the tool.
    pub fn elicit_url(
        &self,
        key: impl Into<String>,
        message: impl Into<String>,
        url: impl AsRef<str>,
    ) -> InputFuture<ElicitAction> {
        let key = key.into();
        let url = match AbsoluteUrl::parse(url.as_ref()) {
            Ok(url) => url,
            Err(e) => {
                let cause = format!("`elicit_url` under key `{key}`: {e}");
                lock(&self.inner.input).break_with(cause);
                return InputFuture::ready(Err(InputRequired));
            }
        };
        let request = InputRequest::Elicit(ElicitRequestParams::Url {
            message: message.into(),
            url,
        });
        self.ask(key, Question::Request(request), |response| match response {
            InputResponse::Elicit(answer) => Some(answer.action),
            _ => None,
        })
    }

    /// Asks the client's model for a message, under `key`.
    pub fn sample(
        &self,
        key: impl Into<String>,
        params: CreateMessageParams,
    ) -> InputFuture<CreateMessageResult> {
        self.ask(
            key.into(),
            Question::Request(InputRequest::Sample(Box::new(params))),
            |response| match response {
                InputResponse::Sample(answer) => Some(*answer),
                _ => None,
            },
        )
    }

    /// Asks the client for its roots. The input key `roots` is reserved for
    /// this request.
    pub fn list_roots(&self) -> InputFuture<Vec<Root>> {
        self.ask(
            "roots".into(),
            Question::Request(InputRequest::ListRoots),
            |response| match response {
                InputResponse::Roots(answer) => Some(answer.roots),
                _ => None,
            },
        )
    }

    /// Looks up `key`'s answer; registers `request` when there is none, or
    /// when the answer does not parse. A request the client did not declare
    /// it can answer is never sent: the run fails with `-32021` instead.
    fn ask<T: Send + 'static>(
        &self,
        key: String,
        question: Question,
        parse: impl Fn(InputResponse) -> Option<T> + Send + 'static,
    ) -> InputFuture<T> {
        let mut book = lock(&self.inner.input);
        if !book.record(&key, question.digest()) {
            return InputFuture::ready(Err(InputRequired));
        }
        if let Some(raw) = book.answer(&key).cloned() {
            if let Some(answer) = parse(raw) {
                return InputFuture::ready(Ok(answer));
            }
            tracing::debug!(
                key,
                "discarding an input response that does not parse; asking again"
            );
            book.discard_answer(&key);
        }
        let request = question.into_request();
        let declared = &self.inner.info.client_capabilities;
        if let Some(capability) = request.required_capability()
            && !capability.is_declared_in(declared)
        {
            book.unanswerable(capability);
            return InputFuture::ready(Err(InputRequired));
        }
        let route = lock(&self.inner.route).clone();
        match route {
            InputRoute::Mrtr => {
                book.defer(key, request);
                InputFuture::ready(Err(InputRequired))
            }
            InputRoute::Task(link) => {
                link.register(key.clone(), request.clone());
                InputFuture::parked(Box::pin(link.wait(key, request, parse)))
            }
            // A legacy client is asked with a request of the server's own
            // (`PeerLink::ask_parked`), and the run parks until it answers;
            // a failure fails the run with its message.
            InputRoute::Legacy { peer, task } => {
                drop(book);
                let notifier = lock(&self.inner.notifier).clone();
                let ctx = self.clone();
                InputFuture::parked(Box::pin(async move {
                    let asked = peer.ask_parked(key, request, parse, notifier, task);
                    asked.await.map_err(|error| {
                        lock(&ctx.inner.input).refuse(error);
                        InputRequired
                    })
                }))
            }
        }
    }

    /// Marks the point where the call becomes a task, for a tool declared
    /// with `task_start = "explicit"`.
    ///
    /// Everything before it runs within the request, so input asked there
    /// goes over MRTR (`InputRequiredResult`), and the tool may still
    /// return a plain result. When the call reaches this point, the server
    /// creates the task and answers the request with it; the rest of the
    /// handler runs as the task. When the call is not to become a task
    /// (the client does not declare the extension, the policy says
    /// `sync`, the server is at its task limit with an `optional` policy)
    /// this returns at once and the call stays synchronous.
    pub async fn start_task(&self) {
        let request = lock(&self.inner.start).take();
        let Some(request) = request else { return };
        let (started, wait) = oneshot::channel();
        if request.send(started).is_ok() {
            // An error means the dispatcher went away; nothing to wait for.
            let _ = wait.await;
        }
    }

    /// The task this call runs as, if it is one.
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.get().map(TaskLink::id)
    }

    /// Sets the task's `statusMessage`, which `tasks/get` and task
    /// notifications show. Does nothing when the call is not a task.
    pub async fn set_status_message(&self, message: impl Into<String>) {
        if let Some(link) = self.inner.task.get() {
            link.set_status_message(Some(message.into())).await;
        }
    }

    /// Lets [`Context::start_task`] ask the dispatcher for a task.
    pub(crate) fn allow_start(&self) -> oneshot::Receiver<oneshot::Sender<()>> {
        let (request, requested) = oneshot::channel();
        *lock(&self.inner.start) = Some(request);
        requested
    }

    /// Turns the context into a task's: input requests now park, and the
    /// progress and log channel is gone.
    pub(crate) fn attach_task(&self, link: TaskLink) {
        lock(&self.inner.notifier).take();
        lock(&self.inner.start).take();
        lock(&self.inner.route).attach(link.clone());
        let _ = self.inner.task.set(link);
    }

    pub(crate) fn with_input_book<T>(&self, f: impl FnOnce(&InputBook) -> T) -> T {
        f(&lock(&self.inner.input))
    }

    /// Reports progress, if the request asked for it with a progress token.
    ///
    /// The spec requires progress to increase with every notification, so
    /// a value not above the last one sent is dropped.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        {
            let mut last = lock(&self.inner.last_progress);
            if last.is_some_and(|last| progress <= last) {
                tracing::debug!(progress, "dropping progress that does not increase");
                return;
            }
            *last = Some(progress);
        }
        let params = notifications::ProgressParams {
            progress_token: token,
            progress,
            total,
            message,
        };
        self.notify(notifications::PROGRESS, params).await;
    }

    /// Sends a log message, if the request set a log level at or below `level`.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        if self.inner.log_level.is_none_or(|min| level < min) {
            return;
        }
        let params = notifications::LoggingMessageParams {
            level,
            logger: None,
            data: serde_json::to_value(data).unwrap_or(Value::Null),
        };
        self.notify(notifications::MESSAGE, params).await;
    }

    async fn notify(&self, method: &str, params: impl Serialize) {
        let notifier = lock(&self.inner.notifier).clone();
        if let Some(tx) = notifier {
            // A closed channel means the request is over; nothing to report to.
            let _ = tx.send(Notification::new(method, params).into()).await;
        }
    }

    pub(crate) fn take_input_book(&self) -> InputBook {
        std::mem::take(&mut *lock(&self.inner.input))
    }
}

/// The future returned by [`Context::elicit`] and its siblings: ready at
/// once within a request, parked until the answer arrives within a task.
#[must_use = "the answer is only delivered when the future is awaited"]
pub struct InputFuture<T> {
    state: InputState<T>,
}

enum InputState<T> {
    Ready(Option<Result<T, InputRequired>>),
    Parked(BoxFuture<Result<T, InputRequired>>),
}

impl<T> InputFuture<T> {
    fn ready(outcome: Result<T, InputRequired>) -> Self {
        InputFuture {
            state: InputState::Ready(Some(outcome)),
        }
    }

    fn parked(wait: BoxFuture<Result<T, InputRequired>>) -> Self {
        InputFuture {
            state: InputState::Parked(wait),
        }
    }
}

impl<T> InputFuture<T> {
    /// The answer if it is already there, without waiting: for code that
    /// cannot `.await`, such as a per-call task policy, which runs before
    /// any task exists. Otherwise the request stays registered and this
    /// returns [`InputRequired`], as `.await` does outside a task. Inside a
    /// task, where the answer comes later, use `.await`: `now` gives up on
    /// a parked request and withdraws it.
    pub fn now(self) -> Result<T, InputRequired> {
        match self.state {
            InputState::Ready(outcome) => outcome.expect("InputFuture polled after completion"),
            InputState::Parked(_) => Err(InputRequired),
        }
    }
}

impl<T> Unpin for InputFuture<T> {}

impl<T> Future for InputFuture<T> {
    type Output = Result<T, InputRequired>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        match &mut self.state {
            InputState::Ready(outcome) => {
                Poll::Ready(outcome.take().expect("InputFuture polled after completion"))
            }
            InputState::Parked(wait) => wait.as_mut().poll(cx),
        }
    }
}
