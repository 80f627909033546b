//! How a store talks to Redis: a [`Link`], one handle over the shapes a
//! Redis deployment takes (one server, possibly with replicas; a Redis
//! Cluster; a master that Sentinel watches).
//!
//! The rules, in order:
//!
//! 1. **The URL says where, the node says what.** A `redis://` or
//!    `rediss://` URL names a node; on first use the link asks it
//!    (`INFO cluster`) whether it belongs to a Redis Cluster, and speaks
//!    the cluster protocol if it does, so the same URL works for both.
//!    `redis+sentinel://` names sentinels instead ([`target`]), and the
//!    link follows the master they name across failovers ([`sentinel`]).
//! 2. **A link connects on first use.** Until a connection stands, each
//!    call tries once and fails with the reason; once one stands, it
//!    reconnects by itself: one server's connection manager retries the
//!    server, the cluster client follows `MOVED` and `ASK` and refreshes
//!    its map of slots, and a sentinel link asks the sentinels again.
//! 3. **Credentials stay in the connection info.** What the link shows of
//!    itself, in errors and logs, is the address ([`Target::address`]),
//!    never the user or password.
//! 4. **Round trips can be counted.** With the feature `round-trips` (for
//!    benchmarks and tests), every request the link sends and waits for
//!    is counted once: a command, a pipeline, a script call, a
//!    subscription. The count is what [`crate::round_trips`] returns;
//!    without the feature nothing is counted and nothing is paid.

mod sentinel;
mod settings;
mod target;
mod tls;

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{
    AsyncConnectionConfig, Client, Cmd, ConnectionInfo, Pipeline, RedisFuture, RedisResult, Value,
};
use tokio::sync::OnceCell;

use sentinel::Following;
pub(crate) use settings::Settings;
pub(crate) use target::Target;
pub(crate) use tls::{Tls, provide_crypto};

/// Every round trip the links of this process made, with the feature
/// `round-trips`.
#[cfg(feature = "round-trips")]
pub(crate) static ROUND_TRIPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Counts one round trip, if the feature `round-trips` is on.
#[inline]
fn count_round_trip() {
    #[cfg(feature = "round-trips")]
    ROUND_TRIPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// A store's way to Redis; cloning shares the connection.
#[derive(Clone)]
pub(crate) struct Link {
    shared: Arc<Shared>,
}

struct Shared {
    target: Target,
    settings: Settings,
    connected: OnceCell<Connected>,
}

/// A standing connection, of the kind the node said.
#[derive(Clone)]
enum Connected {
    Server(ConnectionManager),
    Cluster(ClusterConnection),
    Sentinel(Arc<Following>),
}

impl Link {
    /// A link to `target` that connects on first use.
    pub(crate) fn new(target: Target, settings: Settings) -> Self {
        Link {
            shared: Arc::new(Shared {
                target,
                settings,
                connected: OnceCell::new(),
            }),
        }
    }

    /// Where the link goes, without credentials.
    pub(crate) fn address(&self) -> &str {
        self.shared.target.address()
    }

    /// Connects now if no connection stands yet.
    pub(crate) async fn connect(&self) -> RedisResult<()> {
        self.connected().await.map(|_| ())
    }

    async fn connected(&self) -> RedisResult<Connected> {
        let shared = &self.shared;
        shared
            .connected
            .get_or_try_init(|| connect(&shared.target, &shared.settings))
            .await
            .cloned()
    }

    /// Subscribes to `channel`; the messages arrive as pushes.
    pub(crate) async fn subscribe(&self, channel: &str) -> RedisResult<()> {
        count_round_trip();
        match self.connected().await? {
            Connected::Server(mut server) => server.subscribe(channel).await,
            Connected::Cluster(mut cluster) => cluster.subscribe(channel).await,
            Connected::Sentinel(master) => master.subscribe(channel).await,
        }
    }

    /// Unsubscribes from `channel`.
    pub(crate) async fn unsubscribe(&self, channel: &str) -> RedisResult<()> {
        count_round_trip();
        match self.connected().await? {
            Connected::Server(mut server) => server.unsubscribe(channel).await,
            Connected::Cluster(mut cluster) => cluster.unsubscribe(channel).await,
            Connected::Sentinel(master) => master.unsubscribe(channel).await,
        }
    }

    /// Waits until `replicas` replicas have every write made so far on the
    /// node that holds `key`, or `timeout` passed; returns how many did.
    pub(crate) async fn wait_for_replicas(
        &self,
        key: &str,
        replicas: u32,
        timeout: Duration,
    ) -> RedisResult<u32> {
        let mut wait = redis::cmd("WAIT");
        wait.arg(replicas)
            .arg(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        count_round_trip();
        match self.connected().await? {
            Connected::Server(mut server) => wait.query_async(&mut server).await,
            Connected::Cluster(mut cluster) => {
                let primary = Route::with_key(key, SlotAddr::Master);
                let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(primary));
                let answer = cluster.route_command(wait, routing).await?;
                Ok(redis::from_redis_value(answer)?)
            }
            Connected::Sentinel(master) => {
                master
                    .run(|mut master| async move { wait.query_async(&mut master).await })
                    .await
            }
        }
    }
}

impl ConnectionLike for Link {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        count_round_trip();
        Box::pin(async move {
            match self.connected().await? {
                Connected::Server(mut server) => server.req_packed_command(cmd).await,
                Connected::Cluster(mut cluster) => cluster.req_packed_command(cmd).await,
                Connected::Sentinel(master) => {
                    master
                        .run(|mut master| async move { master.req_packed_command(cmd).await })
                        .await
                }
            }
        })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        count_round_trip();
        Box::pin(async move {
            match self.connected().await? {
                Connected::Server(mut server) => {
                    server.req_packed_commands(pipeline, offset, count).await
                }
                Connected::Cluster(mut cluster) => {
                    cluster.req_packed_commands(pipeline, offset, count).await
                }
                Connected::Sentinel(master) => {
                    let call = async move |mut master: redis::aio::MultiplexedConnection| {
                        master.req_packed_commands(pipeline, offset, count).await
                    };
                    master.run(call).await
                }
            }
        })
    }

    fn get_db(&self) -> i64 {
        self.shared.target.info().redis_settings().db()
    }
}

/// Connects to `target`, as the kind of node it is.
async fn connect(target: &Target, settings: &Settings) -> RedisResult<Connected> {
    match target {
        Target::Node(info, _) => {
            let info = settings.protocol_of(info.clone());
            let client = settings.tls.client(info.clone())?;
            if is_cluster_node(&client, settings).await? {
                Ok(Connected::Cluster(cluster(info, settings).await?))
            } else {
                let manager = ConnectionManager::new_with_config(client, settings.manager());
                Ok(Connected::Server(manager.await?))
            }
        }
        Target::Sentinel(sentinels) => {
            let node = settings.protocol_of(target.info().clone());
            let following =
                Following::new(sentinels.client(&node, &settings.tls)?, settings.clone());
            following.connect().await?;
            Ok(Connected::Sentinel(Arc::new(following)))
        }
    }
}

/// Whether the node behind `client` is a Redis Cluster node.
async fn is_cluster_node(client: &Client, settings: &Settings) -> RedisResult<bool> {
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(settings.connect_timeout))
        .set_response_timeout(Some(settings.response_timeout));
    let mut probe = client
        .get_multiplexed_async_connection_with_config(&config)
        .await?;
    let info: String = redis::cmd("INFO")
        .arg("cluster")
        .query_async(&mut probe)
        .await?;
    Ok(info.lines().any(|line| line.trim() == "cluster_enabled:1"))
}

/// A cluster connection seeded with the node at `info`.
async fn cluster(info: ConnectionInfo, settings: &Settings) -> RedisResult<ClusterConnection> {
    let protocol = info.redis_settings().protocol();
    let mut builder = ClusterClientBuilder::new([info])
        .use_protocol(protocol)
        .connection_timeout(settings.connect_timeout)
        .response_timeout(settings.response_timeout);
    if let Some(certificates) = settings.tls.certificates() {
        builder = builder.certs(certificates);
    }
    if let Some(pushes) = &settings.pushes {
        builder = builder.push_sender(pushes.clone());
    }
    builder.build()?.get_async_connection().await
}
