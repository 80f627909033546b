//! Where a store's Redis is, as its URL says.
//!
//! Two kinds of URL:
//!
//! - `redis://` and `rediss://` name a node, as the redis crate parses
//!   them: `redis://[user:password@]host[:port][/db][?protocol=resp3]`,
//!   with `#insecure` after a `rediss://` URL to skip certificate
//!   verification.
//! - `redis+sentinel://` and `rediss+sentinel://` name the sentinels that
//!   watch a master, and the master's name:
//!   `redis+sentinel://[user:password@]host[:port][,host[:port]…]/MASTER[/db][?protocol=resp3]`.
//!   A port left out is Sentinel's, 26379. The credentials, database,
//!   protocol and TLS are the master's; the sentinels are asked over the
//!   same TLS, without credentials.

use redis::sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType};
use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisResult, TlsMode};

use super::Tls;

/// Sentinel's own port, for a sentinel URL's host without one.
const SENTINEL_PORT: u16 = 26379;

/// What a URL names.
#[derive(Clone)]
pub(crate) enum Target {
    /// A server or a cluster node (`redis://`, `rediss://`), with the
    /// address it is shown by.
    Node(ConnectionInfo, String),
    /// A master that sentinels watch (`redis+sentinel://`).
    Sentinel(Sentinels),
}

/// The sentinels of one master, and how to reach the master they name.
#[derive(Clone)]
pub(crate) struct Sentinels {
    /// Where the sentinels are.
    sentinels: Vec<ConnectionAddr>,
    /// The name the sentinels know the master by.
    master: String,
    /// The master's credentials, database, protocol and TLS (`addr` is
    /// the first sentinel's, and unused).
    node: ConnectionInfo,
    /// How it is shown: the master's name and the sentinels' addresses.
    address: String,
}

impl Target {
    /// The target of `url`, or why it is none.
    pub(crate) fn parse(url: &str) -> Result<Target, String> {
        if let Some((tls, rest)) = sentinel_scheme(url) {
            return Sentinels::parse(tls, rest).map(Target::Sentinel);
        }
        let info = url.into_connection_info().map_err(|e| e.to_string())?;
        let address = info.addr().to_string();
        Ok(Target::Node(info, address))
    }

    /// Where it is, without credentials.
    pub(crate) fn address(&self) -> &str {
        match self {
            Target::Node(_, address) => address,
            Target::Sentinel(sentinels) => &sentinels.address,
        }
    }

    /// The connection info of the node, or of the master once found: its
    /// database and protocol come from it.
    pub(crate) fn info(&self) -> &ConnectionInfo {
        match self {
            Target::Node(info, _) => info,
            Target::Sentinel(sentinels) => &sentinels.node,
        }
    }

    /// Whether it speaks TLS (`rediss://`, `rediss+sentinel://`).
    pub(crate) fn tls(&self) -> bool {
        matches!(self.info().addr(), ConnectionAddr::TcpTls { .. })
    }

    /// Whether its URL asked to skip certificate verification
    /// (`#insecure`).
    pub(crate) fn insecure(&self) -> bool {
        matches!(
            self.info().addr(),
            ConnectionAddr::TcpTls { insecure: true, .. }
        )
    }
}

/// `Some((tls, rest))` if `url` is a sentinel URL, `rest` following its
/// `://`.
fn sentinel_scheme(url: &str) -> Option<(bool, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    match scheme.to_ascii_lowercase().as_str() {
        "redis+sentinel" => Some((false, rest)),
        "rediss+sentinel" => Some((true, rest)),
        _ => None,
    }
}

impl Sentinels {
    /// The sentinels in `rest`, what follows `redis+sentinel://`.
    fn parse(tls: bool, rest: &str) -> Result<Sentinels, String> {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hosts) = match authority.rsplit_once('@') {
            Some((userinfo, hosts)) => (Some(userinfo), hosts),
            None => (None, authority),
        };
        let hosts = hosts
            .split(',')
            .map(host_and_port)
            .collect::<Result<Vec<_>, _>>()?;
        let (path, after) = split_at_first(path, &['?', '#']);
        let (master, db) = path.split_once('/').unwrap_or((path, ""));
        if master.is_empty() {
            return Err(
                "a sentinel URL names its master after the hosts: redis+sentinel://HOST:PORT/MASTER"
                    .into(),
            );
        }
        // The redis crate parses the master's part: credentials (decoded),
        // database, protocol and `#insecure`, as in a node's URL.
        let (host, port) = &hosts[0];
        let scheme = if tls { "rediss" } else { "redis" };
        let userinfo = userinfo.map(|u| format!("{u}@")).unwrap_or_default();
        let node = format!("{scheme}://{userinfo}{host}:{port}/{db}{after}")
            .into_connection_info()
            .map_err(|e| e.to_string())?;
        let insecure = matches!(node.addr(), ConnectionAddr::TcpTls { insecure: true, .. });
        let sentinels = hosts
            .iter()
            .map(|(host, port)| match tls {
                false => ConnectionAddr::Tcp(host.clone(), *port),
                true => ConnectionAddr::TcpTls {
                    host: host.clone(),
                    port: *port,
                    insecure,
                    tls_params: None,
                },
            })
            .collect::<Vec<_>>();
        let listed = hosts
            .iter()
            .map(|(host, port)| format!("{host}:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        Ok(Sentinels {
            sentinels,
            master: master.to_owned(),
            node,
            address: format!("master {master} of sentinels {listed}"),
        })
    }

    /// A client that asks the sentinels for the master, with `node`'s
    /// protocol, and `tls`'s certificates for the sentinels and the
    /// master both.
    pub(crate) fn client(&self, node: &ConnectionInfo, tls: &Tls) -> RedisResult<SentinelClient> {
        let settings = node.redis_settings();
        let mut builder = SentinelClientBuilder::new(
            self.sentinels.clone(),
            &self.master,
            SentinelServerType::Master,
        )?
        .set_client_to_redis_db(settings.db())
        .set_client_to_redis_protocol(settings.protocol());
        if let Some(user) = settings.username() {
            builder = builder.set_client_to_redis_username(user);
        }
        if let Some(password) = settings.password() {
            builder = builder.set_client_to_redis_password(password);
        }
        if let ConnectionAddr::TcpTls { insecure, .. } = node.addr() {
            let mode = if *insecure {
                TlsMode::Insecure
            } else {
                TlsMode::Secure
            };
            builder = builder
                .set_client_to_redis_tls_mode(mode)
                .set_client_to_sentinel_tls_mode(mode);
            if let Some(certificates) = tls.certificates() {
                builder = builder
                    .set_client_to_redis_certificates(certificates.clone())
                    .set_client_to_sentinel_certificates(certificates);
            }
        }
        builder.build()
    }
}

/// `host[:port]`, or `[v6]:port`, with Sentinel's port if none is given.
fn host_and_port(text: &str) -> Result<(String, u16), String> {
    let missing = || format!("a sentinel URL lists `host:port`s, and `{text}` is none");
    if text.is_empty() {
        return Err(missing());
    }
    let (host, port) = match text.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']').ok_or_else(missing)?;
            (host, after.strip_prefix(':'))
        }
        None => match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().map_err(|_| missing())?,
        None => SENTINEL_PORT,
    };
    if host.is_empty() {
        return Err(missing());
    }
    Ok((host.to_owned(), port))
}

/// `text` split before the first of `marks`.
fn split_at_first<'a>(text: &'a str, marks: &[char]) -> (&'a str, &'a str) {
    match text.find(marks) {
        Some(at) => text.split_at(at),
        None => (text, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentinels(url: &str) -> Sentinels {
        match Target::parse(url) {
            Ok(Target::Sentinel(sentinels)) => sentinels,
            Ok(Target::Node(..)) => panic!("{url} parsed as a node"),
            Err(error) => panic!("{url}: {error}"),
        }
    }

    #[test]
    fn a_sentinel_url_names_the_sentinels_and_the_master() {
        let parsed = sentinels("redis+sentinel://a:1,b,[::1]:3/mymaster");
        assert_eq!(parsed.master, "mymaster");
        assert_eq!(
            parsed.address,
            "master mymaster of sentinels a:1,b:26379,::1:3"
        );
        assert!(matches!(&parsed.sentinels[1], ConnectionAddr::Tcp(host, 26379) if host == "b"));
        assert_eq!(parsed.node.redis_settings().db(), 0);
    }

    #[test]
    fn the_credentials_database_and_protocol_are_the_masters_and_never_shown() {
        let parsed = sentinels("redis+sentinel://probe:p%40ss@h:5/m/3?protocol=resp3");
        let settings = parsed.node.redis_settings();
        assert_eq!(settings.username(), Some("probe"));
        assert_eq!(settings.password(), Some("p@ss"));
        assert_eq!(settings.db(), 3);
        assert_eq!(settings.protocol(), redis::ProtocolVersion::RESP3);
        assert!(!parsed.address.contains("p@ss") && !parsed.address.contains("probe"));
    }

    #[test]
    fn rediss_sentinel_speaks_tls_to_both_and_insecure_skips_verification() {
        let target = Target::parse("rediss+sentinel://h/m").unwrap();
        assert!(target.tls() && !target.insecure());
        let target = Target::parse("rediss+sentinel://h/m#insecure").unwrap();
        assert!(target.tls() && target.insecure());
        let Target::Sentinel(parsed) = target else {
            panic!("a sentinel target")
        };
        assert!(matches!(
            &parsed.sentinels[0],
            ConnectionAddr::TcpTls { insecure: true, .. }
        ));
    }

    #[test]
    fn a_sentinel_url_without_a_master_or_with_a_bad_host_is_refused_and_says_why() {
        let error = Target::parse("redis+sentinel://h:1").err().unwrap();
        assert!(error.contains("names its master"), "{error}");
        let error = Target::parse("redis+sentinel://h:x/m").err().unwrap();
        assert!(error.contains("`h:x` is none"), "{error}");
        let error = Target::parse("redis+sentinel://a,,b/m").err().unwrap();
        assert!(error.contains("`` is none"), "{error}");
    }
}
