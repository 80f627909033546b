//! The DNS-rebinding guard: which `Host` and `Origin` a request may carry.
//!
//! A web page can make a browser send requests to `127.0.0.1` by pointing
//! its own domain there (DNS rebinding), so a local server must not trust
//! that a request comes from a local program. The browser cannot hide
//! where the page came from: its `Origin` names the page's site, and its
//! `Host` names the domain it resolved. The guard admits a request only
//! when both name an allowed host; by default, loopback names only.
//! Programs that are not browsers send no `Origin`, and need none.

/// The host names a request may address (`Host`) and come from
/// (`Origin`). Compared without case and without the port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHosts {
    hosts: Vec<String>,
    any: bool,
}

impl Default for AllowedHosts {
    /// [`AllowedHosts::loopback`].
    fn default() -> Self {
        AllowedHosts::loopback()
    }
}

impl AllowedHosts {
    /// `localhost`, `127.0.0.1` and `[::1]`: a server for this machine.
    pub fn loopback() -> Self {
        AllowedHosts {
            hosts: ["localhost", "127.0.0.1", "[::1]"]
                .map(str::to_owned)
                .to_vec(),
            any: false,
        }
    }

    /// Every host: for a server behind a proxy that checks `Host` and
    /// `Origin` itself. Without such a proxy this turns the guard off.
    pub fn any() -> Self {
        AllowedHosts {
            hosts: Vec::new(),
            any: true,
        }
    }

    /// Also allows `host` (a name such as `mcp.example.com`, without port).
    pub fn with(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Whether a `Host` header value (`name[:port]`) is allowed.
    pub(crate) fn allows_host(&self, host: &str) -> bool {
        self.any || self.allows_name(strip_port(host))
    }

    /// Whether an `Origin` header value (`scheme://name[:port]`) is allowed.
    /// An opaque origin (`null`) never is.
    pub(crate) fn allows_origin(&self, origin: &str) -> bool {
        if self.any {
            return true;
        }
        let Some((scheme, authority)) = origin.split_once("://") else {
            return false;
        };
        matches!(scheme, "http" | "https") && self.allows_name(strip_port(authority))
    }

    fn allows_name(&self, name: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }
}

/// `name` of `name:port`, keeping an IPv6 literal's brackets.
fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => authority,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_by_default() {
        let hosts = AllowedHosts::default();
        for host in ["localhost", "127.0.0.1:8080", "[::1]:3000", "LOCALHOST:1"] {
            assert!(hosts.allows_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "127.0.0.1.evil.example",
            "localhost.evil:80",
        ] {
            assert!(!hosts.allows_host(host), "{host}");
        }
        assert!(hosts.allows_origin("http://localhost:5173"));
        assert!(hosts.allows_origin("https://127.0.0.1"));
        for origin in [
            "http://evil.example",
            "null",
            "file://localhost",
            "localhost",
        ] {
            assert!(!hosts.allows_origin(origin), "{origin}");
        }
    }

    #[test]
    fn hosts_can_be_added_or_the_guard_turned_off() {
        let hosts = AllowedHosts::loopback().with("mcp.Example.com");
        assert!(hosts.allows_host("mcp.example.com:443"));
        assert!(hosts.allows_origin("https://MCP.example.com"));
        assert!(AllowedHosts::any().allows_origin("null"));
    }
}
