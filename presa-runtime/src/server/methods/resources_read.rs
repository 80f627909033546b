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

use serde_json::{Map, Value};

use crate::server::handlers::resource::ReadRequest;
use crate::server::methods::mrtr::{Carried, Inbound, RequestEnv, Round, Target};
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
    round.run(|ctx| resource.handler.read(ctx, read)).await
}
