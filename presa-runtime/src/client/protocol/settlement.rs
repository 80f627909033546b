//! Settling the server's era: the probe, its answer, and the fall back to
//! a legacy session (the rules are `probe`'s), as one attempt that needs
//! only the connection and the client's settings.
//!
//! An attempt runs on a tokio task of its own (see `speaking`), so it owns
//! what it uses and reports the [`ServerEra`] it settled, for the protocol
//! to hand the connection. The fall back itself is the legacy side's
//! (`legacy::fall_back`), which hands the connection the legacy server as
//! soon as the server accepts `initialize`, with two more rules:
//!
//! 1. a legacy server found while the client has no legacy version to
//!    speak is [`ClientError::LegacyServer`], without an `initialize`;
//! 2. a server that refuses `initialize` naming a modern version the
//!    client speaks is modern after all (it was slower to answer the probe
//!    than the probe timeout): the client adopts that version rather than
//!    fail.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Map;

use super::legacy::{Fallback, fall_back};
use super::probe::{ProbeAnswer, read_probe, supported_versions};
use super::versions::{DEFAULT_PROBE_TIMEOUT, Versions};
use crate::client::connection::{Connection, ServerEra, Waiting};
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::input::Handlers;
use crate::wire::{DiscoverResult, ErrorObject, Method, RequestMeta, codes};

/// How the era is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detection {
    /// Without asking the server.
    Forced(Era),
    /// By probing, waiting this long for an answer.
    Probe(Duration),
}

impl Default for Detection {
    fn default() -> Self {
        Detection::Probe(DEFAULT_PROBE_TIMEOUT)
    }
}

/// What one attempt needs.
pub(crate) struct Attempt {
    pub connection: Arc<Connection>,
    /// The client's `_meta`, with its preferred modern version.
    pub meta: Arc<RequestMeta>,
    pub versions: Versions,
    pub detection: Detection,
    /// How the handshake's requests wait.
    pub waiting: Waiting,
    /// What answers a legacy server's own requests.
    pub handlers: Arc<Handlers>,
}

impl Attempt {
    /// Settles the era, or fails without settling it. A client with no
    /// modern version to probe with, or forced to another era, falls back
    /// at once.
    pub async fn settle(self) -> Result<ServerEra, ClientError> {
        match self.detection {
            Detection::Forced(Era::Modern) => match self.versions.modern.first() {
                Some(version) => Ok(ServerEra::Modern {
                    version: version.clone(),
                    discovered: None,
                }),
                None => Err(ClientError::InvalidArguments(
                    "the client is set to speak the modern era, but its protocol versions \
                     list no modern version"
                        .into(),
                )),
            },
            Detection::Probe(limit) if !self.versions.modern.is_empty() => self.probe(limit).await,
            _ => {
                self.fall_back("the client is set to speak only the legacy era".into())
                    .await
            }
        }
    }

    /// Probes with `server/discover`, waiting `limit` for the answer.
    async fn probe(self, limit: Duration) -> Result<ServerEra, ClientError> {
        let waiting = Waiting {
            limit: Some(limit),
            cancels: false,
        };
        let method = Method::ServerDiscover.as_str();
        let outcome = self
            .connection
            .request(method, &Map::new(), Some(&self.meta), waiting)
            .await;
        match read_probe(outcome)? {
            ProbeAnswer::Discovered(discovered) => self.adopt_discovered(&discovered).await,
            ProbeAnswer::Refused(error) if error.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                self.adopt_listed(&error)
            }
            ProbeAnswer::Refused(_) => Ok(ServerEra::Modern {
                version: self.meta.protocol_version.clone(),
                discovered: None,
            }),
            ProbeAnswer::Legacy(why) => self.fall_back(why).await,
        }
    }

    /// Picks a version among those a `DiscoverResult` lists.
    async fn adopt_discovered(self, discovered: &DiscoverResult) -> Result<ServerEra, ClientError> {
        let theirs = &discovered.supported_versions;
        if let Some(version) = self.versions.shared_modern(theirs) {
            return Ok(ServerEra::Modern {
                version: version.clone(),
                discovered: Some(Arc::new(discovered.capabilities.clone())),
            });
        }
        if self.versions.shares_legacy(theirs) {
            let why = format!("it speaks no modern version this client speaks ({theirs:?})");
            return self.fall_back(why).await;
        }
        Err(ClientError::UnsupportedVersion {
            supported: theirs.clone(),
            ours: self.versions.all(),
        })
    }

    /// Picks a version among those a `-32022` error lists.
    fn adopt_listed(&self, error: &ErrorObject) -> Result<ServerEra, ClientError> {
        adopt_listed(&self.versions, error).map(|version| ServerEra::Modern {
            version,
            discovered: None,
        })
    }

    /// Falls back to the legacy era, the server being legacy because of
    /// `why`.
    async fn fall_back(self, why: String) -> Result<ServerEra, ClientError> {
        let fallback = fall_back(
            self.connection,
            self.meta,
            self.versions,
            self.waiting,
            why,
            self.handlers,
        );
        Ok(match fallback.await? {
            Fallback::Session(server) => ServerEra::Legacy(server),
            Fallback::Modern(version) => ServerEra::Modern {
                version,
                discovered: None,
            },
        })
    }
}

/// The preferred version among those the server's `-32022` error lists.
/// That may be the version just refused: a server (or a gateway in front
/// of it) may refuse a first request and list the very version it
/// carried, and one retry with it is what the spec asks.
pub(crate) fn adopt_listed(
    versions: &Versions,
    error: &ErrorObject,
) -> Result<String, ClientError> {
    let supported = supported_versions(error);
    match versions.shared_modern(&supported) {
        Some(version) => Ok(version.clone()),
        None => Err(ClientError::UnsupportedVersion {
            supported,
            ours: versions.all(),
        }),
    }
}
