//! The server's own requests, as a modern server may send them: `ping`,
//! and nothing else.
//!
//! A modern server asks for input inside its results (MRTR), never with a
//! request of its own; a legacy one also asks with requests (see
//! `legacy::answerer`, which answers `ping` through [`PingOnly`] too).
//! Until the era settles legacy, every request of the server's is
//! answered here. The rules of [`PingOnly`], in order:
//!
//! 1. `ping` is answered with `{}`: it asks nothing of the user;
//! 2. any other request gets `-32601`: a modern server never asks that way;
//! 3. once the client is gone, nothing is answered: the reader task
//!    outlives the connection, and must not keep it open by holding a
//!    sender.

use std::sync::Mutex;

use serde_json::json;

use crate::transport::FrameSender;
use crate::util::lock;
use crate::wire::{ErrorObject, Message, Request, RequestId, Response, codes};

/// The method of a ping, in either direction.
const PING: &str = "ping";

/// Answers a modern server: `ping`, and `-32601` for any other request.
pub(crate) struct PingOnly {
    /// Where answers go, until the client is gone (rule 3).
    outgoing: Mutex<Option<FrameSender>>,
}

impl PingOnly {
    /// Answers over `outgoing`.
    pub fn new(outgoing: FrameSender) -> Self {
        PingOnly {
            outgoing: Mutex::new(Some(outgoing)),
        }
    }

    /// Where answers go; `None` once the client is gone.
    pub fn outgoing(&self) -> Option<FrameSender> {
        lock(&self.outgoing).clone()
    }

    /// Answers `ping` (rule 1); hands any other request back.
    pub fn ping(&self, request: Request) -> Option<Request> {
        if request.method != PING {
            return Some(request);
        }
        if let Some(outgoing) = self.outgoing() {
            respond_now(&outgoing, Response::result(request.id, json!({})));
        }
        None
    }

    /// Answers request `id` with the error `code` and `message` at once.
    pub fn refuse(&self, id: RequestId, code: i64, message: String) {
        tracing::debug!(%id, message, "refusing a request from the server");
        if let Some(outgoing) = self.outgoing() {
            let error = ErrorObject::new(code, message);
            respond_now(&outgoing, Response::error(Some(id), error));
        }
    }

    /// Answers a request of the server's as a modern server's: `ping`
    /// (rule 1), and `-32601` for anything else (rule 2).
    pub fn request(&self, request: Request) {
        let Some(request) = self.ping(request) else {
            return;
        };
        let refusal = format!(
            "Method not found: `{}` (this client asks for a server's input through \
             InputRequiredResult, as MCP 2026-07-28 does)",
            request.method
        );
        self.refuse(request.id, codes::METHOD_NOT_FOUND, refusal);
    }

    /// Answers nothing more, and lets go of the outgoing channel: the
    /// client is gone (rule 3).
    pub fn detach(&self) {
        lock(&self.outgoing).take();
    }
}

/// Sends `response` without waiting for room on the channel.
fn respond_now(outgoing: &FrameSender, response: Response) {
    outgoing.send_detached(Message::Response(response).to_line());
}
