//! The Multi Round-Trip plumbing that `tools/call`, `prompts/get` and
//! `resources/read` share: the answers a round brings, recovered from the
//! signed `requestState`, and a run's [`Verdict`] rendered as the response.
//!
//! Each method binds its state to what identifies the request (the
//! method, the caller, the tool, prompt or URI, the arguments), so that a
//! state issued for one request cannot be replayed on another; everything
//! else is the same for all three, and lives here once, with the context
//! and the panic guard that prompts and resource reads run with.
//!
//! # Which answers reach the handler
//!
//! An answer is taken only for a question the server asked, and the only
//! proof that it asked is a `requestState` it signed: presa sends one with
//! every `InputRequiredResult`, and a client must echo it on the retry. So
//! [`gather_answers`], which all three methods call, follows these rules,
//! in order:
//!
//! 1. a request without `requestState` is a first call, to which nothing
//!    has been asked: its `inputResponses` are ignored (logged at debug),
//!    and the handler runs with no answers, so a client cannot answer a
//!    question before the user was shown it;
//! 2. a `requestState` that fails verification, has expired, or belongs
//!    to another caller, method, target or set of arguments fails the
//!    request (`-32602`);
//! 3. otherwise the handler sees the answers the state carries from
//!    earlier rounds, and this round's answers to the keys the state lists
//!    as asked; answers to any other key are ignored (logged at debug).
//!
//! The spec backs both "ignored"s: a server "SHOULD ignore any information
//! it does not recognize or need" in `inputResponses`. An answer that was
//! asked for but does not fit its question is dropped when the handler
//! reads it, and the question asked again (`context`). `tasks/update`
//! keeps the same rule with the task's outstanding keys (see
//! [`tasks`](super::tasks)).

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::mpsc;

use super::caller::Caller;
use super::context::{Context, ContextParts, RequestInfo};
use super::error::{Failure, ToolError};
use super::input::Verdict;
use super::registry::Registry;
use super::reply::{invalid_params, panic_message, to_value};
use super::request_state::{CallBinding, StateCodec};
use super::state::StateMap;
use crate::wire::{
    ErrorObject, InputRequiredResult, InputResponses, Message, RequestMeta, ResultMeta, ResultType,
};

/// The answers a handler runs with, by the rules in the
/// [module docs](self): none on a first call; on a retry, the earlier
/// answers from the verified `requestState`, plus this round's answers to
/// the keys it lists as asked.
pub(crate) fn gather_answers(
    codec: &StateCodec,
    binding: &CallBinding<'_>,
    request_state: Option<String>,
    responses: Option<InputResponses>,
) -> Result<InputResponses, ErrorObject> {
    let responses = responses.unwrap_or_default();
    let Some(state) = request_state else {
        ignore_unasked(responses.keys(), "the request carries no requestState");
        return Ok(InputResponses::new());
    };
    let payload = codec
        .open(&state, binding)
        .map_err(|e| invalid_params(format!("Invalid params: {e}")))?;
    let (asked, unasked): (InputResponses, InputResponses) = responses
        .into_iter()
        .partition(|(key, _)| payload.asked.contains(key));
    ignore_unasked(
        unasked.keys(),
        "its requestState does not list them as asked",
    );
    let mut answers = payload.answers;
    answers.extend(asked);
    Ok(answers)
}

/// Logs the keys of answers to questions that were not asked.
fn ignore_unasked<'a>(keys: impl ExactSizeIterator<Item = &'a String>, why: &str) {
    if keys.len() > 0 {
        let keys: Vec<&String> = keys.collect();
        tracing::debug!(
            ?keys,
            why,
            "ignoring answers to questions that were not asked"
        );
    }
}

/// The response of a finished run: its result (already a complete result
/// as sent), an `InputRequiredResult` carrying a fresh `requestState`, or
/// its error.
pub(crate) fn render(
    verdict: Verdict<Value>,
    codec: &StateCodec,
    binding: &CallBinding<'_>,
    meta: &ResultMeta,
) -> Result<Value, ErrorObject> {
    match verdict {
        Verdict::Complete(result) => Ok(result),
        Verdict::InputRequired { requests, carried } => {
            let asked = requests.keys().cloned().collect();
            let state = codec.seal(binding, carried, asked);
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

/// What `prompts/get`, `resources/read` and `completion/complete` need
/// from the server around them.
pub(crate) struct RequestEnv<'a> {
    pub registry: &'a Registry,
    pub codec: &'a StateCodec,
    pub state: &'a Arc<StateMap>,
    /// The `_meta` of every result (`serverInfo`).
    pub meta: &'a ResultMeta,
}

/// Who sends a request, from its `_meta` and the transport's caller.
pub(crate) fn request_info(meta: &RequestMeta, caller: &Caller) -> RequestInfo {
    RequestInfo {
        protocol_version: meta.protocol_version.clone(),
        client_capabilities: meta.client_capabilities.clone(),
        client_info: meta.client_info.clone(),
        subject: caller.subject.clone(),
    }
}

/// The context a prompt or a resource handler runs with: the round's
/// answers, and a channel for progress and logs.
pub(crate) fn request_context(
    env: &RequestEnv<'_>,
    meta: RequestMeta,
    caller: &Caller,
    answers: InputResponses,
    notifier: mpsc::Sender<Message>,
) -> Context {
    Context::new(ContextParts {
        info: request_info(&meta, caller),
        answers,
        notifier: Some(notifier),
        progress_token: meta.progress_token,
        log_level: meta.log_level,
        state: Arc::clone(env.state),
    })
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
