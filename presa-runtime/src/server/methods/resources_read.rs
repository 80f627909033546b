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
//!
//! Steps 2 and 3 are the MRTR pipeline all three handler methods share
//! ([`Round`]).

use std::sync::Arc;

use futures::FutureExt;
use serde_json::{Map, Value};

use crate::server::handlers::resource::ReadRequest;
use crate::server::methods::mrtr::{Carried, Inbound, RequestEnv, Round, Target};
use crate::server::middleware::invocation::{Handled, HandlerRun, Invocation};
use crate::server::middleware::stack::invoke;
use crate::server::request::error::Origin;
use crate::server::request::reply::{parse_params, resource_not_found};
use crate::wire::{ErrorObject, Method, ReadResourceParams};

/// Answers one `resources/read`.
pub(crate) async fn read_resource(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    request: Inbound<'_>,
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
        .filter(|(resource, _)| env.visible(request.caller, resource.catalog_item()))
        .ok_or_else(|| resource_not_found(&uri))?;
    env.authorize(
        request.caller,
        &format!("resource `{uri}`"),
        resource.scopes,
    )?;
    let read = ReadRequest {
        uri: uri.clone(),
        variables,
        mime_type: resource.mime_type().map(str::to_owned),
        cache: resource.cache,
    };
    let target = Target {
        method: Method::ResourcesRead,
        origin: Origin::Resource(&uri),
        arguments: &Map::new(),
    };
    let carried = Carried {
        request_state,
        input_responses,
    };
    let info = request.info();
    let round = Round::open(env, target, carried, info, request)?;
    if env.layers.is_none() && resource.layers.is_none() {
        return round.run(|ctx| resource.handler.read(ctx, read)).await;
    }
    let variables = read
        .variables
        .iter()
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect();
    let handler = Arc::clone(&resource.handler);
    let run: HandlerRun = Box::new(move |ctx, _| {
        async move { Handled::Resource(handler.read(ctx, read).await) }.boxed()
    });
    let (server, own) = (env.layers, resource.layers.as_ref());
    let uri = uri.clone();
    round
        .run(|ctx| async move {
            let invocation = Invocation::new(Method::ResourcesRead, uri, variables, ctx, run);
            invoke(server, own, invocation).await.into_resource()
        })
        .await
}
