//! The requests a legacy server sends its client, answered through the
//! same handlers that answer a modern server's input requests.
//!
//! A modern server asks for input inside its result (MRTR); a legacy one
//! sends `elicitation/create`, `sampling/createMessage` or `roots/list` as
//! a request of its own and waits for the response. The caller's handlers
//! are the same either way, so a client need not know which era it talks
//! to. The answerer belongs to the legacy server (`server`), so it answers
//! only once the era settled legacy; until then, and for `ping`, the
//! connection answers as to a modern server (`ping::PingOnly`). The rules,
//! in order:
//!
//! 1. `ping` is answered as a modern server's is, with `{}`;
//! 2. each request goes to its handler on a tokio task of its own, so the
//!    reader keeps reading while a user thinks. A legacy request is filed
//!    under no key, so the handler's [`PendingInput::key`] is the
//!    request's JSON-RPC id, and its `task_id` is the task the request's
//!    `_meta` names (`io.modelcontextprotocol/related-task`);
//! 3. a method with no handler is `-32601`, params that do not read are
//!    `-32602`, an id already being answered is `-32600`, a sampling
//!    request the handler declines is `-1`, "User rejected sampling
//!    request" (see `input::sampling`);
//! 4. at most [`MAX_ANSWERING`] requests are answered at once; past that a
//!    request gets `-32603` at once, so a server cannot make the client
//!    hold an unbounded number of waiting handlers;
//! 5. the server's `notifications/cancelled` for a request being answered
//!    drops its handler, and no response is sent, as cancellation asks;
//!    so does the end of the connection, or the client dropping it, for
//!    every request being answered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::task::AbortHandle;

use crate::client::connection::ping::PingOnly;
use crate::client::error::ClientError;
use crate::client::input::{Handlers, PendingInput, legacy_refusal};
use crate::transport::FrameSender;
use crate::util::lock;
use crate::wire::legacy::requests::IncomingRequest;
use crate::wire::{ErrorObject, Message, Request, RequestId, Response, codes};

/// How many server requests may be answered at once.
pub(crate) const MAX_ANSWERING: usize = 64;

/// Answers the server's requests; shared by the reader and the connection.
pub(crate) struct Answerer {
    handlers: Arc<Handlers>,
    /// The answers being worked on, by the server's request id.
    running: Arc<Mutex<HashMap<RequestId, AbortHandle>>>,
}

impl Answerer {
    /// An answerer that answers through `handlers`.
    pub fn new(handlers: Arc<Handlers>) -> Self {
        Answerer {
            handlers,
            running: Arc::default(),
        }
    }

    /// Answers `request`, now or from a task of its own, over `ping`'s
    /// outgoing channel; nothing once the client is gone.
    pub fn answer(&self, request: Request, ping: &PingOnly) {
        let Some(request) = ping.ping(request) else {
            return;
        };
        let Some(outgoing) = ping.outgoing() else {
            return;
        };
        let id = request.id.clone();
        let mut running = lock(&self.running);
        if running.contains_key(&id) {
            drop(running);
            let refusal = format!("request {id} is already being answered");
            return ping.refuse(id, codes::INVALID_REQUEST, refusal);
        }
        if running.len() >= MAX_ANSWERING {
            drop(running);
            let refusal =
                format!("the client is already answering {MAX_ANSWERING} requests; retry later");
            return ping.refuse(id, codes::INTERNAL_ERROR, refusal);
        }
        let answering = Answering {
            handlers: Arc::clone(&self.handlers),
            outgoing,
            running: Arc::clone(&self.running),
            request,
        };
        // Registered under the lock, so that an answer that finishes at
        // once cannot leave before it is registered.
        let task = tokio::spawn(answering.run());
        running.insert(id, task.abort_handle());
    }

    /// Drops the handler answering the server's request `id`; whether one
    /// was.
    pub fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.running).remove(id) {
            Some(task) => {
                task.abort();
                true
            }
            None => false,
        }
    }

    /// Drops every handler still answering: the server is gone.
    pub fn stop_all(&self) {
        for (_, task) in lock(&self.running).drain() {
            task.abort();
        }
    }
}

/// One request being answered, on a task of its own.
struct Answering {
    handlers: Arc<Handlers>,
    outgoing: FrameSender,
    running: Arc<Mutex<HashMap<RequestId, AbortHandle>>>,
    request: Request,
}

impl Answering {
    async fn run(self) {
        let Answering {
            handlers,
            outgoing,
            running,
            request,
        } = self;
        let id = request.id.clone();
        // Ends the registration however the task ends: answered, failed,
        // or aborted by the server's cancellation.
        let _registered = Registered {
            running,
            id: id.clone(),
        };
        let response = match respond(&handlers, request).await {
            Ok(result) => Response::result(id, result),
            Err(error) => Response::error(Some(id), error),
        };
        // A closed channel means the client is gone; nobody needs it.
        let _ = outgoing.send(Message::Response(response).to_line()).await;
    }
}

/// Removes an answer's registration when its task ends.
struct Registered {
    running: Arc<Mutex<HashMap<RequestId, AbortHandle>>>,
    id: RequestId,
}

impl Drop for Registered {
    fn drop(&mut self) {
        lock(&self.running).remove(&self.id);
    }
}

/// The result of `request`, through the handlers, or the error to answer.
async fn respond(handlers: &Handlers, request: Request) -> Result<Value, ErrorObject> {
    let incoming = IncomingRequest::parse(&request.method, request.params).map_err(|e| {
        let message = format!("Invalid params for `{}`: {e}", request.method);
        ErrorObject::new(codes::INVALID_PARAMS, message)
    })?;
    let pending = PendingInput {
        key: key_of(&request.id),
        task_id: incoming.related_task,
        params: incoming.request,
    };
    let answer = handlers.answer_one(pending).await.map_err(|e| match e {
        ClientError::NoHandler { method } => ErrorObject::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: this client has no handler for `{method}`"),
        ),
        ClientError::SamplingDeclined { reason, .. } => legacy_refusal(reason.as_deref()),
        other => ErrorObject::new(codes::INTERNAL_ERROR, other.to_string()),
    })?;
    serde_json::to_value(answer)
        .map_err(|e| ErrorObject::new(codes::INTERNAL_ERROR, format!("the answer: {e}")))
}

/// The key a handler sees for a legacy request: its id, as text.
fn key_of(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    }
}
