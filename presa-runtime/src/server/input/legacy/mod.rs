//! Input of a legacy session: a 2025-11-25 client is asked with requests
//! of the server's own, not with MRTR.
//!
//! Layers, bottom up: peer.

pub(crate) mod peer;
