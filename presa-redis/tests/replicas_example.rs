//! The `replicas` example of presa, run as the process a user runs: on a
//! `redis-server` of the test's own, its task is started through one
//! replica and finished through the other; with no Redis at its URL, it
//! says so and exits with status 1.
//!
//! The first test is reported ignored where the build found no
//! `redis-server` (presa-redis/build.rs), unless `PRESA_REQUIRE_REDIS=1`
//! (CI), where it must run. Nothing waits on time: each test waits for the
//! example to exit, within [`GUARD`].

#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;

use std::net::TcpListener;
use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::process::Command;

use redis_server::RedisServer;

/// How long the example may run before the test fails.
const GUARD: Duration = Duration::from_secs(60);

/// Runs the `replicas` example against the Redis at `url`.
async fn run_replicas(url: &str) -> Output {
    let child = Command::new(jobs_example::example_binary("replicas"))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the replicas example starts");
    tokio::time::timeout(GUARD, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the replicas example still runs after {GUARD:?}"))
        .unwrap()
}

crate::redis_tests!(a_task_started_on_one_replica_is_finished_through_the_other);

async fn a_task_started_on_one_replica_is_finished_through_the_other(redis: RedisServer) {
    let output = run_replicas(&redis.url()).await;
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 6, "{printed}");
    assert!(lines[0].starts_with("replica a serves http://127.0.0.1:"));
    assert!(lines[1].starts_with("replica b serves http://127.0.0.1:"));
    assert!(lines[2].starts_with("started task ") && lines[2].ends_with(" through a"));
    assert_eq!(
        lines[3],
        r#"b reads it: input_required, asking for ["confirm"]"#
    );
    assert_eq!(lines[4], "answered through b");
    assert_eq!(lines[5], "completed, read through b: built all on a");
}

#[tokio::test]
async fn without_redis_the_example_says_so_and_fails() {
    // A port just freed: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let output = run_replicas(&format!("redis://127.0.0.1:{port}/")).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.starts_with(&format!(
            "replicas: no Redis is reachable at redis://127.0.0.1:{port}/"
        )),
        "{said}"
    );
}
