//! OAuth 2.1 for the Streamable HTTP client (feature `oauth-client`): a
//! client that signs in to any MCP server following the MCP authorization
//! spec.
//!
//! The user configures an [`OAuthClient`] once and gives it to
//! [`HttpOptions::oauth`](crate::client::HttpOptions::oauth). Nothing happens
//! until a server answers `401`; then, in order:
//!
//! 1. discovery (`discovery`): the `WWW-Authenticate` challenge
//!    (`discovery::challenge`), the resource's metadata, its authorization
//!    server's. A client bound to an issuer (`discovery::binding`) signs in
//!    there or nowhere.
//!    Every URL a server names must be https to a public address, or
//!    loopback for a server on loopback, or a private network with
//!    [`OAuthClient::allow_private_networks`]; the client refuses any
//!    other before sending anything (`crate::oauth::destinations`);
//! 2. registration (`registration`): pre-registered, a Client ID Metadata
//!    Document, or dynamic registration;
//! 3. the authorization code grant with PKCE (`token::pkce`), the
//!    user-agent step an [`Authorizer`]'s, its response checked (RFC 9207
//!    `iss`, `state`);
//! 4. the token request (`token::endpoint`), naming the resource (RFC 8707);
//! 5. the request again, with the token; `session` says what later `401`s
//!    and `403`s do (refresh, sign in again, step up), once for all the
//!    requests that meet them.
//!
//! A client that holds a credential (a client secret, a private key, a
//! workload's assertion, an enterprise sign-in) is an
//! [`UnboundOAuthClient`] until
//! [`registered_with`](UnboundOAuthClient::registered_with) names the
//! authorization server the credential belongs to: its credentials go
//! there and nowhere else, whatever a resource names.
//!
//! Tokens are kept by a [`TokenStore`] (in memory unless told), keyed by
//! the endpoint. No token, secret or code appears in a log line, an
//! error or a `Debug` output.
//!
//! Layers, bottom up: error, authorizer, store, token, discovery, config, registration, session.

mod authorizer;
mod config;
mod discovery;
mod error;
mod registration;
mod session;
mod store;
mod token;

pub use async_trait::async_trait;
pub use authorizer::{Authorizer, AuthorizerError, LoopbackAuthorizer, SIGN_IN_TIMEOUT};
pub use config::{BoundOAuthClient, IdentityProvider, OAuthClient, UnboundOAuthClient};
pub(crate) use discovery::Challenge;
pub use error::{OAuthError, Step};
pub(crate) use session::OAuthSession;
pub use store::{FileTokenStore, MemoryTokenStore, SignedIn, TokenStore, TokenStoreError};
pub use token::ClientKey;
