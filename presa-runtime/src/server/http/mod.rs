//! Streamable HTTP (MCP 2026-07-28): a [`Server`](super::Server) as the
//! POST endpoint of an axum application.
//!
//! Each request is its own POST, answered with JSON or, when
//! notifications come before the response, with a server-sent event
//! stream; closing that stream cancels the request. There are no sessions:
//! the caller of each request comes from its credentials, through an
//! [`Authenticator`]. See [`StreamableHttp`] for the order of the checks.
//!
//! | file | what it holds |
//! |---|---|
//! | `guard` | [`AllowedHosts`]: the DNS-rebinding check of `Host` and `Origin` |
//! | `auth` | [`Authenticator`], [`BearerTokens`], [`ProtectedResourceMetadata`] |
//! | `headers` | the `Mcp-*` headers checked against the body |
//! | `respond` | JSON or an event stream, and the status of each error |
//! | `endpoint` | [`StreamableHttp`]: routes, the order of checks, serving |

mod auth;
mod endpoint;
mod guard;
mod headers;
mod respond;

pub use auth::{Anonymous, Authenticator, BearerTokens, ProtectedResourceMetadata, Refusal};
pub use endpoint::StreamableHttp;
pub use guard::AllowedHosts;
