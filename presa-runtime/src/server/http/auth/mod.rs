//! Who is calling: the authentication hook, its refusals, bearer tokens,
//! OAuth access tokens, and the Protected Resource Metadata that tells a
//! client where to get a token.
//!
//! Over HTTP the caller is not a connection but a request: each one
//! presents its credentials, and an [`Authenticator`] maps them to the
//! [`Caller`] whose principal owns tasks and `requestState` and whose
//! scopes the handlers require. A refusal is answered by these rules
//! (RFC 6750 section 3, RFC 9449 section 7.1, and the MCP authorization
//! spec):
//!
//! 1. no credentials: `401` with a `WWW-Authenticate: Bearer` challenge
//!    whose `resource_metadata` names the server's Protected Resource
//!    Metadata (RFC 9728), where an OAuth client learns the authorization
//!    server, and no error code;
//! 2. credentials that do not hold (a bad signature, another audience, an
//!    expired token): `401` with `error="invalid_token"` and a short
//!    `error_description` that names the kind of failure only; the cause
//!    goes to `tracing`, never to the client;
//! 3. a valid token without the scopes a handler declares: `403` with
//!    `error="insufficient_scope"` and every scope the operation needs
//!    (the step-up challenge);
//! 4. the server cannot check the token now (its authorization server is
//!    unreachable for keys it does not hold): `503` with `Retry-After`, a
//!    failure of the server's, not the caller's;
//! 5. a resource that takes DPoP-bound tokens (its metadata names
//!    `dpop_signing_alg_values_supported`) adds a `DPoP` challenge with
//!    the same parameters and `algs`, the algorithms it accepts; one that
//!    takes nothing else (`dpop_bound_access_tokens_required`) sends the
//!    `DPoP` challenge alone;
//! 6. a DPoP proof that does not hold (RFC 9449 section 4.3): `401` with a
//!    `DPoP` challenge alone, `error="invalid_dpop_proof"`.
//!
//! [`BearerTokens`] covers fixed tokens issued out of band;
//! `OAuth` (feature `oauth`) validates the access tokens of
//! any standard authorization server.
//!
//! Layers, bottom up: authenticator, bearer, oauth.

mod authenticator;
mod bearer;
#[cfg(feature = "oauth")]
mod oauth;

pub use crate::oauth::resource_metadata::ProtectedResourceMetadata;
pub(crate) use authenticator::challenge;
pub use authenticator::{Anonymous, Authenticator, Refusal};
pub use bearer::BearerTokens;
#[cfg(feature = "oauth")]
pub use oauth::{
    DpopProofId, DpopReplayCache, DpopSettings, Introspection, KeySettings, OAuth, OAuthBuilder,
    OAuthConfigError,
};
