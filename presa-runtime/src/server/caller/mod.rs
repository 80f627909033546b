//! [`Caller`]: who is on the other end of a request, and what it may do.
//!
//! The transport says who the caller is: stdio and in-process connections
//! carry the one caller they were opened with, and over HTTP each request
//! is authenticated on its own. What the server does with it:
//!
//! 1. tasks and `requestState` belong to the caller's *principal*: its
//!    issuer and subject together, so that two authorization servers'
//!    `sub` values never name the same owner (a caller with no issuer is
//!    its subject alone);
//! 2. an anonymous caller in a legacy session owns its tasks through the
//!    session, so that two anonymous sessions cannot see each other's;
//! 3. a handler that declares scopes runs only for a caller holding them
//!    ([`Scopes`]);
//! 4. handlers see the caller through their [`Context`](super::Context),
//!    and through the [`Scopes`] and [`Claims`](super::Claims)
//!    extractors.
//!
//! Layers, bottom up: scopes, identity, authorize.

pub(crate) mod authorize;
mod identity;
mod scopes;

#[cfg(feature = "http-server")]
pub(crate) use identity::without_credentials;
pub use identity::{Caller, ScopeList};
pub use scopes::Scopes;
