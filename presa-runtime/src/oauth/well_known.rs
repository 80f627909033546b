//! Where the OAuth documents of a resource and of an authorization server
//! are published: the well-known URLs, in the order they are tried.

/// `("https://host:port", "/path")` of an absolute URL, the path without a
/// trailing slash; the path is empty for the root.
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(slash) => {
            let (origin, path) = url.split_at(after_scheme + slash);
            (origin, path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

/// The well-known path of the Protected Resource Metadata of a resource
/// whose path is `path` (RFC 9728 section 3.1: inserted before it).
pub(crate) fn resource_metadata_path(path: &str) -> String {
    format!("/.well-known/oauth-protected-resource{path}")
}

/// Where a client looks for `resource`'s metadata when no challenge names
/// it, in order: the path-inserted URL, then the origin's root (the MCP
/// authorization spec, "Protected Resource Metadata Discovery").
#[cfg(feature = "oauth-client")]
pub(crate) fn resource_metadata_urls(resource: &str) -> Vec<String> {
    let (origin, path) = split_origin(resource);
    let mut urls = vec![format!("{origin}{}", resource_metadata_path(path))];
    if !path.is_empty() {
        urls.push(format!("{origin}{}", resource_metadata_path("")));
    }
    urls
}

/// The places issuer `issuer`'s metadata may be, in the order tried: RFC
/// 8414 with the issuer's path inserted, OpenID Connect Discovery with it
/// inserted, then with it appended. An issuer without a path has the first
/// two only.
#[cfg(any(feature = "oauth", feature = "oauth-client"))]
pub(crate) fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = split_origin(trimmed);
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{trimmed}/.well-known/openid-configuration"));
    }
    urls
}

#[cfg(all(test, any(feature = "oauth", feature = "oauth-client")))]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_inserted_after_the_well_known_prefix_then_appended() {
        assert_eq!(
            server_metadata_urls("https://as.example/tenant"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant",
                "https://as.example/.well-known/openid-configuration/tenant",
                "https://as.example/tenant/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls("https://as.example/"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
    }

    #[cfg(feature = "oauth-client")]
    #[test]
    fn a_resources_metadata_is_looked_for_at_its_path_then_at_the_root() {
        assert_eq!(
            resource_metadata_urls("https://mcp.example.com/public/mcp"),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://127.0.0.1:3000"),
            ["http://127.0.0.1:3000/.well-known/oauth-protected-resource"]
        );
    }
}
