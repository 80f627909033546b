//! The HTTP link: the client's frames in, POSTs out, answers back as
//! frames.
//!
//! The client core speaks frames over a channel, whatever the transport.
//! Over Streamable HTTP each request is its own POST, answered by a JSON
//! body or an event stream, so the link runs one task per request:
//!
//! 1. it writes the headers the body mirrors (`MCP-Protocol-Version`,
//!    `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the tool's annotated
//!    parameters), plus the bearer token when there is one;
//! 2. it relays what comes back, notifications first, then the response;
//!    a `tools/list` answer teaches it the tools' header parameters, and
//!    loses the tools that cannot be called over HTTP;
//! 3. when the server refuses a tool call's headers (`-32020`), it lists
//!    the tools again and retries once: the tool may have changed;
//! 4. whatever goes wrong on the way (the server unreachable, a status
//!    without a JSON-RPC body, a stream that ends early) becomes an error
//!    response to that request, so no call waits forever.
//!
//! The client cancels a request with `notifications/cancelled`; over HTTP
//! that means closing the request's stream, so the link aborts the task
//! (dropping its connection) and sends nothing.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Map, Value, json};
use tokio::task::AbortHandle;

use super::HttpOptions;
use super::tools::{Known, ToolHeaders};
use crate::transport::{FrameChannel, FrameSender, Inbound};
use crate::wire::headers::{self, encode_value};
use crate::wire::{
    ErrorObject, FrameError, META_PROTOCOL_VERSION, Message, Method, Notification, Outcome,
    Request, RequestId, Response, codes, notifications,
};

/// Connects the client's end of a frame channel to `endpoint`.
pub(crate) fn connect(endpoint: String, options: HttpOptions) -> std::io::Result<FrameChannel> {
    let http = reqwest::Client::builder()
        .build()
        .map_err(std::io::Error::other)?;
    let (client_end, link_end) = FrameChannel::pair();
    let link = Arc::new(Link {
        http,
        endpoint,
        options,
        tools: ToolHeaders::default(),
        to_client: link_end.outgoing,
        refreshes: AtomicU64::new(0),
    });
    tokio::spawn(run(link, link_end.incoming));
    Ok(client_end)
}

/// What every request task shares.
struct Link {
    http: reqwest::Client,
    endpoint: String,
    options: HttpOptions,
    tools: ToolHeaders,
    to_client: FrameSender,
    /// Numbers the link's own `tools/list` requests.
    refreshes: AtomicU64,
}

/// Reads the client's frames until it closes its end, then drops every
/// request still running.
async fn run(link: Arc<Link>, mut from_client: tokio::sync::mpsc::Receiver<Inbound>) {
    let mut running: HashMap<RequestId, AbortHandle> = HashMap::new();
    while let Some(inbound) = from_client.recv().await {
        let Inbound::Frame(frame) = inbound else {
            continue;
        };
        match frame.parse::<Message>() {
            Ok(Message::Request(request)) => {
                running.retain(|_, task| !task.is_finished());
                let id = request.id.clone();
                let task = tokio::spawn(exchange(Arc::clone(&link), request, frame));
                running.insert(id, task.abort_handle());
            }
            Ok(Message::Notification(note)) if note.method == notifications::CANCELLED => {
                if let Some(task) = cancelled_id(&note).and_then(|id| running.remove(&id)) {
                    task.abort();
                }
            }
            Ok(Message::Notification(_)) => {
                tokio::spawn(notify(Arc::clone(&link), frame));
            }
            Ok(Message::Response(_)) | Err(_) => {
                tracing::debug!("the client sent a frame the HTTP link does not forward");
            }
        }
    }
    for task in running.values() {
        task.abort();
    }
}

fn cancelled_id(note: &Notification) -> Option<RequestId> {
    let params = note.params.as_ref()?.get("requestId")?;
    serde_json::from_value(params.clone()).ok()
}

/// One request: its POST, the messages that answer it, and at most one
/// retry after a header mismatch on a tool call.
async fn exchange(link: Arc<Link>, request: Request, frame: String) {
    let method = Method::parse(&request.method);
    let tool = (method == Some(Method::ToolsCall))
        .then(|| {
            request
                .params
                .as_ref()?
                .get("name")?
                .as_str()
                .map(str::to_owned)
        })
        .flatten();
    if let Some(name) = &tool {
        if let Some(Known::Unusable(reason)) = link.tools.get(name) {
            let error = ErrorObject::new(
                codes::INVALID_PARAMS,
                format!("Tool `{name}` cannot be called over HTTP: {reason}"),
            );
            link.deliver(Message::Response(Response::error(Some(request.id), error)))
                .await;
            return;
        }
        if link.tools.get(name).is_none() {
            link.refresh_tools(&request).await;
        }
    }
    let mut response = link.post(&request, &frame, method).await;
    if tool.is_some() && is_header_mismatch(&response) {
        link.refresh_tools(&request).await;
        response = link.post(&request, &frame, method).await;
    }
    link.deliver(Message::Response(response)).await;
}

fn is_header_mismatch(response: &Response) -> bool {
    matches!(&response.outcome, Outcome::Error(e) if e.code == codes::HEADER_MISMATCH)
}

/// Posts a notification; the server's `202` needs no relaying.
async fn notify(link: Arc<Link>, frame: String) {
    let sent = link
        .http
        .post(&link.endpoint)
        .headers(link.base_headers())
        .body(frame)
        .send()
        .await;
    if let Err(error) = sent {
        tracing::debug!(%error, "could not send a notification");
    }
}

impl Link {
    /// Sends `request` and relays its notifications; returns its response,
    /// or an error response saying why there is none.
    async fn post(&self, request: &Request, frame: &str, method: Option<Method>) -> Response {
        let id = request.id.clone();
        let sent = self
            .http
            .post(&self.endpoint)
            .headers(self.headers(request, method))
            .body(frame.to_owned())
            .send()
            .await;
        let reply = match sent {
            Ok(reply) => reply,
            Err(error) => {
                return transport_error(id, format!("could not reach the server: {error}"));
            }
        };
        let mut response = if is_event_stream(reply.headers()) {
            self.read_events(id.clone(), reply).await
        } else {
            self.read_json(id.clone(), reply).await
        };
        if method == Some(Method::ToolsList)
            && let Outcome::Result(result) = &mut response.outcome
        {
            self.tools.learn(result);
        }
        response
    }

    /// Relays an event stream's notifications; returns its response.
    async fn read_events(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let limit = self.options.max_message_size;
        let mut events = reply.bytes_stream().eventsource();
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    return transport_error(id, format!("the event stream broke: {error}"));
                }
            };
            if event.data.len() > limit {
                return transport_error(id, format!("a message exceeds the {limit}-byte limit"));
            }
            match event.data.parse::<Message>() {
                Ok(Message::Response(response)) => return answering(response, id),
                Ok(message) => self.deliver(message).await,
                // The stream answers one request: a malformed response is its answer.
                Err(FrameError::Response { reason, .. }) => {
                    return transport_error(id, format!("malformed response: {reason}"));
                }
                Err(error) => tracing::debug!(?error, "an event that is not a JSON-RPC message"),
            }
        }
        transport_error(
            id,
            "the server ended the event stream without answering".into(),
        )
    }

    /// Reads a JSON body: the response, or the error its status implies.
    async fn read_json(&self, id: RequestId, reply: reqwest::Response) -> Response {
        let status = reply.status();
        let body = match read_limited(reply, self.options.max_message_size).await {
            Ok(body) => body,
            Err(reason) => return transport_error(id, reason),
        };
        match std::str::from_utf8(&body).ok().map(str::parse::<Message>) {
            Some(Ok(Message::Response(response))) => answering(response, id),
            _ => {
                let text = String::from_utf8_lossy(&body);
                let excerpt: String = text.chars().take(200).collect();
                transport_error(
                    id,
                    format!("HTTP {status} without a JSON-RPC answer: {excerpt}"),
                )
            }
        }
    }

    /// Lists every tool again, to learn their header parameters, with the
    /// `_meta` of `request`.
    async fn refresh_tools(&self, request: &Request) {
        let meta = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .cloned();
        let mut cursor: Option<Value> = None;
        // A bound on pages, against a server that never stops paging.
        for _ in 0..100 {
            let number = self.refreshes.fetch_add(1, Ordering::Relaxed);
            let mut params = Map::new();
            if let Some(meta) = &meta {
                params.insert("_meta".into(), meta.clone());
            }
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), cursor);
            }
            let list = Request::new(
                format!("presa-http-tools-{number}").as_str(),
                Method::ToolsList.as_str(),
                Value::Object(params),
            );
            let frame = Message::Request(list.clone()).to_line();
            let response = self.post(&list, &frame, Some(Method::ToolsList)).await;
            let Outcome::Result(result) = response.outcome else {
                return;
            };
            match result.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => return,
            }
        }
    }

    /// The headers of every POST: what the body is, what may come back,
    /// and the bearer token.
    fn base_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Some(token) = &self.options.bearer_token
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    /// The base headers plus those `request`'s body mirrors.
    fn headers(&self, request: &Request, method: Option<Method>) -> HeaderMap {
        let mut headers = self.base_headers();
        let params = request.params.as_ref();
        let version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str);
        let mut put = |name: &str, value: &str| insert(&mut headers, name, value);
        if let Some(version) = version {
            put(headers::PROTOCOL_VERSION, version);
        }
        put(headers::METHOD, &request.method);
        let name = method
            .and_then(Method::name_param)
            .and_then(|field| params?.get(field)?.as_str());
        if let Some(name) = name {
            put(headers::NAME, name);
        }
        if method == Some(Method::ToolsCall)
            && let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
            && let Some(Known::Usable(params_with_headers)) = self.tools.get(tool)
        {
            let empty = Map::new();
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for param in params_with_headers {
                if let Some(Ok(value)) = param.value_in(arguments) {
                    put(&param.header_name(), &value);
                }
            }
        }
        headers
    }

    /// Hands a message to the client.
    async fn deliver(&self, message: Message) {
        // A closed channel means the client is gone; nobody is waiting.
        let _ = self.to_client.send(message.to_line()).await;
    }
}

/// Sets header `name` to `value`, encoded as the header rules say.
fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes());
    let value = HeaderValue::from_str(&encode_value(value));
    if let (Ok(name), Ok(value)) = (name, value) {
        headers.insert(name, value);
    }
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The body of `reply`, refusing one over `limit` bytes as it streams in.
async fn read_limited(reply: reqwest::Response, limit: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut chunks = reply.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| format!("the response broke off: {e}"))?;
        if body.len() + chunk.len() > limit {
            return Err(format!("the response exceeds the {limit}-byte limit"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `response` as the answer to request `id` (an error sent without an id,
/// as servers do for transport-level refusals, is given it).
fn answering(mut response: Response, id: RequestId) -> Response {
    response.id.get_or_insert(id);
    response
}

/// An error response for a request the transport could not complete.
fn transport_error(id: RequestId, reason: String) -> Response {
    tracing::debug!(%id, reason, "HTTP request failed");
    let error = ErrorObject::new(codes::INTERNAL_ERROR, format!("HTTP transport: {reason}"))
        .with_data(json!({ "transport": "http" }));
    Response::error(Some(id), error)
}
