//! Who the client is behind a reverse proxy: [`TrustedProxies`], and the
//! [`ClientAddress`] of each request.
//!
//! Behind a reverse proxy, every connection comes from the proxy. The
//! proxy names the client in a header: `X-Forwarded-For` (nginx, Caddy,
//! HAProxy) or `Forwarded` (RFC 7239). But a client can send that header
//! too, and a proxy appends to what the client sent. So a header is only
//! as good as whoever wrote its last entry. The endpoint finds the client
//! of a request by these rules, in order:
//!
//! 1. the address starts as the socket peer's (axum's `ConnectInfo`,
//!    which [`StreamableHttp::serve`](super::StreamableHttp::serve)
//!    records). Without it the endpoint knows no address at all;
//! 2. while the address is one of the [`TrustedProxies`], the entry that
//!    proxy added to the header is read, and becomes the address. The
//!    header is read from its last entry back (a later `X-Forwarded-For`
//!    line comes after an earlier one), since each proxy adds its peer at
//!    the end. So the walk stops at the first address that is not a
//!    trusted proxy: whatever the client wrote sits to its left, and is
//!    never read;
//! 3. the walk also stops, keeping the address it has, at an entry that
//!    names no address (`unknown`, an obfuscated name, anything
//!    malformed), when the header has no entries left (the client sits
//!    inside a trusted network), or after [`MAX_FORWARDED_HOPS`] entries.
//!    So a header full of entries costs a bounded walk and no memory;
//! 4. only the one header the [`TrustedProxies`] name is read
//!    (`X-Forwarded-For` by default). A proxy writes one of them and
//!    passes the other through from the client untouched, so reading both
//!    would let the client speak for the proxy;
//! 5. addresses are compared in their canonical form: an IPv4-mapped IPv6
//!    address (`::ffff:10.0.0.1`, which a dual-stack socket reports) is
//!    its IPv4 address.
//!
//! By default no proxy is trusted, and the address is the socket peer's:
//! a header the client sent can never move it.
//!
//! The address found is put in the request's extensions as
//! [`ClientAddress`] before the [`Authenticator`](super::Authenticator)
//! runs, and [`ClientAddress::of`] reads it. That is the one place every
//! reader takes it from: the per-address limits of anonymous callers (see
//! `admission`), the limits on failed introspections of
//! [`OAuth`](super::OAuth), and an authenticator of your own.
//!
//! Nothing else a proxy forwards is read. `X-Forwarded-Proto` and
//! `X-Forwarded-Host` change no URL: the metadata URLs and challenges come
//! from the configured resource URL. The host guard reads `Host` as the
//! proxy passes it (see `guard`).

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, header::FORWARDED};
use ipnet::IpNet;

/// The most entries of a forwarded header the endpoint reads for one
/// request (rule 3): more proxies than any real chain has.
pub const MAX_FORWARDED_HOPS: usize = 16;

/// The `X-Forwarded-For` header.
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The reverse proxies whose forwarded header names the client (the rules
/// are in the module docs). Set it with
/// [`StreamableHttp::trusted_proxies`](super::StreamableHttp::trusted_proxies).
/// The default, [`TrustedProxies::none`], reads no header: the client is
/// the socket peer.
///
/// ```
/// use presa_runtime::server::http::{ForwardedHeader, TrustedProxies};
///
/// # fn main() -> Result<(), presa_runtime::server::http::ProxyNetworkError> {
/// // nginx on the same machine.
/// let local = TrustedProxies::loopback();
/// // Load balancers in a private network, which send `Forwarded`.
/// let balancers = TrustedProxies::none()
///     .network("10.0.0.0/8")?
///     .header(ForwardedHeader::Forwarded);
/// // A list from the environment: addresses and networks, with commas.
/// let listed: TrustedProxies = "10.1.2.3, fd00::/8".parse()?;
/// # let _ = (local, balancers, listed);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<IpNet>,
    header: ForwardedHeader,
}

/// Which header a trusted proxy names the client in. A proxy writes one
/// and passes the other on from the client, so the endpoint reads only the
/// one you name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2`: what nginx
    /// (`proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`),
    /// Caddy (by default) and HAProxy (`option forwardfor`) send. An entry
    /// may carry a port (`192.0.2.7:4000`, `[2001:db8::7]:4000`).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239): the `for` parameter
    /// of each element; `for=unknown` and obfuscated names (`for=_hidden`)
    /// name no address.
    Forwarded,
}

/// An entry of a proxy list that is neither an IP address nor a network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not an IP address or network; write an address (10.0.0.7, fd00::7) or a \
     network (10.0.0.0/8, fd00::/8)"
)]
pub struct ProxyNetworkError {
    text: String,
}

impl TrustedProxies {
    /// No proxy: the client is the socket peer, and no forwarded header is
    /// read. The default.
    pub fn none() -> Self {
        TrustedProxies::default()
    }

    /// Proxies on this machine: `127.0.0.0/8` and `::1`. For nginx or
    /// Caddy in front of a server bound to `127.0.0.1`.
    pub fn loopback() -> Self {
        let v4 = IpNet::new(IpAddr::from([127, 0, 0, 0]), 8).expect("a valid prefix");
        TrustedProxies::none()
            .with(v4)
            .address(IpAddr::from(std::net::Ipv6Addr::LOCALHOST))
    }

    /// Also trusts the proxy at `address`.
    pub fn address(self, address: IpAddr) -> Self {
        self.with(IpNet::from(address.to_canonical()))
    }

    /// Also trusts every proxy in `network`: a network in CIDR form
    /// (`10.0.0.0/8`, `fd00::/8`) or one address (`10.0.0.7`). Bits past
    /// the prefix are ignored (`10.1.2.3/8` is `10.0.0.0/8`).
    pub fn network(self, network: &str) -> Result<Self, ProxyNetworkError> {
        Ok(self.with(parse_network(network)?))
    }

    /// Reads `header` for the client (default
    /// [`ForwardedHeader::XForwardedFor`]). Name the one your proxy writes.
    pub fn header(mut self, header: ForwardedHeader) -> Self {
        self.header = header;
        self
    }

    /// Whether a request from `address` may name its client in the
    /// forwarded header.
    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.networks
            .iter()
            .any(|network| network.contains(&address))
    }

    fn with(mut self, network: IpNet) -> Self {
        let network = network.trunc();
        if !self.networks.contains(&network) {
            self.networks.push(network);
        }
        self
    }

    /// The client of a request from `peer` with `headers` (rules 2 to 5).
    fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        for hop in self.hops(headers) {
            match hop {
                Some(address) => client = address.to_canonical(),
                None => break,
            }
            if !self.trusts(client) {
                break;
            }
        }
        client
    }

    /// The last [`MAX_FORWARDED_HOPS`] entries of the header, last first:
    /// the address each names, or `None` for one that names none.
    fn hops(&self, headers: &HeaderMap) -> Vec<Option<IpAddr>> {
        let mut hops = Vec::new();
        let name = match self.header {
            ForwardedHeader::XForwardedFor => X_FORWARDED_FOR,
            ForwardedHeader::Forwarded => FORWARDED,
        };
        for line in headers.get_all(name).iter().rev() {
            let room = MAX_FORWARDED_HOPS - hops.len();
            let Ok(line) = line.to_str() else {
                hops.push(None);
                break;
            };
            match self.header {
                ForwardedHeader::XForwardedFor => {
                    hops.extend(
                        line.rsplit(',')
                            .map(str::trim)
                            .filter(|entry| !entry.is_empty())
                            .take(room)
                            .map(node_address),
                    );
                }
                ForwardedHeader::Forwarded => {
                    hops.extend(last_elements(line, room).into_iter().rev());
                }
            }
            if hops.len() >= MAX_FORWARDED_HOPS || hops.last() == Some(&None) {
                break;
            }
        }
        hops
    }
}

impl FromStr for TrustedProxies {
    type Err = ProxyNetworkError;

    /// Addresses and networks separated by commas or spaces
    /// (`"10.0.0.0/8, 192.168.1.7 fd00::/8"`), read with
    /// [`ForwardedHeader::XForwardedFor`]; an empty list trusts no one.
    fn from_str(list: &str) -> Result<Self, Self::Err> {
        list.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|entry| !entry.is_empty())
            .try_fold(TrustedProxies::none(), TrustedProxies::network)
    }
}

/// `text` as a network, or as one address.
fn parse_network(text: &str) -> Result<IpNet, ProxyNetworkError> {
    let trimmed = text.trim();
    let network = if trimmed.contains('/') {
        trimmed.parse::<IpNet>().ok()
    } else {
        trimmed.parse::<IpAddr>().ok().map(IpNet::from)
    };
    let refused = || ProxyNetworkError {
        text: text.to_owned(),
    };
    let network = network.ok_or_else(refused)?;
    // An IPv4-mapped network is its IPv4 network, as addresses are.
    Ok(match network {
        IpNet::V6(v6) if v6.addr().to_ipv4_mapped().is_some() && v6.prefix_len() >= 96 => {
            let v4 = v6.addr().to_ipv4_mapped().expect("checked above");
            IpNet::new(IpAddr::V4(v4), v6.prefix_len() - 96).map_err(|_| refused())?
        }
        network => network,
    })
}

/// The address of a node as a proxy writes it: an IPv4 address, with a
/// port or without; an IPv6 address, bare, or in brackets with a port or
/// without. `None` for anything else.
fn node_address(node: &str) -> Option<IpAddr> {
    if let Ok(address) = node.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(socket) = node.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    let bracketed = node.strip_prefix('[')?.strip_suffix(']')?;
    bracketed.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)
}

/// The `for` addresses of the last `room` elements of one `Forwarded` line
/// (RFC 7239 section 4), in order; `None` for an element without one, or
/// for a line that cannot be read. The line is split from its start, since
/// a quoted string may hold a comma, but only the last `room` elements are
/// kept and read.
fn last_elements(line: &str, room: usize) -> Vec<Option<IpAddr>> {
    let mut kept = VecDeque::with_capacity(room.min(MAX_FORWARDED_HOPS));
    let mut rest = Some(line);
    while let Some(text) = rest {
        let Ok((element, after)) = split_unquoted(text, b',') else {
            // A quoted string without its end runs to the end of the
            // line: the last element, the nearest proxy's, is unreadable.
            return vec![None];
        };
        if !element.trim().is_empty() && room > 0 {
            if kept.len() == room {
                kept.pop_front();
            }
            kept.push_back(element);
        }
        rest = after;
    }
    kept.into_iter().map(for_address).collect()
}

/// The part of `text` before its first `separator` that is not inside a
/// quoted string, and what follows that separator, if any. `Err` for a
/// quoted string without its end. It splits a header into its elements
/// (`,`) and an element into its `name=value` pairs (`;`).
fn split_unquoted(text: &str, separator: u8) -> Result<(&str, Option<&str>), ()> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, byte) in text.bytes().enumerate() {
        match byte {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            _ if byte == separator && !quoted => {
                return Ok((&text[..at], Some(&text[at + 1..])));
            }
            _ => {}
        }
    }
    if quoted { Err(()) } else { Ok((text, None)) }
}

/// The address of an element's one `for` parameter (`for=192.0.2.7`,
/// `for="[2001:db8::7]:4711"`); `None` without one, with two, or when it
/// names no address.
fn for_address(element: &str) -> Option<IpAddr> {
    let mut found = None;
    let mut rest = element;
    loop {
        let (pair, after) = split_unquoted(rest, b';').ok()?;
        let (name, value) = pair.split_once('=')?;
        if name.trim().eq_ignore_ascii_case("for") {
            if found.is_some() {
                return None;
            }
            found = Some(unquote(value.trim())?);
        }
        match after {
            Some(after) => rest = after,
            None => break,
        }
    }
    node_address(&found?)
}

/// A parameter's value: a token as it is, a quoted string without its
/// quotes and escapes.
fn unquote(value: &str) -> Option<String> {
    let Some(inner) = value.strip_prefix('"') else {
        return Some(value.to_owned());
    };
    let inner = inner.strip_suffix('"')?;
    let mut unquoted = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        unquoted.push(if c == '\\' { chars.next()? } else { c });
    }
    Some(unquoted)
}

/// The address of the client a request comes from: the socket peer's, or,
/// behind a proxy you trust, the one that proxy names (the rules are in
/// the `forwarded` module docs). The endpoint records it in the request's
/// extensions before the [`Authenticator`](super::Authenticator) runs;
/// read it with [`ClientAddress::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(IpAddr);

impl ClientAddress {
    /// The address of the client of the request of `parts`: the one the
    /// endpoint found; outside the endpoint, the socket peer's
    /// (`ConnectInfo<SocketAddr>`). `None` when the request carries
    /// neither. Every per-address limit reads it here.
    pub fn of(parts: &Parts) -> Option<IpAddr> {
        if let Some(ClientAddress(address)) = parts.extensions.get::<ClientAddress>() {
            return Some(*address);
        }
        let ConnectInfo(peer) = parts.extensions.get::<ConnectInfo<SocketAddr>>()?;
        Some(peer.ip().to_canonical())
    }

    /// Finds the client of the request of `parts`, trusting `proxies`, and
    /// records it in the request's extensions for [`ClientAddress::of`].
    pub(super) fn record(proxies: &TrustedProxies, parts: &mut Parts) {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip());
        match peer {
            Some(peer) => {
                let client = proxies.client(peer, &parts.headers);
                parts.extensions.insert(ClientAddress(client));
            }
            None => {
                parts.extensions.remove::<ClientAddress>();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// The client of a request from `peer` with `header` given once per
    /// line, as `proxies` see it.
    fn client(proxies: &TrustedProxies, peer: &str, lines: &[&str]) -> IpAddr {
        let name = match proxies.header {
            ForwardedHeader::XForwardedFor => X_FORWARDED_FOR,
            ForwardedHeader::Forwarded => FORWARDED,
        };
        let mut headers = HeaderMap::new();
        for line in lines {
            headers.append(
                name.clone(),
                axum::http::HeaderValue::from_bytes(line.as_bytes()).unwrap(),
            );
        }
        proxies.client(ip(peer), &headers)
    }

    #[test]
    fn by_default_no_header_is_read() {
        let none = TrustedProxies::default();
        assert_eq!(none, TrustedProxies::none());
        let spoofed = client(&none, "198.51.100.7", &["192.0.2.1"]);
        assert_eq!(spoofed, ip("198.51.100.7"), "the peer, whatever it says");
        let forwarded = none.clone().header(ForwardedHeader::Forwarded);
        let spoofed = client(&forwarded, "198.51.100.7", &["for=192.0.2.1"]);
        assert_eq!(spoofed, ip("198.51.100.7"));
    }

    #[test]
    fn a_peer_that_is_not_trusted_is_the_client() {
        let proxies = TrustedProxies::none().network("10.0.0.0/8").unwrap();
        let direct = client(&proxies, "198.51.100.7", &["10.0.0.1, 192.0.2.1"]);
        assert_eq!(direct, ip("198.51.100.7"));
    }

    /// The walk goes from the right and stops at the first address that is
    /// not a trusted proxy: what a client wrote to the left is never read.
    #[test]
    fn the_walk_stops_at_the_first_address_not_trusted() {
        let proxies = TrustedProxies::none().network("10.0.0.0/8").unwrap();
        let one = client(&proxies, "10.0.0.1", &["192.0.2.1"]);
        assert_eq!(one, ip("192.0.2.1"));
        let spoofed = client(&proxies, "10.0.0.1", &["203.0.113.9, 192.0.2.1"]);
        assert_eq!(
            spoofed,
            ip("192.0.2.1"),
            "the client's own entry is ignored"
        );
        let chain = client(&proxies, "10.0.0.1", &["203.0.113.9, 192.0.2.1, 10.0.0.2"]);
        assert_eq!(chain, ip("192.0.2.1"), "through two proxies");
        let lines = client(
            &proxies,
            "10.0.0.1",
            &["203.0.113.9", "192.0.2.1, 10.0.0.2"],
        );
        assert_eq!(
            lines,
            ip("192.0.2.1"),
            "a later line comes after an earlier"
        );
        let haproxy = client(
            &proxies,
            "10.0.0.1",
            &["203.0.113.9, 10.0.0.3", "192.0.2.1"],
        );
        assert_eq!(
            haproxy,
            ip("192.0.2.1"),
            "a proxy that adds a line of its own"
        );
        let inside = client(&proxies, "10.0.0.1", &["10.0.0.9, 10.0.0.2"]);
        assert_eq!(
            inside,
            ip("10.0.0.9"),
            "a client inside the trusted network"
        );
        let absent = client(&proxies, "10.0.0.1", &[]);
        assert_eq!(absent, ip("10.0.0.1"), "no header: the proxy itself");
    }

    #[test]
    fn an_entry_that_names_no_address_stops_the_walk() {
        let proxies = TrustedProxies::loopback();
        for header in [
            "192.0.2.1, garbage",
            "192.0.2.1, unknown",
            "192.0.2.1, 300.1.1.1",
            "192.0.2.1, 10.0.0.1/8",
        ] {
            assert_eq!(client(&proxies, "127.0.0.1", &[header]), ip("127.0.0.1"));
        }
        let not_ascii = client(&proxies, "127.0.0.1", &["192.0.2.1, 127.0.0.2\u{e9}"]);
        assert_eq!(not_ascii, ip("127.0.0.1"));
        for (entry, expected) in [
            ("192.0.2.1:4000", "192.0.2.1"),
            ("2001:db8::7", "2001:db8::7"),
            ("[2001:db8::7]", "2001:db8::7"),
            ("[2001:db8::7]:4000", "2001:db8::7"),
            ("  192.0.2.1  ", "192.0.2.1"),
            ("::ffff:192.0.2.1", "192.0.2.1"),
        ] {
            assert_eq!(
                client(&proxies, "127.0.0.1", &[entry]),
                ip(expected),
                "{entry}"
            );
        }
        let empty = client(&proxies, "127.0.0.1", &["192.0.2.1, , "]);
        assert_eq!(empty, ip("192.0.2.1"), "empty entries are skipped");
    }

    /// A header with a million entries, all of trusted proxies, is read
    /// for its last 16 only.
    #[test]
    fn a_long_header_costs_a_bounded_walk() {
        let proxies = TrustedProxies::loopback();
        let mut long = vec!["192.0.2.1"; 1];
        long.extend(std::iter::repeat_n("127.0.0.9", 1_000_000));
        let line = long.join(",");
        assert_eq!(client(&proxies, "127.0.0.1", &[&line]), ip("127.0.0.9"));
        let lines = vec!["127.0.0.9"; 10_000];
        assert_eq!(client(&proxies, "127.0.0.1", &lines), ip("127.0.0.9"));
        let mut headers = HeaderMap::new();
        headers.append(X_FORWARDED_FOR, line.parse().unwrap());
        assert_eq!(proxies.hops(&headers).len(), MAX_FORWARDED_HOPS);

        let forwarded = TrustedProxies::loopback().header(ForwardedHeader::Forwarded);
        let line = std::iter::repeat_n("for=127.0.0.9", 100_000)
            .collect::<Vec<_>>()
            .join(", ");
        let mut headers = HeaderMap::new();
        headers.append(FORWARDED, line.parse().unwrap());
        let hops = forwarded.hops(&headers);
        assert_eq!(hops.len(), MAX_FORWARDED_HOPS);
        assert!(hops.iter().all(|hop| *hop == Some(ip("127.0.0.9"))));
    }

    #[test]
    fn forwarded_elements_name_their_client_by_for() {
        let proxies = TrustedProxies::loopback().header(ForwardedHeader::Forwarded);
        let from = |lines: &[&str]| client(&proxies, "127.0.0.1", lines);
        assert_eq!(
            from(&["for=192.0.2.60;proto=http;by=203.0.113.43"]),
            ip("192.0.2.60")
        );
        assert_eq!(
            from(&["For=\"[2001:db8:cafe::17]:4711\""]),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(from(&["for=\"192.0.2.43:47011\""]), ip("192.0.2.43"));
        assert_eq!(from(&["for=203.0.113.9, for=192.0.2.43"]), ip("192.0.2.43"));
        assert_eq!(
            from(&["for=203.0.113.9", "for=192.0.2.43, for=127.0.0.2"]),
            ip("192.0.2.43")
        );
        let comma = from(&["for=203.0.113.9;note=\"a, for=127.0.0.3\", for=192.0.2.43"]);
        assert_eq!(comma, ip("192.0.2.43"), "a comma in a quoted string");
        let escaped = from(&["for=203.0.113.9;note=\"a \\\" b\";by=x, for=192.0.2.43"]);
        assert_eq!(escaped, ip("192.0.2.43"));
        for names_none in [
            "for=192.0.2.1, for=unknown",
            "for=192.0.2.1, for=_hidden",
            "for=192.0.2.1, by=127.0.0.1",
            "for=192.0.2.1, for=127.0.0.2;for=127.0.0.3",
            "for=192.0.2.1, for=\"127.0.0.2",
            "for=192.0.2.1, proto",
            "for=192.0.2.1, for=\"unterminated, for=127.0.0.2",
        ] {
            assert_eq!(from(&[names_none]), ip("127.0.0.1"), "{names_none}");
        }
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        let listed: TrustedProxies = "10.0.0.0/8, 192.168.1.7 fd00::/8,,".parse().unwrap();
        for trusted in ["10.200.0.1", "192.168.1.7", "fd00::1", "::ffff:10.0.0.1"] {
            assert!(listed.trusts(ip(trusted)), "{trusted}");
        }
        for not in ["11.0.0.1", "192.168.1.8", "fe00::1", "127.0.0.1"] {
            assert!(!listed.trusts(ip(not)), "{not}");
        }
        let loose = TrustedProxies::none().network("10.1.2.3/8").unwrap();
        assert_eq!(loose, TrustedProxies::none().network("10.0.0.0/8").unwrap());
        let mapped = TrustedProxies::none()
            .network("::ffff:10.0.0.0/104")
            .unwrap();
        assert!(mapped.trusts(ip("10.9.9.9")));
        assert_eq!("".parse::<TrustedProxies>(), Ok(TrustedProxies::none()));
        let loopback = TrustedProxies::loopback();
        assert!(loopback.trusts(ip("127.1.2.3")) && loopback.trusts(ip("::1")));
        assert!(!loopback.trusts(ip("::2")));

        for bad in [
            "10.0.0.0/33",
            "mcp.example.com",
            "10.0.0",
            "10.0.0.0/",
            "/8",
        ] {
            let refused = TrustedProxies::none().network(bad).unwrap_err();
            assert_eq!(refused, ProxyNetworkError { text: bad.into() });
        }
        let refused = "10.0.0.0/8, proxy".parse::<TrustedProxies>().unwrap_err();
        assert_eq!(
            refused.to_string(),
            "\"proxy\" is not an IP address or network; write an address (10.0.0.7, fd00::7) \
             or a network (10.0.0.0/8, fd00::/8)"
        );
    }

    #[test]
    fn the_address_is_recorded_for_every_reader() {
        let request = |peer: Option<&str>, forwarded: &str| {
            let mut request = axum::http::Request::builder()
                .header("x-forwarded-for", forwarded)
                .body(())
                .unwrap();
            if let Some(peer) = peer {
                let peer: SocketAddr = peer.parse().unwrap();
                request.extensions_mut().insert(ConnectInfo(peer));
            }
            request.into_parts().0
        };
        let proxies = TrustedProxies::loopback();
        let mut parts = request(Some("127.0.0.1:5000"), "192.0.2.1");
        assert_eq!(ClientAddress::of(&parts), Some(ip("127.0.0.1")), "the peer");
        ClientAddress::record(&proxies, &mut parts);
        assert_eq!(ClientAddress::of(&parts), Some(ip("192.0.2.1")));
        ClientAddress::record(&TrustedProxies::none(), &mut parts);
        assert_eq!(ClientAddress::of(&parts), Some(ip("127.0.0.1")));

        let mut mapped = request(Some("[::ffff:198.51.100.7]:5000"), "192.0.2.1");
        ClientAddress::record(&proxies, &mut mapped);
        assert_eq!(ClientAddress::of(&mapped), Some(ip("198.51.100.7")));

        let mut unknown = request(None, "192.0.2.1");
        ClientAddress::record(&proxies, &mut unknown);
        assert_eq!(ClientAddress::of(&unknown), None, "no peer: no address");
    }
}
