//! The Multi Round-Trip plumbing that `tools/call`, `prompts/get` and
//! `resources/read` share: the answers a round brings, recovered from the
//! signed `requestState`, and a run's [`Verdict`] rendered as the response.
//!
//! # The pipeline
//!
//! All three go through the same steps, written once here as a
//! [`Round`]:
//!
//! 1. the method parses its params and looks up its handler (its own
//!    code: a tool, a prompt, a resource by URI), and the caller must hold
//!    the handler's scopes ([`RequestEnv::authorize`]);
//! 2. the round is bound to what identifies the request (the method, the
//!    caller, the tool, prompt or URI, the arguments: a [`Target`]), so
//!    that a state issued for one request cannot be replayed on another;
//! 3. the answers are gathered ([`gather_answers`], by the rules below);
//! 4. the context is built with them ([`Round::open`]);
//! 5. the handler runs and its outcome is settled, a panic caught
//!    ([`Round::run`]; a tool's call may become a task here instead);
//! 6. the run's input book gives the verdict, and the verdict is rendered
//!    as the response ([`Round::respond`]): the complete result, or an
//!    `InputRequiredResult` with a fresh `requestState`, or the error.
//!
//! # Which answers reach the handler
//!
//! Answers travel by key: the key of the question in an
//! `InputRequiredResult` is the key of its answer in `inputResponses`, and
//! a handler reads an answer by asking its question. [`gather_answers`],
//! which all three methods call, follows these rules, in order, and they
//! are the same whether or not the request carries a `requestState`:
//!
//! 1. an answer larger than the server's limit
//!    ([`max_answer_size`](crate::server::ServerBuilder::max_answer_size)) fails
//!    the request (`-32602`), as does an answer that is not an object
//!    (`wire`);
//! 2. a `requestState` that fails verification, has expired, or belongs
//!    to another caller, method, target or set of arguments fails the
//!    request (`-32602`);
//! 3. the answers a verified state carries from earlier rounds are fixed:
//!    this round's answer under the same key is ignored, so a re-run sees
//!    what the code before it saw;
//! 4. every other answer of this round is the handler's, under its key,
//!    whether an earlier round asked for it or the client answered ahead
//!    (as the conformance suite's `ignore-extra-params` does); one under a
//!    key the handler never asks is never read, and is not carried into
//!    the next round's state.
//!
//! A client can always answer without showing its user the question, so
//! answering ahead gives it nothing it did not have; the spec asks a
//! server to "ignore any information it does not recognize or need",
//! which rule 4 does. An answer that does not fit its question is dropped
//! when the handler reads it, and the question asked again (`context`).
//! `tasks/update` keeps answers to the task's outstanding keys only (see
//! [`tasks`](crate::server::tasks)): a task asks one question at a time, and its
//! record must not fill with answers nobody reads.

use std::any::Any;
use std::cell::RefCell;
use std::collections::btree_map::Entry;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::server::caller::Caller;
use crate::server::caller::authorize::{CatalogItem, ScopeRules, authorize};
use crate::server::catalog::registry::Registry;
use crate::server::input::context::{Context, ContextParts, InputRoute, RequestInfo};
use crate::server::input::request_state::{CallBinding, StateCodec};
use crate::server::input::verdict::Verdict;
use crate::server::middleware::invocation::HandlerService;
use crate::server::request::error::{ErrorDetails, Failure, Origin, ToolError};
use crate::server::request::reply::{answer_too_large, invalid_params, panic_message, to_value};
use crate::server::request::state::StateMap;
use crate::server::task_engine::TaskEngine;
use crate::util::{LastSeen, shared_with_last};
use crate::wire::{
    CallToolResult, ClientCapabilities, ErrorObject, GetPromptResult, Implementation,
    InputRequiredResult, InputResponses, Message, Method, ReadResourceResult, RequestMeta,
    ResultMeta, ResultType, json_len,
};

/// What a request that runs a handler needs from the server around it:
/// the one environment of `tools/call`, `prompts/get`, `resources/read`
/// and `completion/complete`.
pub(crate) struct RequestEnv<'a> {
    pub registry: &'a Registry,
    pub codec: &'a StateCodec,
    pub state: &'a Arc<StateMap>,
    /// The task engine, on a server with tasks enabled.
    pub engine: Option<&'a Arc<TaskEngine>>,
    /// The `_meta` of every result (`serverInfo`).
    pub meta: &'a Arc<ResultMeta>,
    /// What the model reads of errors tools propagate with `?`.
    pub error_details: ErrorDetails,
    /// The server's layers around every handler; `None` without any.
    pub layers: Option<&'a HandlerService>,
    /// The largest answer accepted, in bytes of JSON.
    pub max_answer_bytes: usize,
    /// How questions reach the client, chosen by the request's era.
    pub route: &'a InputRoute,
    /// Who may call what.
    pub scope_rules: &'a ScopeRules,
}

impl RequestEnv<'_> {
    /// Whether `caller` may know of `item` (rule 5 of `authorize`): one
    /// it may not is answered as unknown.
    pub fn visible(&self, caller: &Caller, item: CatalogItem<'_>) -> bool {
        self.scope_rules.visible(caller, &item)
    }

    /// Rule 2 of `authorize` for `item`, which requires `scopes`.
    pub fn authorize(
        &self,
        caller: &Caller,
        item: &str,
        scopes: &[&str],
    ) -> Result<(), ErrorObject> {
        authorize(self.scope_rules, caller, item, scopes)
    }
}

/// A request that runs a handler, as the router hands it to its method:
/// its `_meta`, its caller, and where its notifications (progress, logs)
/// go.
pub(crate) struct Inbound<'a> {
    pub meta: RequestMeta,
    pub caller: &'a Caller,
    pub notifier: mpsc::Sender<Message>,
}

impl Inbound<'_> {
    /// Who sends the request.
    pub fn info(&self) -> RequestInfo {
        request_info(&self.meta, self.caller)
    }
}

/// What a round's `requestState` is bound to (step 2).
pub(crate) struct Target<'a, 'b> {
    pub method: Method,
    /// The tool, prompt or resource, which names the target in errors.
    pub origin: Origin<'a>,
    /// The arguments, as the JSON object the state is bound to.
    pub arguments: &'b Map<String, Value>,
}

/// The MRTR fields of a request's params: the answers this round brings,
/// and the state earlier rounds left.
pub(crate) struct Carried {
    pub request_state: Option<String>,
    pub input_responses: Option<InputResponses>,
}

/// One round of a request through the pipeline of the
/// [module docs](self), from its binding to its response.
pub(crate) struct Round<'a> {
    env: &'a RequestEnv<'a>,
    origin: Origin<'a>,
    binding: CallBinding<'a>,
    /// The context the handler runs with.
    pub ctx: Context,
}

impl<'a> Round<'a> {
    /// Steps 2 to 4: binds the round to `target`, gathers its answers and
    /// builds the context the handler runs with, for a request sent by
    /// `info`.
    pub fn open(
        env: &'a RequestEnv<'a>,
        target: Target<'a, '_>,
        carried: Carried,
        info: RequestInfo,
        request: Inbound<'_>,
    ) -> Result<Self, ErrorObject> {
        let principal = request.caller.principal();
        let binding = CallBinding::new(
            target.method,
            principal.as_deref(),
            target.origin.name(),
            target.arguments,
        );
        let answers = gather_answers(
            env.codec,
            &binding,
            carried.request_state,
            carried.input_responses,
            env.max_answer_bytes,
        )?;
        let ctx = Context::new(ContextParts {
            info,
            answers,
            notifier: Some(request.notifier),
            progress_token: request.meta.progress_token,
            log_level: request.meta.log_level,
            state: Arc::clone(env.state),
            route: env.route.clone(),
        });
        Ok(Round {
            env,
            origin: target.origin,
            binding,
            ctx,
        })
    }

    /// The environment the round runs in.
    pub fn env(&self) -> &'a RequestEnv<'a> {
        self.env
    }

    /// Steps 5 and 6 for a handler that runs once per round: runs it with
    /// the context, settles its outcome, and responds.
    pub async fn run<T, F, Fut>(self, handler: F) -> Result<Value, ErrorObject>
    where
        T: Completed,
        F: FnOnce(Context) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        let outcome = settle(run_caught(handler(self.ctx.clone())).await);
        self.respond(outcome)
    }

    /// Step 6: the verdict on the run, by the input book's rules, rendered
    /// as the response.
    pub fn respond<T: Completed>(&self, outcome: Result<T, Failure>) -> Result<Value, ErrorObject> {
        let verdict = self
            .ctx
            .take_input_book()
            .verdict(self.origin, outcome)
            .map(|result| to_value(result.completed(self.env.meta)));
        render(verdict, self.env.codec, &self.binding, self.env.meta)
    }
}

/// A method's result as sent once complete: `resultType: complete`, with
/// `serverInfo` beside whatever `_meta` the handler set.
pub(crate) trait Completed: Serialize {
    /// This result as sent by a server whose results carry `server`.
    fn completed(self, server: &ResultMeta) -> Self;
}

macro_rules! completed {
    ($($result:ty),*) => {$(
        impl Completed for $result {
            fn completed(mut self, server: &ResultMeta) -> Self {
                self.result_type = ResultType::Complete;
                self.meta = with_server_info(self.meta, server);
                self
            }
        }
    )*};
}

completed!(CallToolResult, GetPromptResult, ReadResourceResult);

/// The answers a handler runs with, by the rules in the
/// [module docs](self).
fn gather_answers(
    codec: &StateCodec,
    binding: &CallBinding<'_>,
    request_state: Option<String>,
    responses: Option<InputResponses>,
    max_answer_bytes: usize,
) -> Result<InputResponses, ErrorObject> {
    let responses = responses.unwrap_or_default();
    if let Some((key, answer)) = responses
        .iter()
        .map(|(key, answer)| (key, json_len(answer)))
        .find(|(_, bytes)| *bytes > max_answer_bytes)
    {
        return Err(answer_too_large(key, answer, max_answer_bytes));
    }
    let Some(state) = request_state else {
        return Ok(responses);
    };
    let mut answers = codec
        .open(&state, binding)
        .map_err(|e| invalid_params(format!("Invalid params: {e}")))?;
    for (key, answer) in responses {
        match answers.entry(key) {
            Entry::Vacant(free) => {
                free.insert(answer);
            }
            Entry::Occupied(carried) => tracing::debug!(
                key = carried.key(),
                "ignoring an answer to a question an earlier round answered"
            ),
        }
    }
    Ok(answers)
}

/// The response of a finished run: its result (already a complete result
/// as sent), an `InputRequiredResult` carrying a fresh `requestState`, or
/// its error.
fn render(
    verdict: Verdict<Value>,
    codec: &StateCodec,
    binding: &CallBinding<'_>,
    meta: &ResultMeta,
) -> Result<Value, ErrorObject> {
    match verdict {
        Verdict::Complete(result) => Ok(result),
        Verdict::InputRequired { requests, carried } => {
            let state = codec.seal(binding, carried);
            Ok(to_value(InputRequiredResult {
                result_type: ResultType::InputRequired,
                input_requests: Some(requests),
                request_state: Some(state),
                meta: Some(meta.clone()),
            }))
        }
        Verdict::Failed(error) => Err(error),
    }
}

/// `meta` of a complete result as sent: the server's `serverInfo` beside
/// whatever `_meta` the handler set.
pub(crate) fn with_server_info(
    meta: Option<ResultMeta>,
    server: &ResultMeta,
) -> Option<ResultMeta> {
    let mut meta = meta.unwrap_or_default();
    meta.server_info.clone_from(&server.server_info);
    Some(meta)
}

/// Who sends a request, from its `_meta` and the transport's caller.
///
/// The client's capabilities and identity are shared with the last
/// request this thread saw that declared the same: a stateless client
/// declares them on every request, and a task parked at a question keeps
/// its request's, so a thousand parked tasks of one client hold one copy
/// instead of a thousand. One entry per thread, so no lock is shared
/// between workers.
pub(crate) fn request_info(meta: &RequestMeta, caller: &Caller) -> RequestInfo {
    thread_local! {
        static CAPABILITIES: LastSeen<ClientCapabilities> = const { RefCell::new(None) };
        static CLIENT: LastSeen<Implementation> = const { RefCell::new(None) };
    }
    RequestInfo {
        protocol_version: meta.protocol_version.clone(),
        client_capabilities: CAPABILITIES.with(|last| shared(last, &meta.client_capabilities)),
        client_info: meta
            .client_info
            .as_ref()
            .map(|info| CLIENT.with(|last| shared(last, info))),
        caller: caller.clone(),
    }
}

/// `value`, shared with the last equal one this thread saw.
fn shared<T: Clone + PartialEq>(last: &LastSeen<T>, value: &T) -> Arc<T> {
    shared_with_last(last, value, |value| Arc::new(value.clone()))
}

/// A handler run, with a caught panic as `Err`.
pub(crate) type Caught<T> = Result<Result<T, ToolError>, Box<dyn Any + Send>>;

/// Runs `handler`, catching a panic.
pub(crate) async fn run_caught<T>(
    handler: impl Future<Output = Result<T, ToolError>>,
) -> Caught<T> {
    AssertUnwindSafe(handler).catch_unwind().await
}

/// The outcome of a prompt or resource handler's run: its result, its
/// refusal, or an internal failure (a panic among them).
pub(crate) fn settle<T>(run: Caught<T>) -> Result<T, Failure> {
    match run {
        Ok(outcome) => outcome.map_err(ToolError::into_failure),
        Err(panic) => Err(Failure::Internal(panic_message(&*panic))),
    }
}
