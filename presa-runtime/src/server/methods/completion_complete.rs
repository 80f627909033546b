//! `completion/complete`: suggestions for a prompt argument or a template
//! variable.
//!
//! 1. the reference is resolved: a prompt by name (`-32602` when unknown),
//!    or a resource template by its template text (a fixed resource by
//!    its URI; `-32602` with `data.uri` when neither exists);
//! 2. the caller must hold the prompt's or resource's scopes (`-31004`,
//!    as for `prompts/get` and `resources/read`): a completer can tell
//!    what the handler would, so it is the handler's to guard;
//! 3. the argument must be one the prompt takes or the template names
//!    (`-32602` otherwise);
//! 4. its completer runs with a [`CompletionContext`]: what was typed, the
//!    values of the other arguments (`context.arguments`), the caller and
//!    the state. An argument without a completer has no suggestions.
//!
//! The answer holds at most 100 values, with `total` and `hasMore` saying
//! what was left out. A completer that fails or panics is `-32603`.

use serde_json::Value;

use crate::server::caller::Caller;
use crate::server::handlers::completer::{Completer, CompletionContext};
use crate::server::methods::mrtr::{
    RequestEnv, request_info, run_caught, settle, with_server_info,
};
use crate::server::request::error::{Failure, Origin};
use crate::server::request::reply::{
    internal_error, invalid_params, parse_params, resource_not_found, to_value, unknown_prompt,
};
use crate::wire::{
    CompleteParams, CompleteResult, Completion, CompletionReference, ErrorObject, RequestMeta,
    ResultType,
};

/// Answers one `completion/complete`.
pub(crate) async fn complete(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    meta: RequestMeta,
    caller: &Caller,
) -> Result<Value, ErrorObject> {
    let params: CompleteParams = parse_params(params)?;
    let argument = params.argument.name;
    let completer = completer_of(env, caller, &params.reference, &argument)?;
    let completion = match completer {
        None => Completion::from_matches(Vec::new()),
        Some(completer) => {
            let ctx = CompletionContext::new(
                argument,
                params.context.and_then(|c| c.arguments).unwrap_or_default(),
                request_info(&meta, caller),
                std::sync::Arc::clone(env.state),
            );
            let outcome = run_caught(completer.suggest(params.argument.value, ctx)).await;
            settle(outcome).map_err(|failure| failed(&params.reference, failure))?
        }
    };
    Ok(to_value(CompleteResult {
        result_type: ResultType::Complete,
        completion,
        meta: with_server_info(None, env.meta),
    }))
}

/// The completer of `argument` of what `reference` names, if `caller`
/// may use it; `None` for an argument without one.
fn completer_of(
    env: &RequestEnv<'_>,
    caller: &Caller,
    reference: &CompletionReference,
    argument: &str,
) -> Result<Option<Completer>, ErrorObject> {
    let no_such = |what: &str| {
        invalid_params(format!(
            "Invalid params: {what} has no argument `{argument}`"
        ))
    };
    match reference {
        CompletionReference::Prompt { name, .. } => {
            let prompt = env
                .registry
                .prompt(name)
                .filter(|prompt| env.visible(caller, prompt.catalog_item()))
                .ok_or_else(|| unknown_prompt(name))?;
            env.authorize(caller, &format!("prompt `{name}`"), prompt.scopes)?;
            if prompt.definition.argument(argument).is_none() {
                return Err(no_such(&format!("prompt `{name}`")));
            }
            Ok(prompt.handler.completer(argument))
        }
        CompletionReference::Resource { uri } => {
            let resource = env
                .registry
                .resource(uri)
                .filter(|resource| env.visible(caller, resource.catalog_item()))
                .ok_or_else(|| resource_not_found(uri))?;
            env.authorize(caller, &format!("resource `{uri}`"), resource.scopes)?;
            if !resource.variables().contains(&argument) {
                return Err(no_such(&format!("resource `{uri}`")));
            }
            Ok(resource.handler.completer(argument))
        }
    }
}

/// A completer that failed: an internal error, whatever it said.
fn failed(reference: &CompletionReference, failure: Failure) -> ErrorObject {
    let origin = match reference {
        CompletionReference::Prompt { name, .. } => Origin::Prompt(name),
        CompletionReference::Resource { uri } => Origin::Resource(uri),
    };
    let cause = match failure {
        Failure::Internal(cause) | Failure::Rejected(cause) => cause,
        Failure::InputRequired => "a completer cannot ask for input".to_owned(),
    };
    internal_error(origin.name(), &format!("completer: {cause}"))
}
