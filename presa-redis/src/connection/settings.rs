//! How long a link waits for Redis, its TLS, and where pushes go: what
//! every kind of connection ([`super::Link`]) is made with.

use std::time::Duration;

use redis::ConnectionInfo;
use redis::PushInfo;
use redis::aio::ConnectionManagerConfig;
use tokio::sync::mpsc::UnboundedSender;

use super::Tls;

/// How long to wait for Redis, and how to be told of pushes.
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) connect_timeout: Duration,
    pub(crate) response_timeout: Duration,
    pub(crate) tls: Tls,
    /// Where pub/sub messages go; `None` for a link that only sends
    /// commands. A link with pushes speaks RESP3, which they need.
    pub(crate) pushes: Option<UnboundedSender<PushInfo>>,
}

impl Settings {
    /// `info` in RESP3 if this link takes pushes, else as the URL says.
    pub(crate) fn protocol_of(&self, info: ConnectionInfo) -> ConnectionInfo {
        if self.pushes.is_none() {
            return info;
        }
        let resp3 = info
            .redis_settings()
            .clone()
            .set_protocol(redis::ProtocolVersion::RESP3);
        info.set_redis_settings(resp3)
    }

    pub(crate) fn manager(&self) -> ConnectionManagerConfig {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.connect_timeout))
            .set_response_timeout(Some(self.response_timeout))
            .set_number_of_retries(1)
            .set_max_delay(self.connect_timeout);
        match &self.pushes {
            Some(pushes) => config
                .set_push_sender(pushes.clone())
                .set_automatic_resubscription(),
            None => config,
        }
    }
}
