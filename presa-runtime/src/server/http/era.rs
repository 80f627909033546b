//! [`HttpEra`]: what the endpoint asks of the eras it serves beside the
//! modern one, and [`Modern`], the answers of 2026-07-28.
//!
//! Every request is checked the same way up to its body (see `endpoint`).
//! What differs is asked of the endpoint's era at three points, one method
//! each: whether a POST is the era's to answer, and how a `GET` and a
//! `DELETE` are answered. The default methods are the modern era, which
//! takes every POST itself and has no use for `GET` or `DELETE` (`405`);
//! the legacy transport (`legacy`) is the other implementation.

use axum::http::HeaderMap;
use axum::response::Response;

use super::admission::{Account, Admission};
use super::respond::method_not_allowed;
use crate::server::caller::Caller;
use crate::server::router::Server;
use crate::server::transports::shutdown::Shutdown;
use crate::wire::Message;

/// What the endpoint shares with its era for one request.
#[derive(Clone, Copy)]
pub(super) struct Shared<'a> {
    /// The server the endpoint serves.
    pub server: &'a Server,
    /// What each caller holds, and may hold, of the endpoint.
    pub admission: &'a Admission,
    /// When serving ends.
    pub shutdown: &'a Shutdown,
}

/// The era the endpoint serves beside the modern one.
pub(super) trait HttpEra: Send + Sync {
    /// Answers a POST of `message` with `headers`, by `caller` and counted
    /// against `account`, when it is this era's; gives `message` back when
    /// it is the modern path's, as every POST is in the modern era.
    fn post(
        &self,
        shared: Shared<'_>,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
        message: Message,
    ) -> Result<Response, Message> {
        let _ = (shared, headers, caller, account);
        Err(message)
    }

    /// Answers a `GET` with `headers` by `caller`, counted against
    /// `account`: `405` in the modern era.
    fn get(
        &self,
        shared: Shared<'_>,
        headers: &HeaderMap,
        caller: Caller,
        account: Account,
    ) -> Response {
        let _ = (shared, headers, caller, account);
        method_not_allowed()
    }

    /// Answers a `DELETE` with `headers` by `caller`: `405` in the modern
    /// era.
    fn delete(&self, shared: Shared<'_>, headers: &HeaderMap, caller: Caller) -> Response {
        let _ = (shared, headers, caller);
        method_not_allowed()
    }
}

/// The era of 2026-07-28: each request its own POST, with no session.
pub(super) struct Modern;

impl HttpEra for Modern {}
