//! [`Era`]: what a connection asks of the era its requests are read in,
//! and [`Modern`], the answers of 2026-07-28.
//!
//! A connection reads, charges, runs and answers its requests the same
//! way in every era (see `connection`). What differs is asked of its era at
//! a few points, one method each: how a request read in it is served,
//! where a response from the client goes, whether a full connection reads
//! on, and how the server's own requests are written. The default methods
//! are the modern era, in which the client never answers and the server
//! never asks; a legacy session on a connection is the other
//! implementation (`legacy/connection`). An era is [`Any`], so that the
//! connection's era can be told apart from another without a method for
//! each.

use std::any::Any;

use crate::server::caller::Caller;
use crate::server::request::stream::ResponseStream;
use crate::server::router::Server;
use crate::util::{BoxFuture, Charge};
use crate::wire::{Request, RequestId, Response};

/// The era a connection's requests are read in. Each request keeps the
/// era it was read in, which serves it.
pub(crate) trait Era: Any + Send + Sync {
    /// Serves `request`, read in this era, on behalf of `caller`, holding
    /// `charge` until its handler ends.
    fn serve(
        &self,
        server: &Server,
        request: Request,
        caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        server.handle_charged(request, caller, charge)
    }

    /// Whether the connection must read on even when it has no room: an
    /// answer the era waits for may be behind what it would not read.
    fn awaits_answers(&self) -> bool {
        false
    }

    /// Resolves once the era starts to wait for an answer; never when it
    /// cannot ask.
    fn asked(&self) -> BoxFuture<()> {
        Box::pin(std::future::pending())
    }

    /// Takes a response from the client: in the modern era the server
    /// asks nothing, so it is logged and dropped.
    fn on_response(&self, response: Response) {
        let _ = response;
        tracing::warn!("ignoring a response from the client; clients must not send them");
    }

    /// Whether a request of the server's own, `id`, is still to be
    /// written; it is about to be.
    fn sending(&self, _id: &RequestId) -> bool {
        true
    }

    /// The transport has taken request `id` of the server's own to write.
    fn sent(&self, _id: &RequestId) {}

    /// The client's input has ended: no answer of its can come any more.
    fn end_of_input(&self) {}

    /// The connection is gone: what the era still writes has no one left
    /// to wait for it.
    fn closed(&self) {}
}

/// The era of 2026-07-28: every request stands on its own.
pub(crate) struct Modern;

impl Era for Modern {}
