//! [`RedisSessionStore`] on one `redis-server`: each method's rule, two
//! replicas (two task stores with connections of their own) sharing
//! records and messages, and Redis going away and coming back. The same
//! sharing runs on a Cluster (`redis_cluster`) and through Sentinel
//! (`redis_sentinel`), with [`two_replicas_share_sessions`].

use std::collections::BTreeSet;
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use presa_redis::{RedisSessionStore, RedisTaskStore};
use presa_runtime::server::http::{
    LISTENER_BACKLOG, LegacySessionStore, SessionRecord, SessionStoreError,
};
use presa_runtime::wire::{ClientCapabilities, Implementation, LoggingLevel};
use tokio::time::timeout;

use crate::redis_server::RedisServer;

/// Long enough that no test sees it pass.
const IDLE: Duration = Duration::from_secs(3600);

/// The longest a test waits for something that should happen.
const PATIENCE: Duration = Duration::from_secs(10);

/// A replica's session store: a task store of its own, with its own
/// connections, on `url` under `prefix`.
pub fn replica(url: &str, prefix: &str) -> RedisSessionStore {
    RedisTaskStore::builder(url)
        .prefix(prefix)
        .build()
        .expect("a valid URL")
        .session_store()
}

pub fn record(id: &str) -> SessionRecord {
    SessionRecord {
        id: id.into(),
        principal: Some("alice".into()),
        protocol_version: "2025-11-25".into(),
        client_capabilities: ClientCapabilities::default(),
        client_info: Implementation::new("client", "1.0"),
        log_level: None,
        subscriptions: BTreeSet::from(["file:///a".to_owned()]),
        version: 0,
    }
}

/// `record` one change on: what a replica writes over version `read`.
fn changed(mut record: SessionRecord, level: LoggingLevel) -> SessionRecord {
    record.log_level = Some(level);
    record.version += 1;
    record
}

/// Two replicas on `url` and `prefix` see each other's records, changes,
/// removals and messages: what the Cluster and Sentinel tests run too.
pub async fn two_replicas_share_sessions(url: &str, prefix: &str) {
    let one = replica(url, prefix);
    let two = replica(url, prefix);

    one.create(&record("s"), IDLE).await.unwrap();
    assert_eq!(two.touch("s", IDLE).await.unwrap(), Some(record("s")));
    let newer = changed(record("s"), LoggingLevel::Debug);
    assert!(two.replace(&newer, 0, IDLE).await.unwrap());
    assert_eq!(one.touch("s", IDLE).await.unwrap(), Some(newer));

    assert_eq!(one.publish("c", b"nobody".to_vec()).await.unwrap(), 0);
    let mut heard = two.listen("c").await.unwrap();
    assert_eq!(one.publish("c", b"hello".to_vec()).await.unwrap(), 1);
    let message = timeout(PATIENCE, heard.next()).await.expect("in time");
    assert_eq!(message.as_deref(), Some(&b"hello"[..]));

    assert!(one.remove("s").await.unwrap());
    assert_eq!(two.touch("s", IDLE).await.unwrap(), None);
    assert!(!two.remove("s").await.unwrap());
}

/// Raw commands to the server, to see what the store left in it.
async fn redis(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

async fn ttl_ms(server: &RedisServer, id: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(format!("{{test:}}session:{id}"))
        .query_async(&mut redis(server).await)
        .await
        .unwrap()
}

/// Waits until `publish` on `store` counts `replicas`, at most
/// [`PATIENCE`]: for what Redis does after a call returned (an
/// unsubscribe, a reconnection).
async fn until_counted(store: &RedisSessionStore, channel: &str, replicas: usize) {
    let counted = async {
        loop {
            if let Ok(count) = store.publish(channel, b"probe".to_vec()).await
                && count == replicas
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(PATIENCE, counted)
        .await
        .unwrap_or_else(|_| panic!("publish never counted {replicas}"));
}

crate::redis_tests!(
    each_method_keeps_its_rule,
    two_replicas_share_records_and_messages,
    records_expire_when_idle_on_the_redis_clock,
    a_replace_over_a_version_that_moved_is_refused,
    listeners_share_a_subscription_until_the_last_is_dropped,
    a_listener_that_stops_reading_misses_messages_past_its_backlog,
    channels_are_subscribed_again_once_redis_is_back,
    an_unreachable_redis_is_a_clear_error_without_credentials,
    a_record_that_does_not_parse_is_an_error,
    prefixes_keep_sessions_apart,
);

async fn each_method_keeps_its_rule(server: RedisServer) {
    let store = replica(&server.url(), "test:");
    assert_eq!(store.touch("s", IDLE).await.unwrap(), None);
    store.create(&record("s"), IDLE).await.unwrap();
    assert_eq!(store.touch("s", IDLE).await.unwrap(), Some(record("s")));
    let newer = changed(record("s"), LoggingLevel::Info);
    assert!(store.replace(&newer, 0, IDLE).await.unwrap());
    assert_eq!(store.touch("s", IDLE).await.unwrap(), Some(newer));
    assert!(store.remove("s").await.unwrap());
    assert!(!store.remove("s").await.unwrap());
    assert!(!store.replace(&record("s"), 1, IDLE).await.unwrap());
    assert_eq!(store.touch("s", IDLE).await.unwrap(), None);
    // An idle time past what Redis takes is kept as the longest it takes.
    store.create(&record("long"), Duration::MAX).await.unwrap();
    assert!(store.touch("long", Duration::MAX).await.unwrap().is_some());
}

async fn two_replicas_share_records_and_messages(server: RedisServer) {
    two_replicas_share_sessions(&server.url(), "test:").await;
}

async fn records_expire_when_idle_on_the_redis_clock(server: RedisServer) {
    let store = replica(&server.url(), "test:");
    store.create(&record("s"), IDLE).await.unwrap();
    let set = ttl_ms(&server, "s").await;
    assert!(set > 0 && set <= 3_600_000, "{set}");
    // A touch and a replace start the idle time again, with theirs.
    store.touch("s", IDLE * 2).await.unwrap().unwrap();
    assert!(ttl_ms(&server, "s").await > 3_600_000);
    let newer = changed(record("s"), LoggingLevel::Info);
    assert!(store.replace(&newer, 0, IDLE * 3).await.unwrap());
    assert!(ttl_ms(&server, "s").await > 7_200_000);

    store
        .create(&record("brief"), Duration::from_millis(50))
        .await
        .unwrap();
    // Looking at the key without touching it, which would keep it.
    let expired = async {
        while ttl_ms(&server, "brief").await != -2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(PATIENCE, expired).await.expect("it expired");
    assert_eq!(store.touch("brief", IDLE).await.unwrap(), None);
}

async fn a_replace_over_a_version_that_moved_is_refused(server: RedisServer) {
    let one = replica(&server.url(), "test:");
    let two = replica(&server.url(), "test:");
    one.create(&record("s"), IDLE).await.unwrap();
    // Both read version 0; the first to write wins.
    let read_one = one.touch("s", IDLE).await.unwrap().unwrap();
    let read_two = two.touch("s", IDLE).await.unwrap().unwrap();
    let by_one = changed(read_one, LoggingLevel::Debug);
    let by_two = changed(read_two, LoggingLevel::Error);
    assert!(one.replace(&by_one, 0, IDLE).await.unwrap());
    assert!(!two.replace(&by_two, 0, IDLE).await.unwrap());
    assert_eq!(two.touch("s", IDLE).await.unwrap(), Some(by_one.clone()));
    // Read again, the second writes over version 1.
    let by_two = changed(by_one, LoggingLevel::Error);
    assert!(two.replace(&by_two, 1, IDLE).await.unwrap());
    assert_eq!(one.touch("s", IDLE).await.unwrap().unwrap().version, 2);
}

async fn listeners_share_a_subscription_until_the_last_is_dropped(server: RedisServer) {
    let here = replica(&server.url(), "test:");
    let there = replica(&server.url(), "test:");
    let mut first = here.listen("c").await.unwrap();
    let mut second = here.listen("c").await.unwrap();
    // Redis counts the replica once, however many listen in it.
    assert_eq!(there.publish("c", b"one".to_vec()).await.unwrap(), 1);
    for listener in [&mut first, &mut second] {
        let heard = timeout(PATIENCE, listener.next()).await.expect("in time");
        assert_eq!(heard.as_deref(), Some(&b"one"[..]));
    }
    // The first leaving keeps the subscription of the second.
    drop(first);
    assert_eq!(there.publish("c", b"two".to_vec()).await.unwrap(), 1);
    let heard = timeout(PATIENCE, second.next()).await.expect("in time");
    assert_eq!(heard.as_deref(), Some(&b"two"[..]));
    // The last leaving ends it.
    drop(second);
    until_counted(&there, "c", 0).await;
}

async fn a_listener_that_stops_reading_misses_messages_past_its_backlog(server: RedisServer) {
    let here = replica(&server.url(), "test:");
    let there = replica(&server.url(), "test:");
    let mut slow = here.listen("c").await.unwrap();
    let mut reader = here.listen("c").await.unwrap();
    let sent = LISTENER_BACKLOG + 10;
    for n in 0..sent {
        assert_eq!(
            there
                .publish("c", n.to_string().into_bytes())
                .await
                .unwrap(),
            1
        );
        // The reader keeps up, so it holds none of the backlog.
        let heard = timeout(PATIENCE, reader.next()).await.expect("in time");
        assert_eq!(heard, Some(n.to_string().into_bytes()));
    }
    // Once the reader has `end`, every message before it reached both
    // listeners: the slow one holds the first LISTENER_BACKLOG, and
    // missed the ten after (and `end`, unless it arrives as it drains).
    assert_eq!(there.publish("c", b"end".to_vec()).await.unwrap(), 1);
    let heard = timeout(PATIENCE, reader.next()).await.expect("in time");
    assert_eq!(heard.as_deref(), Some(&b"end"[..]));
    for n in 0..LISTENER_BACKLOG {
        assert_eq!(slow.next().await, Some(n.to_string().into_bytes()));
    }
    match slow.next().now_or_never() {
        None => {}
        Some(Some(last)) => assert_eq!(last, b"end", "a message past the backlog was kept"),
        Some(None) => panic!("the listener ended"),
    }
}

async fn channels_are_subscribed_again_once_redis_is_back(mut server: RedisServer) {
    let here = replica(&server.url(), "test:");
    let there = replica(&server.url(), "test:");
    let mut listener = here.listen("c").await.unwrap();
    server.restart();
    until_counted(&there, "c", 1).await;
    // The probes reached the listener too; then what is published now.
    assert_eq!(there.publish("c", b"back".to_vec()).await.unwrap(), 1);
    let back = async {
        while let Some(message) = listener.next().await {
            if message == b"back" {
                return;
            }
            assert_eq!(message, b"probe");
        }
        panic!("the listener ended");
    };
    timeout(PATIENCE, back).await.expect("in time");
}

fn failure<T: std::fmt::Debug>(result: Result<T, SessionStoreError>) -> String {
    result.expect_err("Redis is down").to_string()
}

async fn an_unreachable_redis_is_a_clear_error_without_credentials(mut server: RedisServer) {
    let port = server.port();
    server.stop();
    let store = replica(&format!("redis://user:secret@127.0.0.1:{port}/"), "test:");
    let newer = changed(record("s"), LoggingLevel::Info);
    let messages = [
        failure(store.create(&record("s"), IDLE).await),
        failure(store.touch("s", IDLE).await),
        failure(store.replace(&newer, 0, IDLE).await),
        failure(store.remove("s").await),
        failure(store.publish("c", b"m".to_vec()).await),
        failure(store.listen("c").await.map(|_| ())),
    ];
    for message in messages {
        assert!(message.contains("unreachable"), "{message}");
        assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
        assert!(!message.contains("secret"), "{message}");
    }
}

async fn a_record_that_does_not_parse_is_an_error(server: RedisServer) {
    let store = replica(&server.url(), "test:");
    let id = "secret-session-id";
    let _: () = redis::cmd("SET")
        .arg(format!("{{test:}}session:{id}"))
        .arg("not json")
        .query_async(&mut redis(&server).await)
        .await
        .unwrap();
    let message = failure(store.touch(id, IDLE).await);
    assert!(message.contains("does not parse"), "{message}");
    assert!(!message.contains(id), "{message}");
    let newer = changed(record(id), LoggingLevel::Info);
    failure(store.replace(&newer, 0, IDLE).await);
}

async fn prefixes_keep_sessions_apart(server: RedisServer) {
    let mine = replica(&server.url(), "test:");
    let theirs = replica(&server.url(), "other:");
    mine.create(&record("s"), IDLE).await.unwrap();
    assert_eq!(theirs.touch("s", IDLE).await.unwrap(), None);
    let _listening = mine.listen("c").await.unwrap();
    assert_eq!(theirs.publish("c", b"m".to_vec()).await.unwrap(), 0);
    assert_eq!(mine.publish("c", b"m".to_vec()).await.unwrap(), 1);
}
