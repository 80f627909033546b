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

pub mod codes;
mod completion;
mod content;
mod discover;
mod error_data;
pub mod headers;
mod icon;
mod input;
mod jsonrpc;
pub mod legacy;
mod meta;
mod method;
pub mod notifications;
mod page;
mod prompts;
mod resources;
pub(crate) mod result;
mod scope;
mod size;
pub mod strict;
mod subscriptions;
mod tasks;
mod tools;
mod uri_template;
mod url;

pub use completion::*;
pub use content::*;
pub use discover::*;
pub use error_data::*;
pub use icon::*;
pub use input::*;
pub use jsonrpc::*;
pub use meta::*;
pub use method::*;
pub use page::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub(crate) use scope::scope_token;
pub use size::{footprint, json_len};
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use uri_template::*;
pub use url::*;
