//! `prompts/get`: from the validated request to the prompt's messages.
//!
//! 1. the prompt is looked up (`-32602` when unknown);
//! 2. every argument the prompt lists as required must be there (`-32602`
//!    naming the first one missing);
//! 3. earlier MRTR answers are recovered from the verified `requestState`,
//!    bound to `prompts/get`, the caller, the prompt and its arguments;
//! 4. the handler runs with a [`Context`](crate::server::Context), as a tool does,
//!    and its verdict is the response.

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::server::caller::Caller;
use crate::server::core::error::Origin;
use crate::server::core::reply::{invalid_params, parse_params, to_value, unknown_prompt};
use crate::server::input::mrtr::{
    RequestEnv, gather_answers, render, request_context, run_caught, settle, with_server_info,
};
use crate::server::input::request_state::CallBinding;
use crate::wire::{
    ErrorObject, GetPromptParams, GetPromptResult, Message, Method, Prompt, PromptArguments,
    RequestMeta, ResultType,
};

/// Answers one `prompts/get`. Notifications (progress, logs) go to
/// `notifier`.
pub(crate) async fn get_prompt(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    meta: RequestMeta,
    caller: &Caller,
    notifier: mpsc::Sender<Message>,
) -> Result<Value, ErrorObject> {
    let GetPromptParams {
        name,
        arguments,
        input_responses,
        request_state,
        ..
    } = parse_params(params)?;
    let prompt = env
        .registry
        .prompt(&name)
        .ok_or_else(|| unknown_prompt(&name))?;
    env.authorize(caller, &format!("prompt `{name}`"), prompt.scopes)?;
    let arguments = arguments.unwrap_or_default();
    check_required(&prompt.definition, &arguments)?;
    let bound = as_json(&arguments);
    let principal = caller.principal();
    let binding = CallBinding::new(Method::PromptsGet, principal.as_deref(), &name, &bound);
    let answers = gather_answers(
        env.codec,
        &binding,
        request_state,
        input_responses,
        env.max_answer_bytes,
    )?;
    let ctx = request_context(env, meta, caller, answers, notifier);
    let outcome = settle(run_caught(prompt.handler.get(ctx.clone(), arguments)).await);
    let verdict = ctx
        .take_input_book()
        .verdict(Origin::Prompt(&name), outcome)
        .map(|result| to_value(complete(result, env)));
    render(verdict, env.codec, &binding, env.meta)
}

/// `-32602` naming the first required argument of `prompt` that
/// `arguments` lack.
fn check_required(prompt: &Prompt, arguments: &PromptArguments) -> Result<(), ErrorObject> {
    let missing = prompt
        .arguments
        .iter()
        .flatten()
        .find(|argument| argument.is_required() && !arguments.contains_key(&argument.name));
    match missing {
        None => Ok(()),
        Some(argument) => Err(invalid_params(format!(
            "Invalid params: prompt `{}` needs the argument `{}`",
            prompt.name, argument.name
        ))),
    }
}

/// The arguments as the JSON object a `requestState` is bound to.
fn as_json(arguments: &PromptArguments) -> Map<String, Value> {
    arguments
        .iter()
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect()
}

/// A prompt result as sent.
fn complete(mut result: GetPromptResult, env: &RequestEnv<'_>) -> GetPromptResult {
    result.result_type = ResultType::Complete;
    result.meta = with_server_info(result.meta, env.meta);
    result
}
