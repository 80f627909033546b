//! Wire types of MCP 2026-07-28: serde structs for every message presa sends
//! or receives; [`legacy`] holds what the session-based revisions
//! (2025-11-25 and earlier) shape differently.
//!
//! This layer knows nothing of transports, tools or the task engine. Its rules:
//!
//! - every result carries `resultType` ([`ResultType`]);
//! - unknown fields are tolerated on input and never invented on output
//!   (optional fields are skipped when `None`);
//! - the per-request [`RequestMeta`] is parsed once, before a method's own
//!   params; a request without its required fields is a `-32602`;
//! - what the peer sends is read [`strict`]ly: where the schema says
//!   object, an array is an error, never a struct read by position.
//!
//! Each folder is one layer and uses only the folders below it. JSON-RPC
//! framing is the floor; the values messages carry sit on it; the
//! 2026-07-28 envelope (`_meta`, `resultType`, paging, MRTR) sits on those;
//! the core methods add their params and results to the envelope; each
//! extension (Tasks today) sits on the core; the legacy shapes are
//! rendered from all of them. The HTTP headers both sides read stand
//! apart. Every type is re-exported here, so you name it
//! `presa::wire::Tool`, whichever folder defines it.
//!
//! Layers, bottom up: jsonrpc, values, protocol, methods, extensions, legacy, headers.

mod extensions;
pub mod headers;
mod jsonrpc;
pub mod legacy;
mod methods;
mod protocol;
mod values;

pub use extensions::*;
pub use jsonrpc::*;
pub use jsonrpc::{codes, strict};
pub use methods::*;
pub use protocol::notifications;
pub use protocol::*;
pub(crate) use values::scope_token;
pub use values::*;
