//! The HTTP link: the client's frames in, POSTs out, answers back as
//! frames. This file runs it; `link` holds what its tasks share.
//!
//! The client core speaks frames over a channel, whatever the transport.
//! Over Streamable HTTP each message is its own POST; a request's answer
//! is a JSON body or an event stream, so the link runs one task per
//! request:
//!
//! 1. it writes the headers a modern request's body mirrors
//!    (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*`
//!    for the tool's annotated parameters);
//! 2. it relays what comes back, the server's notifications and requests
//!    first, then the response (see `reply`); a modern `tools/list` answer
//!    teaches it the tools' header parameters, and loses the tools that
//!    cannot be called over HTTP;
//! 3. when a modern server refuses a tool call's headers (`-32020`), it
//!    lists the tools again and retries once: the tool may have changed;
//! 4. whatever goes wrong on the way (the server unreachable, a status
//!    without a JSON-RPC body, a stream that ends early and cannot be
//!    resumed) becomes an error response to that request, so no call
//!    waits forever.
//!
//! The client's notifications are POSTed as they come. The client cancels
//! a request with `notifications/cancelled`: the link aborts the request's
//! task, which closes its stream.
//!
//! What belongs to a legacy session (`initialize` and every message after
//! it: the session's headers, `notifications/initialized` in order, the
//! client's responses to the server's requests, a cancellation posted
//! too) is handed to `legacy` first, which builds the link's
//! `OnClose` too.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::legacy::{self, LegacyLink};
use super::link::Link;
use super::options::{HttpOptions, OnClose};
use super::tools::Known;
use crate::transport::{FrameChannel, Inbound};
use crate::wire::{
    ErrorObject, Message, Method, Notification, Outcome, Request, RequestId, Response, codes,
    notifications,
};

/// Connects the client's end of a frame channel to `endpoint`; what the
/// link ends when the client closes.
pub(crate) fn connect(
    endpoint: String,
    options: HttpOptions,
) -> std::io::Result<(FrameChannel, OnClose)> {
    let http = reqwest::Client::builder()
        // A redirect would carry the request's credentials elsewhere:
        // `authorized` refuses it, and says where it pointed.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(std::io::Error::other)?;
    let (client_end, link_end) = FrameChannel::pair();
    let link = Arc::new(Link::new(http, endpoint, options, link_end.outgoing)?);
    let legacy = Arc::new(LegacyLink::new(Arc::clone(&link)));
    let on_close = legacy::on_close(&legacy);
    tokio::spawn(run(legacy, link_end.incoming, on_close.clone()));
    Ok((client_end, on_close))
}

/// Reads the client's frames until it closes its end, then drops every
/// request still running and runs `on_close`.
async fn run(
    legacy: Arc<LegacyLink>,
    mut from_client: crate::transport::Incoming,
    on_close: OnClose,
) {
    let link = Arc::clone(&legacy.link);
    while let Some(inbound) = from_client.recv().await {
        let Inbound::Frame(frame) = inbound else {
            continue;
        };
        let Ok(message) = frame.parse::<Message>() else {
            tracing::debug!("the client sent a frame the HTTP link does not forward");
            continue;
        };
        let Some(message) = legacy::forward(&legacy, message, &frame).await else {
            continue;
        };
        match message {
            Message::Request(request) => {
                let id = request.id.clone();
                let task = tokio::spawn(exchange(Arc::clone(&link), request, frame));
                link.track(id, task.abort_handle());
            }
            Message::Notification(note) if note.method == notifications::CANCELLED => {
                if let Some(id) = cancelled_id(&note) {
                    link.stop(&id);
                }
            }
            Message::Notification(_) => {
                let link = Arc::clone(&link);
                tokio::spawn(async move { link.post_message(&link.base_headers(), &frame).await });
            }
            Message::Response(_) => {
                tracing::debug!("the client sent a frame the HTTP link does not forward");
            }
        }
    }
    link.stop_all();
    on_close.run().await;
}

fn cancelled_id(note: &Notification) -> Option<RequestId> {
    let params = note.params.as_ref()?.get("requestId")?;
    serde_json::from_value(params.clone()).ok()
}

/// One request: its POST, the messages that answer it, and at most one
/// retry after a header mismatch on a modern tool call.
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

impl Link {
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
}
