//! [`Destinations`]: where the URLs that a remote server names may lead
//! the OAuth client.
//!
//! A server names URLs in its challenge and its metadata, and the client
//! fetches them and posts to them. A hostile server could name the cloud
//! metadata service (`169.254.169.254`), a host on the intranet, or a
//! service on the user's own machine, and have the client reach it
//! (server-side request forgery). The client often runs on a developer's
//! laptop or in CI, where those are worth reaching. So every URL the
//! client fetches for OAuth passes these rules, in order:
//!
//! 1. a host that is an IP address is judged as it stands
//!    (`addresses`); the name `localhost`, and any name under
//!    `.localhost` (RFC 6761), is loopback without asking DNS;
//! 2. the URL is `https`; plain `http` goes to loopback only;
//! 3. any other name is judged by each address it resolves to, when the
//!    connection is made: the resolver gives reqwest only the addresses
//!    that pass, so the client connects to an address it checked. A name
//!    that answers differently at the second lookup (DNS rebinding) gains
//!    nothing, since there is no second lookup. A name left with no
//!    address is refused;
//! 4. public addresses pass. Loopback passes when the MCP server itself
//!    is on loopback: local development. Private networks pass with
//!    [`OAuthClient::allow_private_networks`](crate::client::oauth::OAuthClient::allow_private_networks).
//!    Link-local addresses (where cloud metadata services answer) and
//!    addresses that are no server's never pass;
//! 5. a proxy set in the environment (`HTTPS_PROXY`, `ALL_PROXY`,
//!    `HTTP_PROXY`) is the user's choice. Its own name is resolved
//!    without these rules. The proxy resolves the names it is asked to
//!    connect to, so rule 3 becomes the proxy's to keep; rules 1, 2 and 4
//!    still hold for every URL.
//!
//! A refused URL fails before any connection is made, with a [`Refusal`]
//! that names the address, the rule, and the setting that would allow it.
//! URLs that the user or an operator configured (the resource server's
//! issuer, an enterprise identity provider's token endpoint) were not
//! named by a remote party: they are fetched without these rules.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
#[cfg(test)]
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::addresses::{AddressKind, Classified, classify};

/// Which addresses, beyond the public internet, the URLs a remote server
/// names may lead the client to (rule 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Destinations {
    /// This machine, for a client of an MCP server on loopback.
    loopback: bool,
    /// Private networks, when the user allowed them.
    private_networks: bool,
}

impl Destinations {
    /// The destinations of a client of the MCP endpoint `endpoint`:
    /// loopback too when the endpoint is on loopback, and private networks
    /// too when `private_networks`.
    pub fn of_endpoint(endpoint: &str, private_networks: bool) -> Self {
        let loopback = url::Url::parse(endpoint)
            .ok()
            .and_then(|url| url.host().map(|host| is_loopback_host(&host)))
            .unwrap_or(false);
        Destinations {
            loopback,
            private_networks,
        }
    }

    /// Whether an address of `kind` may be reached.
    fn allows(self, kind: AddressKind) -> bool {
        match kind {
            AddressKind::Public => true,
            AddressKind::Loopback => self.loopback,
            AddressKind::Private => self.private_networks,
            AddressKind::LinkLocal | AddressKind::NotAServer => false,
        }
    }

    /// Rules 1 and 2 for `url`, before anything is sent; rule 3 is the
    /// resolver's, when the connection is made.
    pub fn check_url(self, url: &str) -> Result<(), Refusal> {
        let parsed = url::Url::parse(url).map_err(|e| Refusal::NotAUrl(e.to_string()))?;
        let Some(host) = parsed.host() else {
            return Err(Refusal::NotAUrl("it has no host".into()));
        };
        match &host {
            url::Host::Domain(name) if is_localhost_name(name) && !self.loopback => {
                return Err(Refusal::LoopbackName((*name).to_owned()));
            }
            url::Host::Domain(_) => {}
            url::Host::Ipv4(ip) => self.check_address(IpAddr::V4(*ip), None)?,
            url::Host::Ipv6(ip) => self.check_address(IpAddr::V6(*ip), None)?,
        }
        match parsed.scheme() {
            "https" => Ok(()),
            "http" if is_loopback_host(&host) => Ok(()),
            scheme => Err(Refusal::NotHttps(scheme.to_owned())),
        }
    }

    /// Rule 4 for `address`, which `name` resolved to (`None` for an
    /// address written in the URL).
    pub fn check_address(self, address: IpAddr, name: Option<&str>) -> Result<(), Refusal> {
        let classified = classify(address);
        if self.allows(classified.kind) {
            return Ok(());
        }
        Err(Refusal::Address {
            name: name.map(str::to_owned),
            address,
            classified,
        })
    }
}

/// Whether `host` is this machine: a loopback address, or `localhost`.
fn is_loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => is_localhost_name(name),
        url::Host::Ipv4(ip) => classify(IpAddr::V4(*ip)).kind == AddressKind::Loopback,
        url::Host::Ipv6(ip) => classify(IpAddr::V6(*ip)).kind == AddressKind::Loopback,
    }
}

/// Whether `name` is `localhost` or under `.localhost` (RFC 6761), which
/// resolve to loopback.
fn is_localhost_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// Why a URL a remote server named was not fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// It does not parse as an absolute URL with a host.
    NotAUrl(String),
    /// Its scheme is neither `https` nor `http` to loopback.
    NotHttps(String),
    /// Its host is `localhost`, and loopback is not allowed.
    LoopbackName(String),
    /// Its host is, or resolves to, an address not allowed.
    Address {
        /// The name that resolved to it; `None` for an address in the URL.
        name: Option<String>,
        address: IpAddr,
        classified: Classified,
    },
    /// Its host resolves to no address at all.
    NoAddress(String),
}

impl std::error::Error for Refusal {}

/// What would let a server name an address of `kind`.
fn remedy(kind: AddressKind) -> &'static str {
    match kind {
        AddressKind::Loopback => {
            "a server may name loopback only when the MCP server itself is on loopback (local development)"
        }
        AddressKind::Private => {
            "call `OAuthClient::allow_private_networks()` to let servers name private networks (an intranet deployment)"
        }
        AddressKind::Public | AddressKind::LinkLocal | AddressKind::NotAServer => {
            "no setting allows it"
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotAUrl(reason) => write!(f, "it is not a URL: {reason}"),
            Refusal::NotHttps(scheme) => write!(
                f,
                "its scheme is `{scheme}`: a server's OAuth URLs must be https (plain http goes to loopback only)"
            ),
            Refusal::LoopbackName(name) => write!(
                f,
                "`{name}` is this machine (loopback): {}",
                remedy(AddressKind::Loopback)
            ),
            Refusal::Address {
                name: Some(name),
                address,
                classified,
            } => write!(
                f,
                "`{name}` resolves to {address}, {classified}: {}",
                remedy(classified.kind)
            ),
            Refusal::Address {
                name: None,
                address,
                classified,
            } => write!(f, "{address} is {classified}: {}", remedy(classified.kind)),
            Refusal::NoAddress(name) => write!(f, "`{name}` resolves to no address"),
        }
    }
}

/// The resolver of a client whose URLs were named by a remote server:
/// the system's answers, less the addresses the destinations refuse
/// (rule 3).
pub(crate) struct CheckingResolver {
    destinations: Destinations,
    /// The names of the proxies set in the environment (rule 5).
    proxies: Vec<String>,
    lookup: Lookup,
}

impl CheckingResolver {
    /// A resolver for `destinations`, asking `lookup`, exempting the
    /// proxies the environment names.
    pub fn new(destinations: Destinations, lookup: Lookup) -> Self {
        CheckingResolver {
            destinations,
            proxies: proxy_names(),
            lookup,
        }
    }
}

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_owned();
        let destinations = self.destinations;
        let proxy = self.proxies.iter().any(|p| p.eq_ignore_ascii_case(&name));
        let lookup = self.lookup.clone();
        Box::pin(async move {
            let found = lookup.addresses(&name).await?;
            let mut refused = None;
            let passed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|address| {
                    if proxy {
                        return true;
                    }
                    let checked = destinations.check_address(*address, Some(&name));
                    checked.map_err(|r| refused.get_or_insert(r)).is_ok()
                })
                // reqwest puts the URL's port in place of 0.
                .map(|address| SocketAddr::new(address, 0))
                .collect();
            if passed.is_empty() {
                let refusal = refused.unwrap_or(Refusal::NoAddress(name));
                return Err(refusal.into());
            }
            Ok(Box::new(passed.into_iter()) as Addrs)
        })
    }
}

/// Where a resolver gets its answers.
#[derive(Clone)]
pub(crate) enum Lookup {
    /// The system's resolver (getaddrinfo, on tokio's blocking pool, as
    /// reqwest's own).
    System,
    /// Fixed answers: a test's DNS.
    #[cfg(test)]
    Fixed(Arc<Vec<(&'static str, Vec<IpAddr>)>>),
}

impl Lookup {
    async fn addresses(&self, name: &str) -> std::io::Result<Vec<IpAddr>> {
        match self {
            Lookup::System => {
                let found = tokio::net::lookup_host((name, 0)).await?;
                Ok(found.map(|address| address.ip()).collect())
            }
            #[cfg(test)]
            Lookup::Fixed(answers) => answers
                .iter()
                .find(|(known, _)| known.eq_ignore_ascii_case(name))
                .map(|(_, addresses)| addresses.clone())
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such name")),
        }
    }
}

/// The host names of the proxies set in the environment: the variables
/// reqwest reads, with or without a scheme.
fn proxy_names() -> Vec<String> {
    let variables = [
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ];
    variables
        .iter()
        .filter_map(|variable| std::env::var(variable).ok())
        .filter_map(|value| {
            let value = value.trim();
            let value = if value.contains("://") {
                value.to_owned()
            } else {
                format!("http://{value}")
            };
            let proxy = url::Url::parse(&value).ok()?;
            proxy.host_str().map(str::to_owned)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client of a public MCP server, with or without private networks.
    fn public(private_networks: bool) -> Destinations {
        Destinations::of_endpoint("https://mcp.example.com/mcp", private_networks)
    }

    #[test]
    fn loopback_is_allowed_to_a_client_of_a_loopback_server_only() {
        for endpoint in [
            "http://127.0.0.1:3000/mcp",
            "http://localhost:3000/mcp",
            "http://[::1]:3000/mcp",
            "http://app.localhost/mcp",
        ] {
            let destinations = Destinations::of_endpoint(endpoint, false);
            assert!(destinations.loopback, "{endpoint}");
            assert_eq!(
                destinations.check_url("http://127.0.0.1:9000/token"),
                Ok(())
            );
            assert_eq!(
                destinations.check_url("http://localhost:9000/token"),
                Ok(())
            );
        }
        for endpoint in [
            "https://mcp.example.com/mcp",
            "https://10.0.0.5/mcp",
            "nonsense",
        ] {
            assert!(
                !Destinations::of_endpoint(endpoint, true).loopback,
                "{endpoint}"
            );
        }
    }

    #[test]
    fn a_public_servers_urls_must_be_https_to_public_addresses() {
        let destinations = public(false);
        assert_eq!(
            destinations.check_url("https://as.example.com/token"),
            Ok(())
        );
        assert_eq!(destinations.check_url("https://8.8.8.8/token"), Ok(()));
        for (url, expected) in [
            (
                "https://169.254.169.254/latest/meta-data/iam",
                "169.254.169.254 is a link-local address (where cloud metadata services answer) (169.254.0.0/16): no setting allows it",
            ),
            (
                "http://as.example.com/token",
                "its scheme is `http`: a server's OAuth URLs must be https (plain http goes to loopback only)",
            ),
            (
                "https://10.0.0.1/token",
                "10.0.0.1 is a private-network address (10.0.0.0/8): call `OAuthClient::allow_private_networks()` to let servers name private networks (an intranet deployment)",
            ),
            (
                "https://[::ffff:10.0.0.1]/token",
                "::ffff:10.0.0.1 is a private-network address (10.0.0.0/8, by way of IPv4 mapping to 10.0.0.1): call `OAuthClient::allow_private_networks()` to let servers name private networks (an intranet deployment)",
            ),
            (
                "http://127.0.0.1:8080/",
                "127.0.0.1 is a loopback address (this machine) (127.0.0.0/8): a server may name loopback only when the MCP server itself is on loopback (local development)",
            ),
            (
                "https://LocalHost./x",
                "`localhost.` is this machine (loopback): a server may name loopback only when the MCP server itself is on loopback (local development)",
            ),
            (
                "https://0.0.0.0/",
                "0.0.0.0 is not a server's address (0.0.0.0/8, \"this network\"): no setting allows it",
            ),
            (
                "ftp://as.example.com/",
                "its scheme is `ftp`: a server's OAuth URLs must be https (plain http goes to loopback only)",
            ),
            ("/relative", "it is not a URL: relative URL without a base"),
        ] {
            let refused = destinations.check_url(url).unwrap_err();
            assert_eq!(refused.to_string(), expected, "{url}");
        }
        // Other spellings of the same addresses fare no better.
        for url in [
            "https://2852039166/",
            "https://0xa9.0xfe.0xa9.0xfe/",
            "https://[::ffff:a9fe:a9fe]/",
            "https://[64:ff9b::a9fe:a9fe]/",
            "https://[fd00:ec2::254]/",
            "https://127.1/",
            "https://[::]/",
            "https://[fe80::1]/",
        ] {
            assert!(destinations.check_url(url).is_err(), "{url}");
        }
    }

    #[test]
    fn allowing_private_networks_opens_them_and_nothing_more() {
        let destinations = public(true);
        for url in [
            "https://10.0.0.1/token",
            "https://192.168.1.20/token",
            "https://100.100.1.1/token",
            "https://[fd12:3456::1]/token",
            "https://[::ffff:172.16.0.1]/token",
        ] {
            assert_eq!(destinations.check_url(url), Ok(()), "{url}");
        }
        for url in [
            "http://10.0.0.1/token",
            "https://169.254.169.254/",
            "https://127.0.0.1/",
            "https://localhost/",
            "https://224.0.0.1/",
        ] {
            assert!(destinations.check_url(url).is_err(), "{url}");
        }
    }

    /// Resolves `host` with `resolver`: its addresses, or its refusal.
    async fn resolve(resolver: &CheckingResolver, host: &str) -> Result<Vec<IpAddr>, String> {
        match resolver.resolve(host.parse().unwrap()).await {
            Ok(addresses) => Ok(addresses.map(|a| a.ip()).collect()),
            Err(error) => Err(error.to_string()),
        }
    }

    fn dns() -> Lookup {
        Lookup::Fixed(Arc::new(vec![
            ("as.example.com", vec!["93.184.216.34".parse().unwrap()]),
            ("intranet.example.com", vec!["10.1.2.3".parse().unwrap()]),
            (
                "mixed.example.com",
                vec![
                    "127.0.0.1".parse().unwrap(),
                    "93.184.216.34".parse().unwrap(),
                ],
            ),
            (
                "rebound.example.com",
                vec!["::ffff:169.254.169.254".parse().unwrap()],
            ),
        ]))
    }

    #[tokio::test]
    async fn the_resolver_gives_only_the_addresses_that_pass() {
        let resolver = CheckingResolver::new(public(false), dns());
        let public_address: IpAddr = "93.184.216.34".parse().unwrap();
        assert_eq!(
            resolve(&resolver, "as.example.com").await,
            Ok(vec![public_address])
        );
        assert_eq!(
            resolve(&resolver, "mixed.example.com").await,
            Ok(vec![public_address])
        );
        assert_eq!(
            resolve(&resolver, "intranet.example.com").await,
            Err("`intranet.example.com` resolves to 10.1.2.3, a private-network address (10.0.0.0/8): call `OAuthClient::allow_private_networks()` to let servers name private networks (an intranet deployment)".into())
        );
        let rebound = resolve(&resolver, "rebound.example.com").await.unwrap_err();
        assert!(rebound.contains("link-local"), "{rebound}");
        assert!(resolve(&resolver, "unknown.example.com").await.is_err());

        let intranet = CheckingResolver::new(public(true), dns());
        assert_eq!(
            resolve(&intranet, "intranet.example.com").await,
            Ok(vec!["10.1.2.3".parse().unwrap()])
        );
    }

    #[tokio::test]
    async fn a_proxys_own_name_is_resolved_unchecked() {
        let mut resolver = CheckingResolver::new(public(false), dns());
        resolver.proxies = vec!["INTRANET.example.com".into()];
        assert_eq!(
            resolve(&resolver, "intranet.example.com").await,
            Ok(vec!["10.1.2.3".parse().unwrap()])
        );
    }
}
