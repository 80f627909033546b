//! Checking the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` headers against the request body.
//!
//! Intermediaries route on the headers; the server executes the body. If
//! the two could disagree, a load balancer could be made to send one tool
//! call to a replica that runs another, so every mirrored value is
//! compared, after decoding, and a disagreement is a `400` with `-32020`:
//!
//! 1. `MCP-Protocol-Version` is required and equals `_meta`'s version;
//! 2. `Mcp-Method` is required and equals the method;
//! 3. `Mcp-Name` is required, for the methods that have one (a core
//!    method's [`Method::name_param`], or an extension method's
//!    [`name_param`](crate::server::extension::ExtensionMethod::name_param)),
//!    and equals that param;
//! 4. for `tools/call`, each `Mcp-Param-{name}` the tool declares is
//!    present exactly when its argument has a value, and equals it
//!    (integers compared as numbers).
//!
//! Values the body lacks are not compared: the request then fails its own
//! validation (`-32602`), which says more.

use std::borrow::Cow;

use axum::http::HeaderMap;
use serde_json::{Map, Value};

use crate::server::request::reply::header_mismatch;
use crate::server::router::Server;
use crate::wire::headers::{self, HeaderParam, decode_value};
use crate::wire::{ErrorObject, META_PROTOCOL_VERSION, Method, Request};

/// Checks `request`'s mirrored headers; `-32020` for the first mismatch.
pub(super) fn check(
    headers: &HeaderMap,
    request: &Request,
    server: &Server,
) -> Result<(), ErrorObject> {
    let params = request.params.as_ref();
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let version = required(headers, headers::PROTOCOL_VERSION)?;
    if let Some(body) = body_version
        && version != body
    {
        return Err(differs(headers::PROTOCOL_VERSION, &version, body));
    }
    let method = required(headers, headers::METHOD)?;
    if method != request.method {
        return Err(differs(headers::METHOD, &method, &request.method));
    }
    if let Some(field) = server.name_param(&request.method)
        && let Some(body) = params.and_then(|p| p.get(field)).and_then(Value::as_str)
    {
        let name = required(headers, headers::NAME)?;
        if name != body {
            return Err(differs(headers::NAME, &name, body));
        }
    }
    if request.method == Method::ToolsCall.as_str() {
        check_tool_params(headers, params, server)?;
    }
    Ok(())
}

/// Rule 4, for the tool the body names.
fn check_tool_params(
    headers: &HeaderMap,
    params: Option<&Value>,
    server: &Server,
) -> Result<(), ErrorObject> {
    let Some(tool) = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .and_then(|name| server.tool(name))
    else {
        return Ok(());
    };
    let empty = Map::new();
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for param in &tool.headers {
        check_param(headers, param, arguments)?;
    }
    Ok(())
}

fn check_param(
    headers: &HeaderMap,
    param: &HeaderParam,
    arguments: &Map<String, Value>,
) -> Result<(), ErrorObject> {
    let name = param.header_name();
    let header = optional(headers, &name)?;
    match (param.value_in(arguments), header) {
        // A value of the wrong type fails the argument check, which says more.
        (Some(Err(_)), _) | (None, None) => Ok(()),
        (Some(Ok(body)), Some(header)) if same_value(&header, &body) => Ok(()),
        (Some(Ok(body)), Some(header)) => Err(differs(&name, &header, &body)),
        (Some(Ok(_)), None) => Err(header_mismatch(format!(
            "the {name} header is missing, but the argument it mirrors has a value"
        ))),
        (None, Some(_)) => Err(header_mismatch(format!(
            "the {name} header is present, but the argument it mirrors has no value"
        ))),
    }
}

/// Equal as text, or as numbers when both are numbers (`42` and `42.0`).
fn same_value(header: &str, body: &str) -> bool {
    if header == body {
        return true;
    }
    match (header.parse::<f64>(), body.parse::<f64>()) {
        (Ok(h), Ok(b)) => h == b,
        _ => false,
    }
}

/// The decoded value of header `name`; `-32020` when it is missing.
fn required<'h>(headers: &'h HeaderMap, name: &str) -> Result<Cow<'h, str>, ErrorObject> {
    optional(headers, name)?.ok_or_else(|| header_mismatch(format!("the {name} header is missing")))
}

/// The decoded value of header `name`, if present; `-32020` when it is
/// given twice or cannot be decoded.
fn optional<'h>(headers: &'h HeaderMap, name: &str) -> Result<Option<Cow<'h, str>>, ErrorObject> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(header_mismatch(format!("the {name} header is given twice")));
    }
    decode_value(value.as_bytes())
        .map(Some)
        .map_err(|e| header_mismatch(format!("the {name} header is malformed: {e}")))
}

fn differs(name: &str, header: &str, body: &str) -> ErrorObject {
    header_mismatch(format!(
        "{name} header value {header:?} does not match the body value {body:?}"
    ))
}
