//! `resources/read`: from the validated request to the resource's
//! contents.
//!
//! 1. the URI is resolved: a fixed resource with that URI, else the first
//!    template that matches it (`-32602` with `data.uri` when none does);
//! 2. earlier MRTR answers are recovered from the verified `requestState`,
//!    bound to `resources/read`, the caller and the URI;
//! 3. the handler runs with a [`Context`](crate::server::Context), as a tool does,
//!    and its verdict is the response, with the resource's caching hints
//!    unless the handler set its own.

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::resource::ReadRequest;
use crate::server::caller::Caller;
use crate::server::core::error::Origin;
use crate::server::core::reply::{parse_params, resource_not_found, to_value};
use crate::server::input::mrtr::{
    RequestEnv, gather_answers, render, request_context, run_caught, settle, with_server_info,
};
use crate::server::input::request_state::CallBinding;
use crate::wire::{
    ErrorObject, Message, Method, ReadResourceParams, ReadResourceResult, RequestMeta, ResultType,
};

/// Answers one `resources/read`. Notifications (progress, logs) go to
/// `notifier`.
pub(crate) async fn read_resource(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    meta: RequestMeta,
    caller: &Caller,
    notifier: mpsc::Sender<Message>,
) -> Result<Value, ErrorObject> {
    let ReadResourceParams {
        uri,
        input_responses,
        request_state,
        ..
    } = parse_params(params)?;
    let (resource, variables) = env
        .registry
        .resolve(&uri)
        .ok_or_else(|| resource_not_found(&uri))?;
    env.authorize(caller, &format!("resource `{uri}`"), resource.scopes)?;
    let principal = caller.principal();
    let binding = CallBinding::new(
        Method::ResourcesRead,
        principal.as_deref(),
        &uri,
        &Map::new(),
    );
    let answers = gather_answers(
        env.codec,
        &binding,
        request_state,
        input_responses,
        env.max_answer_bytes,
    )?;
    let ctx = request_context(env, meta, caller, answers, notifier);
    let request = ReadRequest {
        uri: uri.clone(),
        variables,
        mime_type: resource.mime_type().map(str::to_owned),
        cache: resource.cache,
    };
    let outcome = settle(run_caught(resource.handler.read(ctx.clone(), request)).await);
    let verdict = ctx
        .take_input_book()
        .verdict(Origin::Resource(&uri), outcome)
        .map(|result| to_value(complete(result, env)));
    render(verdict, env.codec, &binding, env.meta)
}

/// A read result as sent.
fn complete(mut result: ReadResourceResult, env: &RequestEnv<'_>) -> ReadResourceResult {
    result.result_type = ResultType::Complete;
    result.meta = with_server_info(result.meta, env.meta);
    result
}
