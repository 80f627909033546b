//! [`Discovered`]: what discovery found for one MCP endpoint, whichever
//! way it found it (`resource`, or `discovery_2025_03_26` for servers
//! of that spec).

use crate::oauth::server_metadata::ServerMetadata;

/// What discovery found for one MCP endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The resource, exactly as its metadata names it: the `resource`
    /// parameter of every authorization and token request.
    pub resource: String,
    /// The scopes the resource's metadata lists.
    pub resource_scopes: Option<Vec<String>>,
    /// The authorization server's metadata.
    pub server: ServerMetadata,
}

impl Discovered {
    /// The authorization endpoint (discovery's rule 4 made sure a client that signs
    /// users in has one).
    pub fn authorization_endpoint(&self) -> &str {
        self.server
            .authorization_endpoint
            .as_deref()
            .unwrap_or_default()
    }

    /// The token endpoint (discovery's rule 4 made sure there is one).
    pub fn token_endpoint(&self) -> &str {
        self.server.token_endpoint.as_deref().unwrap_or_default()
    }
}
