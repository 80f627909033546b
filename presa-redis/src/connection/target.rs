//! Where a store's Redis is, as its URL says.

use redis::{ConnectionInfo, IntoConnectionInfo};

/// What a URL names.
#[derive(Clone)]
pub(crate) enum Target {
    /// A server or a cluster node (`redis://`, `rediss://`), with the
    /// address it is shown by.
    Node(ConnectionInfo, String),
}

impl Target {
    /// The target of `url`, or why it is none.
    pub(crate) fn parse(url: &str) -> Result<Target, String> {
        let info = url.into_connection_info().map_err(|e| e.to_string())?;
        let address = info.addr().to_string();
        Ok(Target::Node(info, address))
    }

    /// Where it is, without credentials.
    pub(crate) fn address(&self) -> &str {
        match self {
            Target::Node(_, address) => address,
        }
    }

    /// Whether it speaks TLS (`rediss://`).
    pub(crate) fn tls(&self) -> bool {
        match self {
            Target::Node(info, _) => matches!(info.addr(), redis::ConnectionAddr::TcpTls { .. }),
        }
    }

    /// Whether its URL asked to skip certificate verification
    /// (`rediss://…/#insecure`).
    pub(crate) fn insecure(&self) -> bool {
        match self {
            Target::Node(info, _) => matches!(
                info.addr(),
                redis::ConnectionAddr::TcpTls { insecure: true, .. }
            ),
        }
    }
}
