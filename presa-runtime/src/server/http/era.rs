//! [`HttpEra`]: what the endpoint asks of the era it serves beside the
//! modern one, and [`Modern`], the answers of 2026-07-28; with
//! [`Endpoint`], what the endpoint holds, which it shares with its era.
//!
//! Every request is checked the same way up to its body (see `endpoint`).
//! What differs is asked of the endpoint's era at three points, one method
//! each: whether a POST is the era's to answer, and how a `GET` and a
//! `DELETE` are answered. The default methods are the modern era, which
//! takes every POST itself and has no use for `GET` or `DELETE` (`405`);
//! the legacy transport (`legacy`) is the other implementation.

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;

use super::admission::{Account, Admission};
use super::auth::{Authenticator, ProtectedResourceMetadata};
use super::forwarded::TrustedProxies;
use super::guard::AllowedHosts;
use super::respond::method_not_allowed;
use crate::server::caller::Caller;
use crate::server::router::Server;
use crate::server::serving::shutdown::Shutdown;
use crate::wire::Message;

/// What the endpoint holds; shared by every request, and with its era.
pub(super) struct Endpoint {
    pub(super) server: Server,
    pub(super) hosts: AllowedHosts,
    /// The host of the resource URL the endpoint publishes, allowed beside
    /// `hosts` (see `guard`).
    pub(super) published_host: Option<String>,
    /// The proxies whose forwarded header names the client (see
    /// `forwarded`).
    pub(super) proxies: TrustedProxies,
    pub(super) authenticator: Arc<dyn Authenticator>,
    /// What a request body may be: its size, its time and its pace.
    pub(super) body: super::body::BodyLimits,
    pub(super) metadata: Option<ProtectedResourceMetadata>,
    /// The era served beside the modern one, asked at each point where
    /// they differ.
    pub(super) era: Box<dyn HttpEra>,
    /// What each caller holds, and may hold, of the endpoint.
    pub(super) admission: Admission,
    /// When serving ends, if the endpoint is told.
    pub(super) shutdown: Shutdown,
}

/// The era the endpoint serves beside the modern one.
pub(super) trait HttpEra: Send + Sync {
    /// Answers a POST of `message` with `headers`, by `caller` and counted
    /// against `account`, when it is this era's; gives `message` back when
    /// it is the modern path's, as every POST is in the modern era.
    fn post(
        &self,
        endpoint: &Endpoint,
        headers: &HeaderMap,
        caller: &Caller,
        account: &Account,
        message: Message,
    ) -> Result<Response, Message> {
        let _ = (endpoint, headers, caller, account);
        Err(message)
    }

    /// Answers a `GET` with `headers` by `caller`, counted against
    /// `account`: `405` in the modern era.
    fn get(
        &self,
        endpoint: &Endpoint,
        headers: &HeaderMap,
        caller: Caller,
        account: Account,
    ) -> Response {
        let _ = (endpoint, headers, caller, account);
        method_not_allowed()
    }

    /// Answers a `DELETE` with `headers` by `caller`: `405` in the modern
    /// era.
    fn delete(&self, endpoint: &Endpoint, headers: &HeaderMap, caller: Caller) -> Response {
        let _ = (endpoint, headers, caller);
        method_not_allowed()
    }
}

/// The era of 2026-07-28: each request its own POST, with no session.
pub(super) struct Modern;

impl HttpEra for Modern {}
