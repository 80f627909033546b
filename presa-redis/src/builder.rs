//! [`RedisTaskStoreBuilder`]: where the store's Redis is and how long to
//! wait for it.

use std::time::Duration;

use presa_runtime::server::tasks::store::StoreError;
use redis::aio::ConnectionManagerConfig;
use redis::{Client, IntoConnectionInfo, ProtocolVersion};

use crate::RedisTaskStore;
use crate::error::Failures;
use crate::keys::Keys;

impl RedisTaskStore {
    /// Settings for a store on the Redis at `url` (`redis://host:port/db`,
    /// with credentials if needed).
    pub fn builder(url: impl Into<String>) -> RedisTaskStoreBuilder {
        RedisTaskStoreBuilder::new(url)
    }
}

/// Settings of a [`RedisTaskStore`]: [`RedisTaskStore::builder`].
#[derive(Debug, Clone)]
pub struct RedisTaskStoreBuilder {
    url: String,
    prefix: String,
    connect_timeout: Duration,
    response_timeout: Duration,
    max_conflicts: u32,
}

impl RedisTaskStoreBuilder {
    fn new(url: impl Into<String>) -> Self {
        RedisTaskStoreBuilder {
            url: url.into(),
            prefix: "presa:".into(),
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(5),
            max_conflicts: 100,
        }
    }

    /// What every key and channel name starts with (default `presa:`).
    /// Stores with the same prefix on one Redis share their tasks; a
    /// different prefix keeps two applications, or two test runs, apart.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long to wait for a connection (default one second). Past it,
    /// the call fails with [`StoreError::Backend`]; the next call tries
    /// again.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long to wait for an answer from Redis (default five seconds).
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How many times one change is computed again because another server
    /// changed the task first (default 100), before it fails with
    /// [`StoreError::Backend`].
    pub fn max_conflicts(mut self, times: u32) -> Self {
        self.max_conflicts = times.max(1);
        self
    }

    /// The store. It connects on first use, so Redis need not be up yet;
    /// must be called inside a tokio runtime. Fails only on a URL that is
    /// no Redis URL.
    pub fn build(self) -> Result<RedisTaskStore, StoreError> {
        let invalid = |e: redis::RedisError| StoreError::Backend(format!("bad Redis URL: {e}"));
        let info = self.url.as_str().into_connection_info().map_err(invalid)?;
        let failures = Failures::new(info.addr().to_string());
        let commands = Client::open(info.clone()).map_err(invalid)?;
        let resp3 = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let pushes = Client::open(info.set_redis_settings(resp3)).map_err(invalid)?;
        RedisTaskStore::open(
            commands,
            pushes,
            self.manager_config(),
            Keys::new(self.prefix),
            failures,
            self.max_conflicts,
        )
    }

    fn manager_config(&self) -> ConnectionManagerConfig {
        ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.connect_timeout))
            .set_response_timeout(Some(self.response_timeout))
            .set_number_of_retries(1)
            .set_max_delay(self.connect_timeout)
    }
}
