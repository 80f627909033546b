//! [`EndpointState`]: what the endpoint holds, shared by every request it
//! serves.
//!
//! Every request is checked the same way up to its body (see `endpoint`).
//! The legacy transport (`legacy`), when the endpoint has one, may then
//! take a POST, and answers `GET` and `DELETE`; without it, every POST is
//! modern and `GET` and `DELETE` get `405`. Deleting 2025-11-25 support
//! deletes the `legacy` field with its folder.

use std::sync::Arc;

use super::admission::Admission;
use super::auth::{Authenticator, ProtectedResourceMetadata};
use super::body::BodyLimits;
use super::forwarded::TrustedProxies;
use super::guard::AllowedHosts;
use super::legacy::{EndpointParts, LegacyTransport};
use crate::server::router::Server;
use crate::server::serving::shutdown::Shutdown;

/// What the endpoint holds; shared by every request, and with the legacy
/// transport.
pub(super) struct EndpointState {
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
    pub(super) body: BodyLimits,
    pub(super) metadata: Option<ProtectedResourceMetadata>,
    /// The legacy transport, which takes the POSTs of 2025-11-25 clients
    /// and answers `GET` and `DELETE`; `None` serves the modern era alone.
    pub(super) legacy: Option<LegacyTransport>,
    /// What each caller holds, and may hold, of the endpoint.
    pub(super) admission: Admission,
    /// When serving ends, if the endpoint is told.
    pub(super) shutdown: Shutdown,
}

impl EndpointState {
    /// What the legacy transport serves its requests with, of what the
    /// endpoint holds.
    pub(super) fn parts(&self) -> EndpointParts<'_> {
        EndpointParts {
            server: &self.server,
            admission: &self.admission,
            shutdown: &self.shutdown,
        }
    }
}
