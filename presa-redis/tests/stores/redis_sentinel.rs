//! The Redis store through Sentinel (`redis+sentinel://`): one master,
//! one replica and three sentinels on loopback. The conformance kit
//! passes through the sentinels, and a failover in the middle of work
//! loses no task that was reported created, fails requests only while no
//! master stands, and needs no restart of the store.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use presa::testing::{SharedTaskStore, shared_task_store_suite};
use presa_redis::RedisTaskStore;
use presa_runtime::server::tasks::store::{StoreError, TaskLimits, TaskRecord, TaskStore};

use crate::redis_server::{RedisServer, replies_with};

/// The name the sentinels know the master by.
const MASTER: &str = "mymaster";

/// How long the deployment may take to agree that it is up, and a
/// failover to end.
const SETTLING: Duration = Duration::from_secs(60);

/// A master, its replica, and three sentinels that watch it (a quorum of
/// two), which take a master that stops answering for one second as down.
pub struct RedisSentinels {
    master: RedisServer,
    replica: RedisServer,
    sentinels: Vec<RedisServer>,
    folder: PathBuf,
}

impl RedisSentinels {
    /// The deployment, once the replica follows the master and every
    /// sentinel knows the replica and the two other sentinels.
    pub fn start() -> Self {
        let master = RedisServer::start();
        let replica = RedisServer::start();
        let follow = format!("REPLICAOF 127.0.0.1 {}", master.port());
        assert!(replies_with(replica.port(), &follow, "OK"));
        settle("the replica to follow the master", || {
            replies_with(replica.port(), "INFO replication", "master_link_status:up")
        });
        let folder = std::env::temp_dir().join(format!("presa-redis-sentinels-{}", master.port()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).expect("a folder for the sentinels' files");
        let sentinels: Vec<RedisServer> = (0..3)
            .map(|n| {
                let config = folder.join(format!("sentinel-{n}.conf"));
                std::fs::write(&config, sentinel_config(master.port()))
                    .expect("a sentinel's configuration");
                RedisServer::start_from(Some(config), |_| vec!["--sentinel".into()])
            })
            .collect();
        for sentinel in &sentinels {
            settle("the sentinels to know each other and the replica", || {
                let command = format!("SENTINEL MASTER {MASTER}");
                replies_with(
                    sentinel.port(),
                    &command,
                    "num-other-sentinels\r\n$1\r\n2\r\n",
                ) && replies_with(sentinel.port(), &command, "num-slaves\r\n$1\r\n1\r\n")
            });
        }
        RedisSentinels {
            master,
            replica,
            sentinels,
            folder,
        }
    }

    /// The store's URL: every sentinel, and the master's name.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|sentinel| format!("127.0.0.1:{}", sentinel.port()))
            .collect();
        format!("redis+sentinel://{}/{MASTER}", hosts.join(","))
    }

    /// Whether the sentinels name the replica as the master now.
    fn promoted(&self) -> bool {
        let command = format!("SENTINEL GET-MASTER-ADDR-BY-NAME {MASTER}");
        let replica = self.replica.port().to_string();
        self.sentinels.iter().all(|sentinel| {
            replies_with(
                sentinel.port(),
                &command,
                &format!("${}\r\n{replica}\r\n", replica.len()),
            )
        })
    }
}

impl Drop for RedisSentinels {
    fn drop(&mut self) {
        for sentinel in &mut self.sentinels {
            sentinel.stop();
        }
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A sentinel's configuration, watching the master on `port`.
fn sentinel_config(port: u16) -> String {
    format!(
        "sentinel monitor {MASTER} 127.0.0.1 {port} 2\n\
         sentinel down-after-milliseconds {MASTER} 1000\n\
         sentinel failover-timeout {MASTER} 5000\n"
    )
}

/// Waits until `done`, at most [`SETTLING`].
fn settle(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + SETTLING;
    while !done() {
        assert!(Instant::now() < deadline, "waited too long for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stores through the sentinels, each opened under a prefix of its own.
struct ThroughSentinels {
    deployment: Arc<RedisSentinels>,
    prefix: String,
}

impl SharedTaskStore for ThroughSentinels {
    fn open(&self) -> Arc<dyn TaskStore> {
        let store = RedisTaskStore::builder(self.deployment.url())
            .prefix(self.prefix.clone())
            .build()
            .expect("a valid URL");
        Arc::new(store)
    }
}

crate::redis_tests!(
    on crate::redis_sentinel::RedisSentinels:
    keeps_every_rule_through_sentinel,
    a_master_the_sentinels_do_not_know_is_a_clear_error,
    a_failover_keeps_the_tasks_made_before_and_resumes_by_itself,
    waiting_for_a_replica_loses_no_reported_task_across_a_failover,
    legacy_sessions_are_shared_through_sentinel,
);

async fn legacy_sessions_are_shared_through_sentinel(deployment: RedisSentinels) {
    crate::redis_sessions::two_replicas_share_sessions(&deployment.url(), "sessions:").await;
}

async fn keeps_every_rule_through_sentinel(deployment: RedisSentinels) {
    let deployment = Arc::new(deployment);
    let next = AtomicU32::new(0);
    let fresh = async || ThroughSentinels {
        deployment: Arc::clone(&deployment),
        prefix: format!("rule{}:", next.fetch_add(1, Ordering::Relaxed)),
    };
    shared_task_store_suite(fresh).await;
}

async fn a_master_the_sentinels_do_not_know_is_a_clear_error(deployment: RedisSentinels) {
    let url = deployment.url().replace(MASTER, "nosuchmaster");
    let store = RedisTaskStore::builder(url).build().unwrap();
    assert_eq!(
        store.server(),
        format!(
            "master nosuchmaster of sentinels {}",
            deployment.url()["redis+sentinel://".len()..].trim_end_matches(&format!("/{MASTER}"))
        )
    );
    let Err(StoreError::Backend(message)) = store.connect().await else {
        panic!("connecting to an unknown master fails");
    };
    assert!(
        message.contains("master nosuchmaster of sentinels"),
        "{message}"
    );
}

fn task(id: &str) -> TaskRecord {
    TaskRecord::new(id.into(), None, None, None)
}

/// What a stream of creations saw across a failover.
struct Failover {
    /// The ids reported created.
    created: Vec<String>,
    /// How many creations failed.
    failed: u32,
    /// From the first failure to the first success after it.
    outage: Duration,
}

/// Creates tasks `prefix0`, `prefix1`, … on `store`, kills the master
/// after `before` of them, runs `meanwhile` once the sentinels have
/// promoted the replica, and stops `after` successes after the outage.
/// Every failure must be a backend error (`-31002` to the client).
async fn create_across_a_failover(
    store: &RedisTaskStore,
    deployment: &mut RedisSentinels,
    before: usize,
    after: usize,
    meanwhile: impl FnOnce(&mut RedisSentinels),
) -> Failover {
    let mut created = Vec::new();
    let mut failed = 0;
    let mut first_failure: Option<Instant> = None;
    let mut outage = None;
    let mut meanwhile = Some(meanwhile);
    let mut resumed = 0;
    let deadline = Instant::now() + SETTLING;
    for n in 0.. {
        assert!(Instant::now() < deadline, "work did not resume");
        if n == before {
            deployment.master.stop();
        }
        if first_failure.is_some()
            && deployment.promoted()
            && let Some(meanwhile) = meanwhile.take()
        {
            meanwhile(deployment);
        }
        let id = format!("t{n}");
        match store.create(task(&id), &TaskLimits::default()).await {
            Ok(()) => {
                created.push(id);
                if let Some(since) = first_failure {
                    outage.get_or_insert_with(|| since.elapsed());
                    resumed += 1;
                    if resumed == after {
                        break;
                    }
                }
            }
            Err(StoreError::Backend(message)) => {
                assert!(message.contains("sentinels"), "{message}");
                assert!(
                    n >= before,
                    "a creation failed before the failover: {message}"
                );
                failed += 1;
                first_failure.get_or_insert_with(Instant::now);
                tokio::task::yield_now().await;
            }
            Err(other) => panic!("a creation failed other than as the backend's: {other:?}"),
        }
    }
    Failover {
        created,
        failed,
        outage: outage.expect("an outage"),
    }
}

/// Every id in `created` is readable through `store`.
async fn all_kept(store: &RedisTaskStore, created: &[String]) {
    for id in created {
        assert!(store.get(id).await.unwrap().is_some(), "{id} was lost");
    }
}

/// Without waiting for replicas (the default): the tasks made, and
/// replicated, before the master died are all there after the failover,
/// and creations work again once the replica is promoted, on the same
/// store.
async fn a_failover_keeps_the_tasks_made_before_and_resumes_by_itself(
    mut deployment: RedisSentinels,
) {
    let store = RedisTaskStore::builder(deployment.url()).build().unwrap();
    store.connect().await.unwrap();
    let before = 20;
    for n in 0..before {
        store
            .create(task(&format!("t{n}")), &TaskLimits::default())
            .await
            .unwrap();
    }
    // Replication is asynchronous: let the replica catch up before the
    // master dies, so that "made before" means "on the replica too".
    let caught_up = format!("WAIT 1 {}", SETTLING.as_millis());
    assert!(replies_with(deployment.master.port(), &caught_up, ":1\r\n"));
    let failover = create_across_a_failover(&store, &mut deployment, before, 10, |_| {}).await;
    all_kept(&store, &failover.created).await;
    eprintln!(
        "failover without waiting for replicas: creations failed for {} ms ({} failed), \
         {} tasks reported created, all kept",
        failover.outage.as_millis(),
        failover.failed,
        failover.created.len()
    );
}

/// With `wait_for_replicas(1, …)`, no task reported created is lost when
/// the master dies in the middle of the creations. The new master has no
/// replica until the old one comes back (empty, on its port) and the
/// sentinels make it one; until then creations are refused, not
/// reported done.
async fn waiting_for_a_replica_loses_no_reported_task_across_a_failover(
    mut deployment: RedisSentinels,
) {
    let store = RedisTaskStore::builder(deployment.url())
        .wait_for_replicas(1, Duration::from_secs(1))
        .build()
        .unwrap();
    store.connect().await.unwrap();
    let failover = create_across_a_failover(&store, &mut deployment, 30, 10, |deployment| {
        deployment.master.restart()
    })
    .await;
    all_kept(&store, &failover.created).await;
    eprintln!(
        "failover waiting for one replica: creations failed for {} ms ({} failed), \
         {} tasks reported created, all kept",
        failover.outage.as_millis(),
        failover.failed,
        failover.created.len()
    );
}
