//! Wire types of MCP 2026-07-28: serde structs for every message presa sends
//! or receives.
//!
//! This layer knows nothing of transports, tools or the task engine. Its rules:
//!
//! - every result carries `resultType` ([`ResultType`]);
//! - unknown fields are tolerated on input and never invented on output
//!   (optional fields are skipped when `None`);
//! - the per-request [`RequestMeta`] is parsed once, before a method's own
//!   params; a request without its required fields is a `-32602`.

pub mod codes;
mod content;
mod discover;
mod input;
mod jsonrpc;
mod meta;
pub mod notifications;
pub(crate) mod result;
mod tasks;
mod tools;

pub use content::*;
pub use discover::*;
pub use input::*;
pub use jsonrpc::*;
pub use meta::*;
pub use result::*;
pub use tasks::*;
pub use tools::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `_meta` of a result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMeta {
    /// The server's name and version.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Any other keys.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Method names of the client requests presa serves.
pub mod methods {
    /// Discovery.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// List tools.
    pub const TOOLS_LIST: &str = "tools/list";
    /// Call a tool.
    pub const TOOLS_CALL: &str = "tools/call";
    /// The legacy handshake, which 2026-07-28 removed.
    pub const INITIALIZE: &str = "initialize";
}
