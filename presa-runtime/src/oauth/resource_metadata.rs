//! [`ProtectedResourceMetadata`]: where a client learns how to get a
//! token (RFC 9728).

use serde::{Deserialize, Serialize};

use super::well_known::{resource_metadata_path, split_origin};

/// OAuth 2.0 Protected Resource Metadata (RFC 9728), published at
/// `/.well-known/oauth-protected-resource` and named by every challenge;
/// a client reads it to find the resource's authorization servers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource's identifier: the MCP endpoint's canonical URL.
    pub resource: String,
    /// The authorization servers that issue tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes it understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How tokens may be presented; MCP allows the header only.
    #[serde(default)]
    pub bearer_methods_supported: Vec<String>,
    /// The algorithms the resource accepts DPoP proofs signed with (RFC
    /// 9728, RFC 9449); `None` when it takes no DPoP-bound tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether the resource takes DPoP-bound tokens only, and refuses
    /// bearer tokens (RFC 9728); left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound_access_tokens_required: bool,
}

// A client-only build reads these documents and never makes one.
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
impl ProtectedResourceMetadata {
    /// Metadata for the endpoint at `resource`, whose tokens come from
    /// `authorization_server`.
    pub fn new(resource: impl Into<String>, authorization_server: impl Into<String>) -> Self {
        ProtectedResourceMetadata {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: None,
            bearer_methods_supported: vec!["header".into()],
            dpop_signing_alg_values_supported: None,
            dpop_bound_access_tokens_required: false,
        }
    }

    /// The scopes the resource understands.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// This document with `scopes` added to `scopes_supported`: the
    /// union, in order, without repeats; an empty union leaves the field
    /// out.
    pub(crate) fn with_scopes<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut all: Vec<String> = self.scopes_supported.clone().unwrap_or_default();
        for scope in scopes {
            if !all.iter().any(|known| known == scope) {
                all.push(scope.to_owned());
            }
        }
        ProtectedResourceMetadata {
            scopes_supported: (!all.is_empty()).then_some(all),
            ..self.clone()
        }
    }

    /// Where this document is published, by RFC 9728's rule: the
    /// well-known path inserted before the resource's path.
    pub fn url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}{}", resource_metadata_path(path))
    }

    /// The well-known path this document is served at on this server.
    pub(crate) fn well_known_path(&self) -> String {
        resource_metadata_path(split_origin(&self.resource).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_lives_at_the_well_known_path_of_its_resource() {
        let metadata = ProtectedResourceMetadata::new(
            "https://mcp.example.com/mcp",
            "https://auth.example.com",
        );
        assert_eq!(
            metadata.url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata.well_known_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        let root =
            ProtectedResourceMetadata::new("http://127.0.0.1:3000", "https://auth.example.com");
        assert_eq!(
            root.well_known_path(),
            "/.well-known/oauth-protected-resource"
        );
    }
}
