//! Serving a [`Server`] over one transport connection.
//!
//! The connection is the only place that knows several requests share a
//! channel: it runs each request on its own tokio task, tracks them by id so
//! that `notifications/cancelled` can drop the right one, and answers frames
//! that are not requests at all (`-32700`, `-32600`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::task::{AbortHandle, JoinSet};

use super::Server;
use crate::transport::{FrameChannel, FrameSender, Inbound};
use crate::wire::{
    ErrorObject, Message, Notification, Request, RequestId, Response, codes, notifications,
};

/// The authenticated identity behind a connection, supplied by the
/// transport. Tasks and `requestState` are bound to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The subject; `None` for an anonymous caller.
    pub subject: Option<String>,
}

impl Caller {
    /// An anonymous caller.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller authenticated as `subject`.
    pub fn subject(subject: impl Into<String>) -> Self {
        Caller {
            subject: Some(subject.into()),
        }
    }
}

type InFlight = Arc<Mutex<HashMap<RequestId, AbortHandle>>>;

/// How long requests still running when the peer closes the connection may
/// take to finish before they are dropped.
pub const CLOSE_DRAIN: Duration = Duration::from_secs(30);

/// Serves `server` over `channel` until the peer closes it.
///
/// Requests still running then get up to [`CLOSE_DRAIN`] to finish, so a
/// client that writes its requests and closes its side (`printf … | server`)
/// still reads the answers; whatever is left after that is dropped.
pub async fn serve(server: Server, channel: FrameChannel, caller: Caller) {
    let FrameChannel {
        mut incoming,
        outgoing,
    } = channel;
    let in_flight: InFlight = Arc::default();
    let mut tasks = JoinSet::new();
    while let Some(inbound) = incoming.recv().await {
        match inbound {
            Inbound::Oversized { limit } => {
                let error = ErrorObject::new(
                    codes::INVALID_REQUEST,
                    format!(
                        "Invalid request: message exceeds the {limit}-byte limit and was discarded"
                    ),
                );
                send(&outgoing, Response::error(None, error).into()).await;
            }
            Inbound::Frame(frame) => match frame.parse::<Message>() {
                Err(e) => send(&outgoing, e.to_response().into()).await,
                Ok(Message::Request(request)) => {
                    start_request(&server, &caller, request, &outgoing, &in_flight, &mut tasks)
                        .await
                }
                Ok(Message::Notification(n)) => on_notification(n, &in_flight),
                Ok(Message::Response(_)) => {
                    tracing::warn!(
                        "ignoring a response from the client; clients must not send them"
                    )
                }
            },
        }
        while tasks.try_join_next().is_some() {}
    }
    let drained = tokio::time::timeout(CLOSE_DRAIN, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            left = tasks.len(),
            "the peer closed the connection; dropping requests still running after the drain period"
        );
        tasks.abort_all();
    }
}

async fn start_request(
    server: &Server,
    caller: &Caller,
    request: Request,
    outgoing: &FrameSender,
    in_flight: &InFlight,
    tasks: &mut JoinSet<()>,
) {
    let id = request.id.clone();
    if in_flight.lock().expect("in-flight lock").contains_key(&id) {
        let error = ErrorObject::new(
            codes::INVALID_REQUEST,
            format!("Invalid request: id {id} is already in use by a request in flight"),
        );
        send(outgoing, Response::error(Some(id), error).into()).await;
        return;
    }
    let mut stream = server.handle(request, caller);
    let outgoing = outgoing.clone();
    let registry = Arc::clone(in_flight);
    let task_id = id.clone();
    // Holding the lock across `spawn` keeps the task from unregistering
    // itself before it is registered.
    let mut running = in_flight.lock().expect("in-flight lock");
    let handle = tasks.spawn(async move {
        while let Some(message) = stream.next().await {
            if outgoing.send(message.to_line()).await.is_err() {
                break;
            }
        }
        registry.lock().expect("in-flight lock").remove(&task_id);
    });
    running.insert(id, handle);
}

fn on_notification(notification: Notification, in_flight: &InFlight) {
    if notification.method != notifications::CANCELLED {
        tracing::debug!(method = notification.method, "ignoring notification");
        return;
    }
    let params = notification
        .params
        .and_then(|p| serde_json::from_value::<notifications::CancelledParams>(p).ok());
    let Some(params) = params else {
        tracing::debug!("ignoring a malformed notifications/cancelled");
        return;
    };
    if let Some(handle) = in_flight
        .lock()
        .expect("in-flight lock")
        .remove(&params.request_id)
    {
        tracing::debug!(id = %params.request_id, reason = ?params.reason, "cancelling request");
        handle.abort();
    }
}

async fn send(outgoing: &FrameSender, message: Message) {
    // A closed channel means the peer is gone; there is no one to tell.
    let _ = outgoing.send(message.to_line()).await;
}

/// Logs an internal failure. The cause never goes to the peer; it goes to
/// `tracing`, or to stderr when no subscriber is installed.
pub(crate) fn report_internal(tool: &str, cause: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!(tool, cause, "tool failed with an internal error");
    } else {
        eprintln!("presa: tool `{tool}` failed with an internal error: {cause}");
    }
}
