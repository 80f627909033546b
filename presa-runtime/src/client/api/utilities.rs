//! The protocol's utilities, from the client: `ping`, and the level of
//! the log messages the server sends.
//!
//! The eras differ here, so each method matches the server's era (see the
//! rules in `api`):
//!
//! 1. a legacy server answers `ping` within its session; 2026-07-28 has
//!    no `ping`, so [`Client::ping`] asks a modern server
//!    `server/discover`, the era's cheapest request, which any live
//!    server answers;
//! 2. a legacy server keeps one log level for its session, set by
//!    `logging/setLevel`; a modern one reads the level from each
//!    request's `_meta`. [`Client::set_log_level`] sets the `_meta` in
//!    either era, so that a legacy session opened again keeps the level,
//!    and a legacy server is also sent `logging/setLevel` at once.

use serde_json::Map;

use super::client::Client;
use crate::client::connection::ServerEra;
use crate::client::error::ClientError;
use crate::wire::LoggingLevel;
use crate::wire::legacy::LOGGING_SET_LEVEL;
use crate::wire::legacy::lifecycle::SetLevelParams;

/// `ping`, the legacy method.
const PING: &str = "ping";

impl Client {
    /// Checks that the server answers: `ping` to a legacy server,
    /// `server/discover` to a modern one, which has no `ping` (rule 1).
    /// Bounded by the request timeout, if one is set.
    pub async fn ping(&self) -> Result<(), ClientError> {
        match self.server_era().await? {
            ServerEra::Modern { .. } => self.discover().await.map(drop),
            ServerEra::Legacy(_) => self.request(PING, &Map::new()).await.map(drop),
        }
    }

    /// Asks the server for log messages at `level` and above from now on
    /// (rule 2): every later request carries the level in its `_meta`,
    /// and a legacy server is sent `logging/setLevel`, whose refusal (a
    /// server without the `logging` capability) is returned. The messages
    /// come as `notifications/message`, to
    /// [`ClientBuilder::on_notification`](crate::client::ClientBuilder::on_notification).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.protocol().set_log_level(level);
        match self.server_era().await? {
            ServerEra::Modern { .. } => Ok(()),
            ServerEra::Legacy(_) => {
                let params = SetLevelParams { level };
                self.request(LOGGING_SET_LEVEL, &params).await.map(drop)
            }
        }
    }
}
