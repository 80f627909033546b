//! Opening a legacy session: `initialize`, version negotiation,
//! `notifications/initialized`, and the session's log level.
//!
//! The rules, in order:
//!
//! 1. `initialize` asks for the client's preferred legacy version and
//!    declares what the client's handlers imply, in the legacy shape (no
//!    extensions: 2025-11-25 asks for tasks per request), with the
//!    client's identity;
//! 2. the server answers with the session's version: one the client
//!    speaks is kept; any other ends the handshake with
//!    [`ClientError::UnsupportedVersion`], since the lifecycle has the
//!    client disconnect then;
//! 3. a refusal whose `data.supported` names another version the client
//!    speaks is tried once more with that version, as the lifecycle's
//!    example error invites;
//! 4. `initialize` is never cancelled (the lifecycle forbids it), though
//!    the client stops waiting after its request timeout, if it has one;
//! 5. `notifications/initialized` follows, then `logging/setLevel` when
//!    the client asked for a log level and the server offers logging.

use serde_json::Map;

use super::send::notify;
use crate::client::connection::{Connection, Waiting};
use crate::client::error::ClientError;
use crate::client::protocol::probe::supported_versions;
use crate::client::protocol::result::parse_complete;
use crate::client::protocol::versions::Versions;
use crate::wire::legacy::lifecycle::{
    InitializeParams, InitializeResult, LegacyClientCapabilities, SetLevelParams,
};
use crate::wire::legacy::{INITIALIZE, INITIALIZED, LOGGING_SET_LEVEL};
use crate::wire::{ErrorObject, RequestMeta};

/// What the client brings to a handshake.
struct Opening<'a> {
    /// Its capabilities, identity and log level, as a modern request
    /// would carry them.
    pub declared: &'a RequestMeta,
    /// The legacy versions it speaks, preferred first; never empty.
    pub versions: &'a [String],
    /// How long it waits for each answer.
    pub waiting: Waiting,
}

/// Opens a legacy session on `connection`, the server being legacy
/// because of `why`: [`Handshake::initialize`], then
/// [`Handshake::finish`]. The server's `InitializeResult`.
pub(crate) async fn open_legacy_session(
    connection: &Connection,
    meta: &RequestMeta,
    versions: &Versions,
    waiting: Waiting,
    why: &str,
) -> Result<InitializeResult, ClientError> {
    let handshake = Handshake::new(connection, meta, versions, waiting, why);
    let result = handshake.initialize().await?;
    handshake.finish(&result).await?;
    Ok(result)
}

/// One handshake on a connection, in two steps: `initialize` agrees on
/// the session (rules 1 to 4), and [`finish`](Self::finish) completes it
/// (rule 5). Its failures (but a closed connection or a version
/// disagreement) say why the server was taken for legacy.
pub(crate) struct Handshake<'a> {
    connection: &'a Connection,
    opening: Opening<'a>,
    /// Why the server is taken for legacy.
    why: &'a str,
}

impl<'a> Handshake<'a> {
    /// A handshake on `connection`, declaring `meta`, in one of the legacy
    /// `versions`, the server being legacy because of `why`.
    pub fn new(
        connection: &'a Connection,
        meta: &'a RequestMeta,
        versions: &'a Versions,
        waiting: Waiting,
        why: &'a str,
    ) -> Self {
        let opening = Opening {
            declared: meta,
            versions: &versions.legacy,
            waiting,
        };
        Handshake {
            connection,
            opening,
            why,
        }
    }

    /// Sends `initialize` and agrees on the session's version; the
    /// server's `InitializeResult`.
    pub async fn initialize(&self) -> Result<InitializeResult, ClientError> {
        let opened = open_session(self.connection, &self.opening).await;
        opened.map_err(|cause| self.failed(cause))
    }

    /// Sends `notifications/initialized`, then the log level (rule 5).
    pub async fn finish(&self, result: &InitializeResult) -> Result<(), ClientError> {
        let finished = async {
            notify(self.connection, INITIALIZED, &Map::new()).await?;
            set_log_level(self.connection, &self.opening, result).await
        };
        finished.await.map_err(|cause| self.failed(cause))
    }

    /// `cause`, saying why the server was taken for legacy.
    fn failed(&self, cause: ClientError) -> ClientError {
        match cause {
            ClientError::Closed | ClientError::UnsupportedVersion { .. } => cause,
            cause => ClientError::SessionFailed {
                reason: self.why.to_owned(),
                cause: Box::new(cause),
            },
        }
    }
}

/// Sends `initialize` on `connection`, and agrees on a version; the
/// server's `InitializeResult`.
async fn open_session(
    connection: &Connection,
    opening: &Opening<'_>,
) -> Result<InitializeResult, ClientError> {
    let preferred = &opening.versions[0];
    let result = match initialize(connection, opening, preferred).await {
        Err(ClientError::Rpc(refusal)) => match another_version(&refusal, opening, preferred) {
            Some(version) => initialize(connection, opening, version).await?,
            None => return Err(refused(refusal, opening)),
        },
        other => other?,
    };
    if !opening.versions.contains(&result.protocol_version) {
        return Err(ClientError::UnsupportedVersion {
            supported: vec![result.protocol_version],
            ours: opening.versions.to_vec(),
        });
    }
    Ok(result)
}

async fn initialize(
    connection: &Connection,
    opening: &Opening<'_>,
    version: &str,
) -> Result<InitializeResult, ClientError> {
    let declared = &opening.declared.client_capabilities;
    let params = InitializeParams {
        protocol_version: version.to_owned(),
        capabilities: LegacyClientCapabilities {
            core: crate::wire::ClientCapabilities {
                extensions: None,
                ..declared.clone()
            },
            tasks: None,
        },
        client_info: opening.declared.client_info.clone().unwrap_or_else(|| {
            crate::wire::Implementation::new("presa-client", env!("CARGO_PKG_VERSION"))
        }),
        meta: None,
    };
    let waiting = Waiting {
        cancels: false,
        ..opening.waiting
    };
    let result = connection
        .request(INITIALIZE, &params, None, waiting)
        .await?;
    parse_complete(INITIALIZE, result)
}

/// Another version of ours that `refusal` says the server speaks.
fn another_version<'a>(
    refusal: &ErrorObject,
    opening: &'a Opening<'_>,
    tried: &str,
) -> Option<&'a String> {
    let theirs = supported_versions(refusal);
    opening
        .versions
        .iter()
        .find(|v| *v != tried && theirs.contains(v))
}

/// The error for a refused `initialize`: the versions, when the server
/// named the ones it speaks, or the refusal itself.
fn refused(refusal: ErrorObject, opening: &Opening<'_>) -> ClientError {
    let theirs = supported_versions(&refusal);
    match theirs.is_empty() {
        true => ClientError::Rpc(refusal),
        false => ClientError::UnsupportedVersion {
            supported: theirs,
            ours: opening.versions.to_vec(),
        },
    }
}

async fn set_log_level(
    connection: &Connection,
    opening: &Opening<'_>,
    result: &InitializeResult,
) -> Result<(), ClientError> {
    let (Some(level), Some(_)) = (
        opening.declared.log_level,
        &result.capabilities.core.logging,
    ) else {
        return Ok(());
    };
    let params = SetLevelParams { level };
    connection
        .request(LOGGING_SET_LEVEL, &params, None, opening.waiting)
        .await
        .map(drop)
}
