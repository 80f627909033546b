//! The `redis` section: what keeping tasks in Redis costs, next to keeping
//! them in the server's memory.
//!
//! `presa-redis` lets every server behind a load balancer see every task;
//! the price is a network round trip (and a Lua script) where the
//! in-memory store takes a lock. This program puts figures on that price,
//! so that a deployment can tell whether its task traffic fits one Redis:
//!
//! - `ops`: the store's own `create`, `get` and `apply`, one caller at a
//!   time (latency) and many at once (throughput);
//! - `calls`: a task call through presa's in-process server and client,
//!   from `tools/call work` to `tasks/get` seeing it `completed`;
//! - `footprint`: what a task costs Redis's memory.
//!
//! The Redis is a private `redis-server` this program starts on a free
//! port, with no persistence (`--save '' --appendonly no`: a disk write
//! would measure the disk), and stops at the end. Where `redis-server` is
//! not installed the section says so and records nothing, so that a run
//! of every section still completes.

mod calls;
mod footprint;
mod ops;
mod redis_server;

use std::sync::Arc;

use bench_harness::figures::Figures;
use presa::server::tasks::InMemoryTaskStore;
use presa::server::tasks::store::TaskStore;
use presa_redis::RedisTaskStore;

use crate::redis_server::RedisServer;

/// The two stores compared, in measuring order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// `InMemoryTaskStore`, the default.
    Memory,
    /// `RedisTaskStore`, on the private server.
    Redis,
}

impl StoreKind {
    /// Both stores, in measuring order.
    pub const BOTH: [StoreKind; 2] = [StoreKind::Memory, StoreKind::Redis];

    /// The lower-case name used in figure keys.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Memory => "memory",
            StoreKind::Redis => "redis",
        }
    }
}

/// The Redis side of the comparison: the server, and a store on it.
pub struct Bench {
    server: RedisServer,
    store: RedisTaskStore,
}

impl Bench {
    /// An empty store of `kind`: a new one in memory, or the Redis store
    /// after emptying its server, so that no round weighs on the next.
    pub async fn fresh(&self, kind: StoreKind) -> Arc<dyn TaskStore> {
        match kind {
            StoreKind::Memory => Arc::new(InMemoryTaskStore::new()),
            StoreKind::Redis => {
                self.server.flush().await;
                Arc::new(self.store.clone())
            }
        }
    }

    /// The private Redis server.
    pub fn server(&self) -> &RedisServer {
        &self.server
    }
}

#[tokio::main]
async fn main() {
    let mut figures = Figures::new();
    match RedisServer::start().await {
        None => println!("skipped: install redis-server to measure the Redis task store"),
        Some(server) => {
            let store = RedisTaskStore::builder(server.url())
                .prefix("bench:")
                .build()
                .expect("the private server's URL is a Redis URL");
            let bench = Bench { server, store };
            ops::measure(&bench, &mut figures).await;
            calls::measure(&bench, &mut figures).await;
            footprint::measure(&bench, &mut figures).await;
        }
    }
    figures.emit();
}
