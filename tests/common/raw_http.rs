//! Raw requests to a Streamable HTTP endpoint, with the headers a
//! 2026-07-28 client sends, for the tests that look at statuses, headers
//! and bodies themselves. Shared by tests/http.rs and tests/oauth.rs.
#![allow(dead_code)]

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

/// A POST of `body` with the standard headers (`Mcp-Method`, and
/// `Mcp-Name` from `params.name`, `params.uri` or `params.taskId`);
/// `extra` adds or replaces some.
pub async fn post(url: &str, body: Value, extra: &[(&str, &str)]) -> reqwest::Response {
    let mut headers = HeaderMap::new();
    let mut set = |name: &str, value: &str| {
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    };
    set("content-type", "application/json");
    set("accept", "application/json, text/event-stream");
    set("mcp-protocol-version", super::VERSION);
    set("mcp-method", body["method"].as_str().unwrap_or_default());
    let params = &body["params"];
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .or(params["taskId"].as_str());
    if let Some(name) = name {
        set("mcp-name", name);
    }
    for (header, value) in extra {
        set(header, value);
    }
    reqwest::Client::new()
        .post(url)
        .headers(headers)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// The status of `response`, and its body as JSON (`null` when it is not).
pub async fn status_and_body(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}
