//! JSON-RPC 2.0, the framing under every MCP message: ids, requests,
//! notifications, responses and error objects, the error codes, and how
//! presa reads the peer's JSON.
//!
//! This folder is the floor of the wire. It knows no MCP method, so every
//! other wire folder may use it and it uses none of them. What the peer
//! sends is read [`strict`]ly here, once, so that a method's own types
//! never see an array where the schema says object.
//!
//! Layers, bottom up: codes, strict, size, message.

pub mod codes;
mod message;
mod size;
pub mod strict;

pub use message::*;
pub use size::{footprint, json_len};
