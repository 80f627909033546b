//! Getting a token: the token endpoint's request for every grant, and
//! what proves the client to it: its PKCE values, its private key, and
//! its DPoP proofs.
//!
//! Layers, bottom up: pkce, client_key, dpop, endpoint.

mod client_key;
mod dpop;
mod endpoint;
mod pkce;

pub use client_key::ClientKey;
pub(crate) use dpop::{Dpop, Party};
pub(crate) use endpoint::{ClientAuth, Endpoint, Grant, ID_JAG_TYPE, Issued, request};
pub(crate) use pkce::Pkce;
