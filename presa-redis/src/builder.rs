//! [`RedisTaskStoreBuilder`]: where the store's Redis is, how to reach it
//! safely, and how long to wait for it.

use std::time::Duration;

use presa_runtime::server::tasks::store::StoreError;

use crate::RedisTaskStore;
use crate::connection::{Settings, Target, Tls, provide_crypto};
use crate::error::Failures;
use crate::keys::Keys;
use crate::store::Replicas;

impl RedisTaskStore {
    /// Settings for a store on the Redis at `url`: `redis://host:port/db`
    /// (or `rediss://` for TLS), with `user:password@` before the host if
    /// needed; a Redis Cluster node's URL for a cluster;
    /// `redis+sentinel://HOST:PORT[,HOST:PORT…]/MASTER[/db]` (or
    /// `rediss+sentinel://`) for the master that those sentinels watch.
    pub fn builder(url: impl Into<String>) -> RedisTaskStoreBuilder {
        RedisTaskStoreBuilder::new(url)
    }
}

/// Settings of a [`RedisTaskStore`]: [`RedisTaskStore::builder`]. Its
/// `Debug` shows no credentials.
#[derive(Clone)]
pub struct RedisTaskStoreBuilder {
    url: String,
    prefix: String,
    connect_timeout: Duration,
    response_timeout: Duration,
    max_conflicts: u32,
    tls: Tls,
    replicas: Replicas,
}

impl RedisTaskStoreBuilder {
    fn new(url: impl Into<String>) -> Self {
        RedisTaskStoreBuilder {
            url: url.into(),
            prefix: "presa:".into(),
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(5),
            max_conflicts: 100,
            tls: Tls::default(),
            replicas: Replicas {
                count: 0,
                timeout: Duration::ZERO,
            },
        }
    }

    /// What every key and channel name starts with (default `presa:`), in
    /// braces: `{presa:}task:…`. Stores with the same prefix on one Redis
    /// share their tasks; a different prefix keeps two applications, or
    /// two test runs, apart. In a Redis Cluster the braces make it a hash
    /// tag, so one store lives on one shard, and stores with different
    /// prefixes can live on different shards. It must not be empty.
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

    /// Trusts the CA in `pem` (one or more PEM certificates) for a
    /// `rediss://` server, in place of the public roots.
    pub fn tls_ca(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.tls.ca = Some(pem.into());
        self
    }

    /// Shows the client certificate chain `certificate` with its private
    /// `key` (both PEM) to a `rediss://` server that asks for one (mutual
    /// TLS: `tls-auth-clients yes`).
    pub fn tls_client_certificate(
        mut self,
        certificate: impl Into<Vec<u8>>,
        key: impl Into<Vec<u8>>,
    ) -> Self {
        self.tls.client = Some((certificate.into(), key.into()));
        self
    }

    /// Reports a task created only once `replicas` replicas have it, as
    /// Redis's `WAIT` counts them, waiting at most `timeout`; past it,
    /// `create` fails with [`StoreError::Backend`] (the task may exist
    /// then, as after any call that timed out).
    ///
    /// The default is `0`: replication is asynchronous, so a task whose
    /// creation was reported just before its primary died can be missing
    /// on the replica promoted in its place. With `1` or more, a task
    /// reported created survives the failover to a replica that had it.
    pub fn wait_for_replicas(mut self, replicas: u32, timeout: Duration) -> Self {
        self.replicas = Replicas {
            count: replicas,
            timeout,
        };
        self
    }

    /// The store. It connects on first use, so Redis need not be up yet
    /// ([`RedisTaskStore::connect`] connects at once); must be called
    /// inside a tokio runtime. Fails only on a URL that is no Redis URL,
    /// or an empty prefix.
    pub fn build(self) -> Result<RedisTaskStore, StoreError> {
        let target = Target::parse(&self.url)
            .map_err(|e| StoreError::Backend(format!("bad Redis URL: {e}")))?;
        let keys = Keys::new(&self.prefix).ok_or_else(|| {
            StoreError::Backend("the Redis store's prefix is empty: give it one".into())
        })?;
        if target.tls() {
            provide_crypto();
        }
        if target.insecure() {
            tracing::warn!(
                server = target.address(),
                "TLS certificate verification is off (#insecure): for test certificates only"
            );
        }
        let failures = Failures::new(target.address().to_owned());
        let settings = Settings {
            connect_timeout: self.connect_timeout,
            response_timeout: self.response_timeout,
            tls: self.tls,
            pushes: None,
        };
        Ok(RedisTaskStore::open(
            target,
            settings,
            keys,
            failures,
            self.max_conflicts,
            self.replicas,
        ))
    }
}

impl std::fmt::Debug for RedisTaskStoreBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let server = Target::parse(&self.url)
            .map(|target| target.address().to_owned())
            .unwrap_or_else(|_| "(not a Redis URL)".into());
        f.debug_struct("RedisTaskStoreBuilder")
            .field("server", &server)
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.connect_timeout)
            .field("response_timeout", &self.response_timeout)
            .field("max_conflicts", &self.max_conflicts)
            .field("tls", &self.tls)
            .field("replicas", &self.replicas)
            .finish()
    }
}
