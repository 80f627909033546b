//! The conformance kit against [`RedisTaskStore`] on a Redis Cluster of
//! three primaries on loopback: the same rules as against one server,
//! with every script on the slot of its store's hash tag.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use presa::testing::{SharedTaskStore, shared_task_store_suite};
use presa_redis::RedisTaskStore;
use presa_runtime::server::tasks::store::{TaskLimits, TaskRecord, TaskStore};

use crate::redis_server::{RedisServer, replies_with};

/// How long a new cluster may take to agree that it is up.
const FORMING: Duration = Duration::from_secs(30);

/// Three `redis-server`s in cluster mode, their slots shared out.
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// A cluster of three primaries, once every node says it is `ok`.
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..3).map(|_| RedisServer::start_with(node)).collect();
        let addresses: Vec<String> = nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port()))
            .collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .arg("--cluster-yes")
            .output()
            .expect("redis-cli (Debian's redis-tools, beside redis-server) starts");
        assert!(
            created.status.success(),
            "redis-cli --cluster create failed: {}",
            String::from_utf8_lossy(&created.stdout)
        );
        let deadline = Instant::now() + FORMING;
        for node in &nodes {
            while !replies_with(node.port(), "CLUSTER INFO", "cluster_state:ok") {
                assert!(
                    Instant::now() < deadline,
                    "the cluster did not form in time"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        RedisCluster { nodes }
    }

    /// The URL of its first node.
    pub fn url(&self) -> String {
        self.nodes[0].url()
    }
}

/// A cluster node's arguments: its state file in the system's temporary
/// folder, named by its port, removed at the start.
fn node(port: u16) -> Vec<String> {
    let file = std::env::temp_dir().join(format!("presa-redis-cluster-{port}.conf"));
    let _ = std::fs::remove_file(&file);
    vec![
        "--cluster-enabled".into(),
        "yes".into(),
        "--cluster-config-file".into(),
        file.display().to_string(),
    ]
}

/// Stores on one cluster, each opened under a prefix of its own: a fresh
/// store is a fresh prefix, and so a fresh slot, maybe on another shard.
struct Cluster {
    cluster: Arc<RedisCluster>,
    prefix: String,
}

impl SharedTaskStore for Cluster {
    fn open(&self) -> Arc<dyn TaskStore> {
        let store = RedisTaskStore::builder(self.cluster.url())
            .prefix(self.prefix.clone())
            .build()
            .expect("a valid URL");
        Arc::new(store)
    }
}

crate::redis_tests!(
    on crate::redis_cluster::RedisCluster:
    keeps_every_rule_on_a_cluster,
    stores_of_several_prefixes_live_on_several_shards,
    legacy_sessions_are_shared_on_every_shard,
);

/// Replicas share legacy sessions and their channels under prefixes whose
/// slots are on different nodes: `PUBLISH` counts the subscriber wherever
/// the slot is, since both go to its node.
async fn legacy_sessions_are_shared_on_every_shard(cluster: RedisCluster) {
    for n in 0..6 {
        let prefix = format!("sessions{n}:");
        crate::redis_sessions::two_replicas_share_sessions(&cluster.url(), &prefix).await;
    }
}

async fn keeps_every_rule_on_a_cluster(cluster: RedisCluster) {
    let cluster = Arc::new(cluster);
    let next = AtomicU32::new(0);
    let fresh = async || Cluster {
        cluster: Arc::clone(&cluster),
        prefix: format!("rule{}:", next.fetch_add(1, Ordering::Relaxed)),
    };
    shared_task_store_suite(fresh).await;
}

/// Each of several prefixes works, wherever its slot is, and the
/// prefixes spread over more than one node.
async fn stores_of_several_prefixes_live_on_several_shards(cluster: RedisCluster) {
    let prefixes: Vec<String> = (0..12).map(|n| format!("app{n}:")).collect();
    for prefix in &prefixes {
        let store = RedisTaskStore::builder(cluster.url())
            .prefix(prefix.clone())
            .build()
            .unwrap();
        let task = TaskRecord::new("t".into(), None, None, None);
        store.create(task, &TaskLimits::default()).await.unwrap();
        assert!(store.get("t").await.unwrap().is_some(), "{prefix}");
        assert_eq!(store.count().await, Ok(1), "{prefix}");
    }
    let holding = cluster
        .nodes
        .iter()
        .filter(|node| {
            replies_with(node.port(), "DBSIZE", ":")
                && !replies_with(node.port(), "DBSIZE", ":0\r\n")
        })
        .count();
    assert!(holding > 1, "twelve prefixes all landed on one node");
}
