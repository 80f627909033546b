//! Steps 1 to 3 of request validation (see the [server docs](crate::server)): the
//! request's `_meta`, its protocol version, and its method, parsed once
//! into a [`Method`] when the core serves it. Any other name may be an
//! extension's method: the router looks it up in the server's extensions,
//! which sit above this folder, and answers `-32601` when none serves it.

use serde_json::Value;

use super::reply::{invalid_params, to_value, unsupported_version};
use crate::wire::legacy::{INITIALIZE, LEGACY_VERSIONS};
use crate::wire::{
    ErrorObject, Method, Request, RequestMeta, UnsupportedVersionData, codes, strict,
};

/// A request that passed steps 1 to 3, taken apart.
pub(crate) struct Validated {
    pub method: CalledMethod,
    pub meta: RequestMeta,
    /// The method's own params, with `_meta` taken out.
    pub params: Option<Value>,
}

/// Checks `request` against the versions this server `supported`s.
pub(crate) fn validate(request: Request, supported: &[String]) -> Result<Validated, ErrorObject> {
    if request.method == INITIALIZE {
        return Err(legacy_initialize(&request, supported));
    }
    let mut params = request.params;
    let meta = params
        .as_mut()
        .and_then(Value::as_object_mut)
        .and_then(|p| p.remove("_meta"))
        .ok_or_else(|| {
            invalid_params(
                "Invalid params: missing `_meta`; every 2026-07-28 request carries \
                 io.modelcontextprotocol/protocolVersion and clientCapabilities there",
            )
        })?;
    let meta: RequestMeta = strict::from_value(meta)
        .map_err(|e| invalid_params(format!("Invalid params: {}", e.under("_meta"))))?;
    if !supported.contains(&meta.protocol_version) {
        return Err(unsupported_version(supported, &meta.protocol_version));
    }
    let method = match Method::parse(&request.method) {
        Some(method) => CalledMethod::Core(method),
        None => CalledMethod::Other(request.method),
    };
    Ok(Validated {
        method,
        meta,
        params,
    })
}

/// The method a request calls.
pub(crate) enum CalledMethod {
    /// A method of the core protocol.
    Core(Method),
    /// Any other name: an extension's method, or none the server serves.
    Other(String),
}

impl CalledMethod {
    /// The method's name, such as `tools/call`.
    pub fn as_str(&self) -> &str {
        match self {
            CalledMethod::Core(method) => method.as_str(),
            CalledMethod::Other(name) => name,
        }
    }
}

/// The answer to an `initialize` that reaches the stateless core: one
/// carrying the modern `_meta`, or one handed to `Server::handle` by a
/// transport that keeps no sessions. Method
/// not found, with a message naming what the server speaks, for a legacy
/// client to show its user.
fn legacy_initialize(request: &Request, supported: &[String]) -> ErrorObject {
    let requested = request
        .params
        .as_ref()
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    ErrorObject::new(
        codes::METHOD_NOT_FOUND,
        format!(
            "`initialize` is not a method of MCP {} (stateless, no handshake), and the client \
             asked for {requested}. A legacy client ({}) opens a session with `initialize` \
             without the modern `_meta`, over stdio or Streamable HTTP.",
            supported.join(", "),
            LEGACY_VERSIONS.join(", ")
        ),
    )
    .with_data(to_value(UnsupportedVersionData {
        supported: supported.to_vec(),
        requested: requested.to_owned(),
    }))
}
