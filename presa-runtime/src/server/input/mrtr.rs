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
use std::collections::btree_map::Entry;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::mpsc;

use super::context::{Context, ContextParts, RequestInfo};
use super::request_state::{CallBinding, StateCodec};
use super::verdict::Verdict;
use crate::server::caller::Caller;
use crate::server::caller::authorize::{ScopeRules, authorize};
use crate::server::catalog::registry::Registry;
use crate::server::core::error::{Failure, ToolError};
use crate::server::core::reply::{answer_too_large, invalid_params, panic_message, to_value};
use crate::server::core::state::StateMap;
use crate::server::legacy::peer::PeerLink;
use crate::wire::{
    ErrorObject, InputRequiredResult, InputResponses, Message, RequestMeta, ResultMeta, ResultType,
    json_len,
};

/// The answers a handler runs with, by the rules in the
/// [module docs](self).
pub(crate) fn gather_answers(
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
    let payload = codec
        .open(&state, binding)
        .map_err(|e| invalid_params(format!("Invalid params: {e}")))?;
    let mut answers = payload.answers;
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
pub(crate) fn render(
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

/// What `prompts/get`, `resources/read` and `completion/complete` need
/// from the server around them.
pub(crate) struct RequestEnv<'a> {
    pub registry: &'a Registry,
    pub codec: &'a StateCodec,
    pub state: &'a Arc<StateMap>,
    /// The largest answer accepted, in bytes of JSON.
    pub max_answer_bytes: usize,
    /// The `_meta` of every result (`serverInfo`).
    pub meta: &'a ResultMeta,
    /// In a legacy session, the client asked with requests of its own.
    pub peer: Option<&'a PeerLink>,
    /// Who may call what.
    pub scope_rules: &'a ScopeRules,
}

impl RequestEnv<'_> {
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

/// Who sends a request, from its `_meta` and the transport's caller.
pub(crate) fn request_info(meta: &RequestMeta, caller: &Caller) -> RequestInfo {
    RequestInfo {
        protocol_version: meta.protocol_version.clone(),
        client_capabilities: meta.client_capabilities.clone(),
        client_info: meta.client_info.clone(),
        caller: caller.clone(),
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
        peer: env.peer.cloned(),
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
