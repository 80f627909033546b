//! The DNS-rebinding guard: which `Host` and `Origin` a request may carry.
//!
//! A web page can make a browser send requests to `127.0.0.1` by pointing
//! its own domain there (DNS rebinding), so a local server must not trust
//! that a request comes from a local program. The browser cannot hide
//! where the page came from: its `Origin` names the page's site, and its
//! `Host` names the domain it resolved. The guard admits a request only
//! when both name an allowed host; by default, loopback names only.
//!
//! A header the guard cannot read is not a header it may skip: a guard
//! that passed what it could not parse would pass whatever an attacker
//! can make unparseable. So a request goes through these rules, in order,
//! and the first it breaks refuses it with `403`:
//!
//! 1. it names its host: a `Host` header, or the authority of its target.
//!    HTTP/2 sends the host as `:authority`, which the HTTP server puts in
//!    the request's URI rather than in a `Host` header; an HTTP/1.1
//!    request may also name it in an absolute-form target. Each that is
//!    present is checked; a request with neither is refused (HTTP/1.1
//!    requires `Host`), and so is one with two `Host` headers;
//! 2. each host is `name[:port]` in ASCII, as a URI writes it: a name or
//!    an IPv4 address, or an IPv6 address in brackets, with no user info,
//!    and a port of digits;
//! 3. each host's name is allowed (compared without case, without port):
//!    it is one of the [`AllowedHosts`], or the host of the resource URL
//!    the endpoint publishes (`StreamableHttp::oauth` or
//!    `protected_resource`), since that is the name clients are told to
//!    use. The port does not count: `mcp.example.com` allows
//!    `mcp.example.com`, `mcp.example.com:443` and any other port, so a
//!    proxy may pass `Host` with its port or without it;
//! 4. an `Origin` is optional: programs that are not browsers send none,
//!    and need none. One that is present must be a single origin,
//!    `scheme://name[:port]` in ASCII, with the host of rule 2 and no
//!    path. `null`, the opaque origin of a sandboxed frame or a local file,
//!    names no site to check, and is refused;
//! 5. the origin's scheme is `http` or `https`, and its name is allowed.
//!
//! [`AllowedHosts::any`] skips rules 3 and 5 only: a request must still
//! name its host, and an origin it sends must still be one.
//!
//! A refusal says which host or origin it refused and which setting allows
//! it, since the person who reads it is often the one who deploys the
//! server. The standalone server also warns at start when it listens on an
//! address other machines can reach but allows loopback names only (see
//! `serve`).

use axum::http::header::{HOST, ORIGIN};
use axum::http::request::Parts;
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// The host names a request may address (`Host`, or HTTP/2's
/// `:authority`) and come from (`Origin`). Compared without case and
/// without the port. A request must name its host, and an `Origin` it
/// sends must be a real origin, whatever is allowed.
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

    /// Every host name: for a server behind a proxy that checks `Host` and
    /// `Origin` itself. Without such a proxy this turns the check of names
    /// off. A request must still name its host, in ASCII, and an `Origin`
    /// it sends must still be a real origin (not `null`).
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

    /// Whether every name allowed is a loopback name (`localhost`, a name
    /// under `.localhost`, an address in `127.0.0.0/8`, `[::1]`), beside
    /// `published`, the host of the resource URL the endpoint publishes.
    /// A server that listens where other machines can reach it, with only
    /// these names allowed, refuses every request that names it otherwise.
    pub(super) fn loopback_only(&self, published: Option<&str>) -> bool {
        !self.any
            && self
                .hosts
                .iter()
                .map(String::as_str)
                .chain(published)
                .all(is_loopback_name)
    }

    /// Whether the request of `parts` passes the guard; if not, why not.
    /// `published` is the host of the resource URL the endpoint publishes,
    /// allowed too (rule 3).
    pub(super) fn check(&self, parts: &Parts, published: Option<&str>) -> Result<(), Forbidden> {
        let allowed = Allowed {
            hosts: self,
            published,
        };
        let mut named = false;
        if let Some(host) = single(&parts.headers, HOST).map_err(|()| Forbidden::TwoHosts)? {
            let host = host.to_str().map_err(|_| Forbidden::MalformedHost)?;
            allowed.check_host(host)?;
            named = true;
        }
        if let Some(authority) = parts.uri.authority() {
            allowed.check_host(authority.as_str())?;
            named = true;
        }
        if !named {
            return Err(Forbidden::NoHost);
        }
        match single(&parts.headers, ORIGIN).map_err(|()| Forbidden::TwoOrigins)? {
            Some(origin) => allowed.check_origin(origin),
            None => Ok(()),
        }
    }
}

/// The names one request may carry: the [`AllowedHosts`], and the host of
/// the resource URL the endpoint publishes.
struct Allowed<'a> {
    hosts: &'a AllowedHosts,
    published: Option<&'a str>,
}

impl Allowed<'_> {
    /// Rules 2 and 3 for one host.
    fn check_host(&self, host: &str) -> Result<(), Forbidden> {
        let name = host_name(host).ok_or(Forbidden::MalformedHost)?;
        if self.hosts.any || self.allows_name(name) {
            return Ok(());
        }
        Err(Forbidden::HostNotAllowed {
            host: host.to_owned(),
            name: name.to_ascii_lowercase(),
        })
    }

    /// Rules 4 and 5 for an `Origin` that is present.
    fn check_origin(&self, origin: &HeaderValue) -> Result<(), Forbidden> {
        let origin = origin.to_str().map_err(|_| Forbidden::MalformedOrigin)?;
        if origin == "null" {
            return Err(Forbidden::OpaqueOrigin);
        }
        let (scheme, authority) = origin.split_once("://").ok_or(Forbidden::MalformedOrigin)?;
        if !is_scheme(scheme) {
            return Err(Forbidden::MalformedOrigin);
        }
        let name = host_name(authority).ok_or(Forbidden::MalformedOrigin)?;
        let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
        if self.hosts.any || (web && self.allows_name(name)) {
            return Ok(());
        }
        Err(Forbidden::OriginNotAllowed {
            origin: origin.to_owned(),
            name: web.then(|| name.to_ascii_lowercase()),
        })
    }

    fn allows_name(&self, name: &str) -> bool {
        let hosts = self.hosts.hosts.iter().map(String::as_str);
        hosts
            .chain(self.published)
            .any(|h| h.eq_ignore_ascii_case(name))
    }
}

/// The host name of the absolute `http` or `https` URL `url`, in lower
/// case, keeping an IPv6 literal's brackets: the name clients address when
/// they are given that URL. `None` when `url` is not one.
pub(super) fn url_host(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.parse().ok()?;
    let web = matches!(uri.scheme_str(), Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    let name = host_name(uri.authority()?.as_str())?;
    web.then(|| name.to_ascii_lowercase())
}

/// Whether `name` (a host name without port, an IPv6 literal in brackets)
/// always names this machine.
fn is_loopback_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return true;
    }
    let address = lower
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(&lower);
    address
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Why the guard refused a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Forbidden {
    /// No `Host` header, and no authority in the target (rule 1).
    NoHost,
    /// More than one `Host` header (rule 1).
    TwoHosts,
    /// A host that is not `name[:port]` in ASCII (rule 2).
    MalformedHost,
    /// A host whose name is not allowed (rule 3): the host as sent, and
    /// its name.
    HostNotAllowed { host: String, name: String },
    /// More than one `Origin` header (rule 4).
    TwoOrigins,
    /// An `Origin` that is not `scheme://name[:port]` in ASCII (rule 4).
    MalformedOrigin,
    /// `Origin: null` (rule 4).
    OpaqueOrigin,
    /// An origin whose scheme or name is not allowed (rule 5): the origin
    /// as sent, and its name when its scheme is `http` or `https`.
    OriginNotAllowed {
        origin: String,
        name: Option<String>,
    },
}

impl Forbidden {
    /// What the `403` says: what was wrong, and what to do. A refused name
    /// comes with the setting that allows it: the reader is often the
    /// person who deploys the server.
    pub fn message(&self) -> String {
        let what = match self {
            Forbidden::NoHost => "the request names no host; send a Host header".to_owned(),
            Forbidden::TwoHosts => "the request has more than one Host header".to_owned(),
            Forbidden::MalformedHost => {
                "the request's host is not a host name (name or name:port, in ASCII)".to_owned()
            }
            Forbidden::HostNotAllowed { host, name } => format!(
                "this server does not answer for the host {}. If it should, allow it in the \
                 server's settings: {}",
                shown(host),
                allow(name)
            ),
            Forbidden::TwoOrigins => "the request has more than one Origin header".to_owned(),
            Forbidden::MalformedOrigin => {
                "the Origin header is not an origin (scheme://name or scheme://name:port, in \
                 ASCII)"
                    .to_owned()
            }
            Forbidden::OpaqueOrigin => {
                "requests from an opaque origin (Origin: null) are not allowed".to_owned()
            }
            Forbidden::OriginNotAllowed {
                origin,
                name: Some(name),
            } => format!(
                "requests from the origin {} are not allowed. If they should be, allow its host \
                 in the server's settings: {}",
                shown(origin),
                allow(name)
            ),
            Forbidden::OriginNotAllowed { origin, name: None } => format!(
                "requests from the origin {} are not allowed. Only http and https origins can \
                 be allowed by name; AllowedHosts::any() allows every origin",
                shown(origin)
            ),
        };
        format!("Forbidden: {what}")
    }
}

/// The most bytes of a host or origin a refusal repeats: a host name has
/// at most 253, and a port and a scheme fit in the rest.
const MAX_SHOWN: usize = 280;

/// `text`, which the client sent, as a refusal repeats it: quoted with
/// escapes, and cut to [`MAX_SHOWN`] bytes, saying how long it was.
/// (The guard reads only visible ASCII, but the cut keeps to a character
/// boundary whatever it is given.)
fn shown(text: &str) -> String {
    if text.len() <= MAX_SHOWN {
        return format!("{text:?}");
    }
    let mut end = MAX_SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}… ({} bytes)", &text[..end], text.len())
}

/// The setting that allows `name`, as a refusal names it.
fn allow(name: &str) -> String {
    format!(
        "StreamableHttp::allowed_hosts(AllowedHosts::loopback().with({}))",
        shown(name)
    )
}

/// The one value of header `name`, if any; `Err` when it is given twice.
fn single(headers: &HeaderMap, name: HeaderName) -> Result<Option<&HeaderValue>, ()> {
    let mut values = headers.get_all(name).into_iter();
    let first = values.next();
    match values.next() {
        Some(_) => Err(()),
        None => Ok(first),
    }
}

/// The name of `authority` (`name[:port]`), keeping an IPv6 literal's
/// brackets; `None` when it is not one (rule 2).
fn host_name(authority: &str) -> Option<&str> {
    if authority.contains('@') {
        return None;
    }
    let parsed: Authority = authority.parse().ok()?;
    let name = parsed.host();
    if name.is_empty() {
        return None;
    }
    // Without user info, the name starts the authority.
    let (name, rest) = authority.split_at(name.len());
    match rest.strip_prefix(':') {
        None if rest.is_empty() => Some(name),
        Some(port) if port.parse::<u16>().is_ok() && port.bytes().all(|b| b.is_ascii_digit()) => {
            Some(name)
        }
        _ => None,
    }
}

/// Whether `scheme` is a URI scheme: a letter, then letters, digits, `+`,
/// `-` and `.`.
fn is_scheme(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict on a request with each `Host` and `Origin` given, to
    /// the target `uri`.
    fn check(
        hosts: &AllowedHosts,
        uri: &str,
        host: &[&str],
        origin: &[&str],
    ) -> Result<(), Forbidden> {
        let mut request = axum::http::Request::builder().uri(uri);
        for value in host {
            request = request.header(HOST, *value);
        }
        for value in origin {
            request = request.header(ORIGIN, *value);
        }
        hosts.check(&request.body(()).unwrap().into_parts().0, None)
    }

    fn host_refused(host: &str, name: &str) -> Result<(), Forbidden> {
        Err(Forbidden::HostNotAllowed {
            host: host.into(),
            name: name.into(),
        })
    }

    #[test]
    fn loopback_by_default() {
        let hosts = AllowedHosts::default();
        for host in ["localhost", "127.0.0.1:8080", "[::1]:3000", "LOCALHOST:1"] {
            assert_eq!(check(&hosts, "/mcp", &[host], &[]), Ok(()), "{host}");
        }
        for (host, name) in [
            ("evil.example", "evil.example"),
            ("127.0.0.1.evil.example", "127.0.0.1.evil.example"),
            ("localhost.Evil:80", "localhost.evil"),
        ] {
            let refused = check(&hosts, "/mcp", &[host], &[]);
            assert_eq!(refused, host_refused(host, name));
        }
        for origin in ["http://localhost:5173", "https://127.0.0.1", "HTTP://[::1]"] {
            assert_eq!(
                check(&hosts, "/", &["localhost"], &[origin]),
                Ok(()),
                "{origin}"
            );
        }
        for (origin, name) in [
            ("http://evil.example", Some("evil.example")),
            ("file://localhost", None),
            ("ws://localhost", None),
        ] {
            let refused = check(&hosts, "/", &["localhost"], &[origin]);
            let expected = Forbidden::OriginNotAllowed {
                origin: origin.into(),
                name: name.map(str::to_owned),
            };
            assert_eq!(refused, Err(expected));
        }
    }

    #[test]
    fn a_host_must_be_named_once_and_be_a_host() {
        let hosts = AllowedHosts::loopback();
        assert_eq!(check(&hosts, "/mcp", &[], &[]), Err(Forbidden::NoHost));
        assert_eq!(check(&hosts, "http://localhost:1/mcp", &[], &[]), Ok(()));
        let two = check(&hosts, "/mcp", &["localhost", "localhost"], &[]);
        assert_eq!(two, Err(Forbidden::TwoHosts));
        for host in [
            "",
            "localhost:",
            "localhost:abc",
            "localhost:99999",
            "localhost:+80",
            "user@localhost",
            "local host",
            "localhost/x",
            "[::1",
            ":80",
        ] {
            let refused = check(&hosts, "/mcp", &[host], &[]);
            assert_eq!(refused, Err(Forbidden::MalformedHost), "{host:?}");
        }
        // The target's authority is a host too, checked like the header.
        let refused = check(&hosts, "http://evil.example/mcp", &["localhost"], &[]);
        assert_eq!(refused, host_refused("evil.example", "evil.example"));
    }

    #[test]
    fn an_origin_when_present_must_be_one_origin() {
        let hosts = AllowedHosts::loopback();
        let with = |origins: &[&str]| check(&hosts, "/", &["localhost"], origins);
        assert_eq!(with(&[]), Ok(()), "no Origin: not a browser");
        assert_eq!(with(&["null"]), Err(Forbidden::OpaqueOrigin));
        let two = with(&["http://localhost", "http://localhost"]);
        assert_eq!(two, Err(Forbidden::TwoOrigins));
        for origin in [
            "localhost",
            "http://",
            "http://localhost/",
            "http://localhost/path",
            "http://user@localhost",
            "http://localhost:port",
            "1http://localhost",
            "://localhost",
            "NULL",
        ] {
            assert_eq!(
                with(&[origin]),
                Err(Forbidden::MalformedOrigin),
                "{origin:?}"
            );
        }
    }

    #[test]
    fn hosts_can_be_added_or_their_names_all_allowed() {
        let hosts = AllowedHosts::loopback().with("mcp.Example.com");
        let ok = check(
            &hosts,
            "/",
            &["mcp.example.com:443"],
            &["https://MCP.example.com"],
        );
        assert_eq!(ok, Ok(()));
        let any = AllowedHosts::any();
        let ok = check(&any, "/", &["evil.example"], &["chrome-extension://abc"]);
        assert_eq!(ok, Ok(()));
        assert_eq!(check(&any, "/", &[], &[]), Err(Forbidden::NoHost));
        let null = check(&any, "/", &["evil.example"], &["null"]);
        assert_eq!(null, Err(Forbidden::OpaqueOrigin));
        let bad = check(&any, "/", &["evil.example"], &["http://a b"]);
        assert_eq!(bad, Err(Forbidden::MalformedOrigin));
    }

    #[test]
    fn the_messages_say_what_was_wrong() {
        assert_eq!(
            Forbidden::NoHost.message(),
            "Forbidden: the request names no host; send a Host header"
        );
        let hosts = AllowedHosts::loopback();
        let refused = check(&hosts, "/", &["MCP.example.com:443"], &[]).unwrap_err();
        assert_eq!(
            refused.message(),
            "Forbidden: this server does not answer for the host \"MCP.example.com:443\". If it \
             should, allow it in the server's settings: \
             StreamableHttp::allowed_hosts(AllowedHosts::loopback().with(\"mcp.example.com\"))"
        );
        let refused = check(&hosts, "/", &["localhost"], &["https://app.example:8443"]);
        assert_eq!(
            refused.unwrap_err().message(),
            "Forbidden: requests from the origin \"https://app.example:8443\" are not allowed. If \
             they should be, allow its host in the server's settings: \
             StreamableHttp::allowed_hosts(AllowedHosts::loopback().with(\"app.example\"))"
        );
        let refused = check(&hosts, "/", &["localhost"], &["chrome-extension://abc"]);
        let message = refused.unwrap_err().message();
        assert!(message.contains("Only http and https"), "{message}");
    }

    /// A refusal repeats what the client sent, but escaped and cut short:
    /// a long `Host` gives a short message.
    #[test]
    fn a_refusal_repeats_a_long_host_cut_short() {
        let long = format!("{}.example", "a".repeat(10_000));
        let refused = check(&AllowedHosts::loopback(), "/", &[&long], &[]).unwrap_err();
        let message = refused.message();
        assert!(message.len() < 1_000, "{} bytes", message.len());
        assert!(message.contains("\"… (10008 bytes)"), "{message}");
        assert!(message.contains(&"a".repeat(MAX_SHOWN)), "{message}");
        assert!(!message.contains(&"a".repeat(MAX_SHOWN + 1)), "{message}");
        assert_eq!(shown("a\"b\\"), "\"a\\\"b\\\\\"", "quotes are escaped");
        assert_eq!(
            shown(&"é".repeat(200)).len(),
            2 + 280 + " (400 bytes)".len() + "…".len()
        );
    }

    /// The host of the resource URL the endpoint publishes is allowed
    /// beside the configured hosts, at any port, in `Host` and `Origin`.
    #[test]
    fn the_published_resource_host_is_allowed_at_any_port() {
        let published = url_host("https://MCP.example.com/mcp");
        assert_eq!(published.as_deref(), Some("mcp.example.com"));
        let hosts = AllowedHosts::loopback();
        let verdict = |host: &str, origin: &[&str]| {
            let mut request = axum::http::Request::builder()
                .uri("/mcp")
                .header(HOST, host);
            for value in origin {
                request = request.header(ORIGIN, *value);
            }
            let parts = request.body(()).unwrap().into_parts().0;
            hosts.check(&parts, published.as_deref())
        };
        for host in [
            "mcp.example.com",
            "mcp.example.com:443",
            "MCP.EXAMPLE.COM:3000",
        ] {
            assert_eq!(verdict(host, &[]), Ok(()), "{host}");
        }
        assert_eq!(verdict("localhost:3000", &[]), Ok(()), "loopback still");
        let origin = verdict("mcp.example.com", &["https://mcp.example.com"]);
        assert_eq!(origin, Ok(()));
        assert_eq!(
            verdict("api.example.com", &[]),
            host_refused("api.example.com", "api.example.com")
        );
        let without = check(&hosts, "/", &["mcp.example.com"], &[]);
        assert_eq!(without, host_refused("mcp.example.com", "mcp.example.com"));
    }

    #[test]
    fn a_url_names_its_host_when_it_is_a_web_url() {
        let host = |url| url_host(url);
        assert_eq!(
            host("http://127.0.0.1:3000/mcp").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(
            host("https://[2001:DB8::1]/mcp").as_deref(),
            Some("[2001:db8::1]")
        );
        assert_eq!(
            host("https://mcp.example.com").as_deref(),
            Some("mcp.example.com")
        );
        for url in [
            "/mcp",
            "mcp.example.com/mcp",
            "ftp://mcp.example.com/",
            "https://u@h/",
            "",
        ] {
            assert_eq!(host(url), None, "{url:?}");
        }
    }

    #[test]
    fn loopback_only_names_this_machine_only() {
        assert!(AllowedHosts::loopback().loopback_only(None));
        assert!(AllowedHosts::loopback().loopback_only(Some("localhost")));
        let local = AllowedHosts::loopback()
            .with("app.localhost")
            .with("127.0.0.2")
            .with("[::ffff:127.0.0.1]");
        assert!(local.loopback_only(None));
        assert!(!AllowedHosts::loopback().loopback_only(Some("mcp.example.com")));
        assert!(
            !AllowedHosts::loopback()
                .with("10.0.0.7")
                .loopback_only(None)
        );
        assert!(
            !AllowedHosts::loopback()
                .with("localhost.evil")
                .loopback_only(None)
        );
        assert!(!AllowedHosts::any().loopback_only(None));
    }
}
