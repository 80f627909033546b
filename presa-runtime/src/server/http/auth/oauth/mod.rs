//! [`OAuth`]: an OAuth 2.1 resource server that accepts the access tokens
//! of any standard authorization server.
//!
//! The user names the issuer and the resource (the MCP endpoint's
//! canonical URL); the rest is found and checked. A request's path:
//!
//! 1. no `Authorization: Bearer` or `Authorization: DPoP` header: `401`
//!    naming the Protected Resource Metadata;
//! 2. a token shaped as a JWT is checked as one (`jwt`), with the issuer's
//!    keys (`keys`), found through its metadata (`crate::oauth`) or at a
//!    `jwks_uri` given directly;
//! 3. any other token is introspected (`introspection`), when
//!    [`OAuthBuilder::introspection`] is configured, and refused
//!    otherwise; failed introspections are limited per network the
//!    requests come from (`failures`);
//! 4. the caller is the token's subject, vouched for by the issuer, with
//!    the token's scopes and claims;
//! 5. a token bound to a key (`cnf`) is taken only under the `DPoP`
//!    scheme, with a proof signed by that key (`dpop`); the proof is
//!    checked before the token, so that a made-up proof costs nothing.
//!
//! A token refused gets `401` with `error="invalid_token"`; keys or an
//! introspection endpoint that cannot be reached give `503` with
//! `Retry-After` (see [`Refusal`](super::Refusal)), and so does a token
//! whose key is not held once the key set was fetched as often as its
//! pace allows.
//!
//! ```no_run
//! # fn run(server: presa_runtime::server::Server) -> Result<(), presa_runtime::server::http::OAuthConfigError> {
//! use presa_runtime::server::http::{OAuth, StreamableHttp};
//!
//! let oauth = OAuth::issuer("https://auth.example.com/")
//!     .resource("https://mcp.example.com/mcp")
//!     .build()?;
//! let app = StreamableHttp::new(server).oauth(oauth).router("/mcp");
//! # Ok(()) }
//! ```
//!
//! Layers, bottom up: bucket, replay, keys, jwt, failures, introspection, dpop, resource_server.

mod bucket;
mod dpop;
mod failures;
mod introspection;
mod jwt;
mod keys;
mod replay;
mod resource_server;

pub use dpop::DpopSettings;
pub use introspection::Introspection;
pub use keys::KeySettings;
pub use replay::{DpopProofId, DpopReplayCache};
pub use resource_server::{OAuth, OAuthBuilder, OAuthConfigError};
