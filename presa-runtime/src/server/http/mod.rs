//! Streamable HTTP (MCP 2026-07-28, and the legacy 2025-03-26 to
//! 2025-11-25 transport beside it): a [`Server`](super::Server) as the
//! endpoint of an axum application.
//!
//! Each modern request is its own POST, answered with JSON or, when
//! notifications come before the response, with a server-sent event
//! stream; closing that stream cancels the request. There are no sessions:
//! the caller of each request comes from its credentials, through an
//! [`Authenticator`]. See [`StreamableHttp`] for the order of the checks.
//! A legacy client (2025-11-25 and earlier) opens a session with
//! `initialize` instead, and its requests come under `Mcp-Session-Id`
//! (`legacy`), still authenticated one by one.
//!
//! Layers, bottom up: forwarded, guard, headers, respond, serve, admission, body, auth, legacy, served, endpoint.

mod admission;
mod auth;
mod body;
mod endpoint;
mod forwarded;
mod guard;
mod headers;
mod respond;
mod serve;
mod served;

pub use admission::{
    MAX_BODY_READS_PER_SUBJECT, MAX_LISTEN_STREAMS_PER_SUBJECT, MAX_REQUESTS_PER_SUBJECT,
};
pub use auth::{Anonymous, Authenticator, BearerTokens, ProtectedResourceMetadata, Refusal};
#[cfg(feature = "oauth")]
pub use auth::{
    DpopProofId, DpopReplayCache, DpopSettings, Introspection, KeySettings, OAuth, OAuthBuilder,
    OAuthConfigError,
};
pub use body::{BODY_RATE_GRACE, BODY_TIMEOUT, MIN_BODY_RATE};
pub use endpoint::StreamableHttp;
pub use forwarded::{
    ClientAddress, ForwardedHeader, MAX_FORWARDED_HOPS, ProxyNetworkError, TrustedProxies,
};
pub use guard::AllowedHosts;
pub use serve::{HEADER_READ_TIMEOUT, MAX_CONNECTIONS, Serve};

// The legacy transport, and what it makes public: deleting 2025-11-25
// support deletes these lines with the folder.
mod legacy;
pub use crate::server::legacy::shared::{
    ChannelMessages, LISTENER_BACKLOG, LegacySessionStore, MemorySessionStore, SessionChange,
    SessionChangeRefused, SessionRecord, SessionStoreError,
};
pub use legacy::events::MAX_LOG_BYTES;
pub use legacy::session::{
    KEPT_LOGS, MAX_SESSION_REQUESTS, MAX_SESSIONS, MAX_SESSIONS_PER_SUBJECT, SESSION_IDLE,
};
pub use legacy::{LEGACY_RETRY, LegacySessions};
