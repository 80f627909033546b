//! What the two sides of OAuth share: the documents a resource server
//! publishes and an authorization server serves, where each is found, and
//! how presa fetches them.
//!
//! The resource server (`server::http::OAuth`, feature `oauth`) reads an
//! authorization server's metadata to find its keys; the client
//! (`client::oauth`, feature `oauth-client`) reads a resource's metadata
//! to find its authorization server, then that server's metadata to sign
//! in. Both follow the same rules, so each rule is written once, here:
//!
//! 1. where a document lives (`well_known`): RFC 9728's path-inserted URL
//!    for a resource's metadata, and the three places of RFC 8414 and
//!    OpenID Connect Discovery for an authorization server's, in the
//!    order the MCP authorization spec gives;
//! 2. what a document says (`resource_metadata`, `server_metadata`),
//!    including that an authorization server's metadata names the issuer
//!    it was asked for, exactly;
//! 3. how it is fetched (`fetch`): over HTTPS, or plain HTTP to loopback
//!    only; small; with a timeout; never by following a redirect, since a
//!    document found elsewhere is not the one asked for;
//! 4. where a URL a remote server named may lead the client
//!    (`destinations`, judging addresses by `addresses`): public
//!    addresses, loopback for a server on loopback, private networks when
//!    the user allows them. URLs an operator configured are not held to
//!    this.
//! 5. what a DPoP proof binds (`dpop`): the access token's hash, the URL,
//!    and the key's thumbprint, computed the same way on both sides.
//!
//! Layers, bottom up: addresses, destinations, fetch, trap, well_known, resource_metadata, server_metadata, dpop.

#[cfg(feature = "oauth-client")]
pub(crate) mod addresses;
#[cfg(feature = "oauth-client")]
pub(crate) mod destinations;
#[cfg(any(feature = "oauth", feature = "oauth-client"))]
pub(crate) mod dpop;
#[cfg(any(feature = "oauth", feature = "oauth-client"))]
pub(crate) mod fetch;
pub(crate) mod resource_metadata;
#[cfg(any(feature = "oauth", feature = "oauth-client"))]
pub(crate) mod server_metadata;
#[cfg(all(test, feature = "oauth-client"))]
pub(crate) mod trap;
pub(crate) mod well_known;
