//! TLS beyond what a `rediss://` URL says: a private CA to trust instead
//! of the public roots, and a client certificate for mutual TLS.
//!
//! A `rediss://` URL alone verifies the server's certificate against
//! Mozilla's roots (webpki-roots, as presa's HTTP client does), which
//! needs no certificate files on the machine; `#insecure` at its end skips
//! verification, for test certificates only.

use redis::{Client, ClientTlsConfig, ConnectionInfo, RedisResult, TlsCertificates};

/// Makes ring rustls's process-wide crypto provider, unless the process
/// chose one already: the redis crate asks rustls for the default, which
/// rustls cannot pick by itself in a program that builds two providers.
pub(crate) fn provide_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The certificates a store's connections use, all PEM.
#[derive(Clone, Default)]
pub(crate) struct Tls {
    /// The CA to trust, in place of the public roots.
    pub(crate) ca: Option<Vec<u8>>,
    /// The client's certificate chain and key.
    pub(crate) client: Option<(Vec<u8>, Vec<u8>)>,
}

impl Tls {
    /// What the redis crate takes, if anything is set.
    pub(crate) fn certificates(&self) -> Option<TlsCertificates> {
        if self.ca.is_none() && self.client.is_none() {
            return None;
        }
        Some(TlsCertificates {
            client_tls: self.client.clone().map(|(cert, key)| ClientTlsConfig {
                client_cert: cert,
                client_key: key,
            }),
            root_cert: self.ca.clone(),
        })
    }

    /// A client for `info` with these certificates.
    pub(crate) fn client(&self, info: ConnectionInfo) -> RedisResult<Client> {
        match self.certificates() {
            Some(certificates) => Client::build_with_tls(info, certificates),
            None => Client::open(info),
        }
    }
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("custom_ca", &self.ca.is_some())
            .field("client_certificate", &self.client.is_some())
            .finish()
    }
}
