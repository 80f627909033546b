//! Discovery: from a server's `401` to the authorization server a client
//! signs in at, and that server's metadata.
//!
//! The challenge names the resource's metadata (`challenge`); the resource
//! lists its authorization servers (`resource`), or, for a server of the
//! 2025-03-26 spec, its origin is one (`discovery_2025_03_26`). A client
//! bound to an issuer signs in there or nowhere (`binding`). Either way
//! ends in the same [`Discovered`].
//!
//! Layers, bottom up: challenge, discovered, binding, discovery_2025_03_26, resource.

mod binding;
mod challenge;
mod discovered;
mod discovery_2025_03_26;
mod resource;

pub(crate) use challenge::Challenge;
pub(crate) use discovered::Discovered;
pub(crate) use resource::discover_for;
