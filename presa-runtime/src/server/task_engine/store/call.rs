//! [`ResumableCall`]: what a resumable tool's task keeps of its call, so
//! that another server can run the handler again when the one that ran it
//! died (`#[tool(resumable)]`; see the `takeover` rules of the engine).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::stored::StoredJson;
use crate::wire::{ClientCapabilities, Implementation};

/// A [`ResumableCall`], kept as JSON text in its task's record.
pub type StoredCall = StoredJson<ResumableCall>;

/// The call of a resumable tool's task: the tool, its checked arguments,
/// and what the handler's context knew of the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResumableCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments, as they passed the input schema.
    pub arguments: Map<String, Value>,
    /// The protocol version of the call.
    pub protocol_version: String,
    /// The capabilities the client declared on the call.
    pub client_capabilities: ClientCapabilities,
    /// The client's self-reported identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The authenticated subject of the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The authorization server that vouched for the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The scopes the caller held; `None` for every scope (the caller of
    /// a transport that trusts its peer, such as stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// The claims of the caller's token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<Map<String, Value>>,
}

impl ResumableCall {
    /// The call of `tool` with `arguments`, by an anonymous caller that
    /// holds every scope; set the other fields for anything else.
    pub fn new(
        tool: impl Into<String>,
        arguments: Map<String, Value>,
        protocol_version: impl Into<String>,
        client_capabilities: ClientCapabilities,
    ) -> Self {
        ResumableCall {
            tool: tool.into(),
            arguments,
            protocol_version: protocol_version.into(),
            client_capabilities,
            client_info: None,
            subject: None,
            issuer: None,
            scopes: None,
            claims: None,
        }
    }
}
