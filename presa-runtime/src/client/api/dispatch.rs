//! The era seam: [`Client::era_client`] chooses, once per call, the
//! [`EraSide`] that speaks to the server's era: one implementation per
//! era (`modern::methods` and `legacy::methods`).
//!
//! Most methods mean the same in either era, and the protocol gives each
//! request the shape its era wants. The others (discovery, tool listing
//! and calls, tasks, listening) are done differently by a legacy server;
//! they are this interface, and each [`Client`] method whose meaning
//! differs by era is one delegation to it. The rules, in order:
//!
//! 1. both sides take and return the same types, so that a `Client`
//!    method is one delegation, whatever the era;
//! 2. a method the legacy era lacks (`tasks/update`) is
//!    [`ClientError::NotInEra`] there;
//! 3. the era is settled before the choice (by the first request of the
//!    client, or by this one), and the choice holds for the call;
//! 4. `ModernClient` speaks to a modern server, `LegacyClient` within a
//!    legacy server's session.

use super::client::Client;
use super::era_side::EraSide;
use super::legacy::LegacyClient;
use super::modern::ModernClient;
use crate::client::error::ClientError;
use crate::client::protocol::Settlement;

impl Client {
    /// The client as the server's era has it speak, settling the era first
    /// if need be (rule 3).
    pub(crate) async fn era_client(&self) -> Result<Box<dyn EraSide + '_>, ClientError> {
        Ok(match self.protocol().settled().await? {
            Settlement::Modern { .. } => Box::new(ModernClient { client: self }),
            Settlement::Legacy(session) => Box::new(LegacyClient {
                client: self,
                session,
            }),
        })
    }
}
