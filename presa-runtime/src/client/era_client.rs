//! The era seam: [`Client::era_client`], the client as the server's era
//! has it speak, chosen once per call between the two implementations of
//! the interface (see `era_side`).
//!
//! Each [`Client`] method whose meaning differs by era is one delegation
//! to it. The rules, in order:
//!
//! 1. the era is settled before the choice (by the first request of the
//!    client, or by this one), and the choice holds for the call;
//! 2. `modern::client::ModernClient` speaks to a modern server,
//!    `legacy::client::LegacyClient` within a legacy server's session.

use super::api::Client;
use super::era_side::EraSide;
use super::error::ClientError;
use super::modern::client::ModernClient;
use super::protocol::Settlement;

impl Client {
    /// The client as the server's era has it speak, settling the era first
    /// if need be (rule 1).
    pub(super) async fn era_client(&self) -> Result<Box<dyn EraSide + '_>, ClientError> {
        Ok(match self.protocol().settled().await? {
            Settlement::Modern { .. } => Box::new(ModernClient { client: self }),
            Settlement::Legacy(session) => Box::new(super::legacy::client::LegacyClient {
                client: self,
                session,
            }),
        })
    }
}
