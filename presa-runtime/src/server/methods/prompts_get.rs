//! `prompts/get`: from the validated request to the prompt's messages.
//!
//! 1. the prompt is looked up (`-32602` when unknown);
//! 2. every argument the prompt lists as required must be there (`-32602`
//!    naming the first one missing);
//! 3. earlier MRTR answers are recovered from the verified `requestState`,
//!    bound to `prompts/get`, the caller, the prompt and its arguments;
//! 4. the handler runs with a [`Context`](crate::server::Context), as a tool does,
//!    and its verdict is the response.
//!
//! Steps 3 and 4 are the MRTR pipeline all three handler methods share
//! ([`Round`]).

use std::sync::Arc;

use futures::FutureExt;
use serde_json::{Map, Value};

use crate::server::methods::mrtr::{Carried, Inbound, RequestEnv, Round, Target};
use crate::server::middleware::invocation::{Handled, HandlerRun, Invocation};
use crate::server::middleware::stack::invoke;
use crate::server::request::error::Origin;
use crate::server::request::reply::{invalid_params, parse_params, unknown_prompt};
use crate::wire::{ErrorObject, GetPromptParams, Method, Prompt, PromptArguments};

/// Answers one `prompts/get`.
pub(crate) async fn get_prompt(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    request: Inbound<'_>,
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
        .filter(|prompt| env.visible(request.caller, prompt.catalog_item()))
        .ok_or_else(|| unknown_prompt(&name))?;
    env.authorize(request.caller, &format!("prompt `{name}`"), prompt.scopes)?;
    let arguments = arguments.unwrap_or_default();
    check_required(&prompt.definition, &arguments)?;
    let bound = as_json(&arguments);
    let target = Target {
        method: Method::PromptsGet,
        origin: Origin::Prompt(&name),
        arguments: &bound,
    };
    let carried = Carried {
        request_state,
        input_responses,
    };
    let info = request.info();
    let round = Round::open(env, target, carried, info, request)?;
    if env.layers.is_none() && prompt.layers.is_none() {
        return round.run(|ctx| prompt.handler.get(ctx, arguments)).await;
    }
    let handler = Arc::clone(&prompt.handler);
    let run: HandlerRun = Box::new(move |ctx, _| {
        async move { Handled::Prompt(handler.get(ctx, arguments).await) }.boxed()
    });
    let (server, own) = (env.layers, prompt.layers.as_ref());
    let (name, bound) = (name.clone(), bound.clone());
    round
        .run(|ctx| async move {
            let invocation = Invocation::new(Method::PromptsGet, name, bound, ctx, run);
            invoke(server, own, invocation).await.into_prompt()
        })
        .await
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
