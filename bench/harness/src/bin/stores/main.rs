//! The `redis` section: what keeping tasks in Redis costs, next to keeping
//! them in the server's memory.
//!
//! `presa-redis` lets every server behind a load balancer see every task;
//! the price is a network round trip (and a Lua script) where the
//! in-memory store takes a lock. This program puts figures on that price,
//! so that a deployment can tell whether its task traffic fits one Redis:
//!
//! - `ops`: the store's own `create`, `get` and `apply`, one caller at a
//!   time (latency) and many at once (throughput), also through TLS and
//!   through a cluster node, for what each shape of Redis adds;
//! - `calls`: a task call through presa's in-process server and client,
//!   from `tools/call work` to `tasks/get` seeing it `completed`;
//! - `legacy`: a 2025-11-25 client's request over Streamable HTTP, with
//!   its session in the server's memory and in Redis, and an answer that
//!   crosses from one replica to another;
//! - `footprint`: what a task costs Redis's memory.
//!
//! Each Redis is a private `redis-server` this program starts on a free
//! port (one plain, one with TLS, one a cluster node), with no persistence (`--save '' --appendonly no`: a disk write
//! would measure the disk), and stops at the end. Where `redis-server` is
//! not installed the section says so and records nothing, so that a run
//! of every section still completes.

mod calls;
mod footprint;
mod legacy;
mod ops;
mod redis_server;

use std::sync::Arc;

use bench_harness::figures::Figures;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::TaskStore;
use presa_redis::RedisTaskStore;

use crate::redis_server::{RedisServer, Shape};

/// The stores compared, in measuring order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// `InMemoryTaskStore`, the default.
    Memory,
    /// `RedisTaskStore`, on a private server of that shape.
    Redis(Shape),
}

impl StoreKind {
    /// The store in memory and on plain Redis, in measuring order.
    pub const BOTH: [StoreKind; 2] = [StoreKind::Memory, StoreKind::Redis(Shape::Plain)];

    /// Every store, in measuring order.
    pub const ALL: [StoreKind; 4] = [
        StoreKind::Memory,
        StoreKind::Redis(Shape::Plain),
        StoreKind::Redis(Shape::Tls),
        StoreKind::Redis(Shape::ClusterNode),
    ];

    /// The lower-case name used in figure keys.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Memory => "memory",
            StoreKind::Redis(Shape::Plain) => "redis",
            StoreKind::Redis(Shape::Tls) => "redis_tls",
            StoreKind::Redis(Shape::ClusterNode) => "redis_cluster",
        }
    }
}

/// The Redis side of the comparison: a server of each shape, and a store
/// on each.
pub struct Bench {
    redis: Vec<(RedisServer, RedisTaskStore)>,
}

impl Bench {
    /// A server of each shape and a store on it; `None` without
    /// `redis-server`.
    async fn start() -> Option<Bench> {
        let mut redis = Vec::new();
        for shape in [Shape::Plain, Shape::Tls, Shape::ClusterNode] {
            let server = RedisServer::start(shape).await?;
            let mut builder = RedisTaskStore::builder(server.url()).prefix("bench:");
            if let Some(ca) = server.ca() {
                builder = builder.tls_ca(ca);
            }
            let store = builder
                .build()
                .expect("the private server's URL is a Redis URL");
            store.connect().await.expect("the store reaches its server");
            redis.push((server, store));
        }
        Some(Bench { redis })
    }

    /// An empty store of `kind`: a new one in memory, or the Redis store
    /// after emptying its server, so that no round weighs on the next.
    pub async fn fresh(&self, kind: StoreKind) -> Arc<dyn TaskStore> {
        match kind {
            StoreKind::Memory => Arc::new(InMemoryTaskStore::new()),
            StoreKind::Redis(shape) => {
                let (server, store) = self.of(shape);
                server.flush().await;
                Arc::new(store.clone())
            }
        }
    }

    /// The private plain Redis server.
    pub fn server(&self) -> &RedisServer {
        &self.of(Shape::Plain).0
    }

    fn of(&self, shape: Shape) -> &(RedisServer, RedisTaskStore) {
        let at = [Shape::Plain, Shape::Tls, Shape::ClusterNode]
            .iter()
            .position(|s| *s == shape)
            .expect("a shape started");
        &self.redis[at]
    }
}

#[tokio::main]
async fn main() {
    let mut figures = Figures::new();
    match Bench::start().await {
        None => println!("skipped: install redis-server to measure the Redis task store"),
        Some(bench) => {
            ops::measure(&bench, &mut figures).await;
            calls::measure(&bench, &mut figures).await;
            legacy::measure(&bench, &mut figures).await;
            footprint::measure(&bench, &mut figures).await;
        }
    }
    figures.emit();
}
