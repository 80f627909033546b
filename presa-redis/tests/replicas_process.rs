//! Replicas as real processes: `jobs http` servers sharing a private
//! `redis-server`, killed with SIGKILL in the middle of a task, and a Redis
//! that goes away and comes back under one of them.
//!
//! `replicas.rs` runs two servers in one process, which
//! can share a task but cannot die. Here a replica is a process of its
//! own, so killing it loses its handlers, its lease renewals and its
//! connections at once, as a crash does, and only the lease is left to
//! end its tasks: the other replica's sweeper must find the lease lapsed
//! and fail them with `-32603`. Each replica runs with `--lease 1`, so a
//! takeover takes about a second; the tests print how long it took.
//!
//! Each test starts a `redis-server` of its own (and is reported ignored
//! where the build found none, unless `PRESA_REQUIRE_REDIS=1`). No
//! test sleeps to let something happen: each polls an observable
//! condition, within [`GUARD`], and every process it started is killed
//! when the test ends, even by a panic.
#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;

use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientError, ClientTransport};
use presa::wire::{DetailedTask, InputResponses, TaskStatus};
use serde_json::{Value, json};

use jobs_example::jobs_binary;
use redis_server::RedisServer;

/// How long a test waits for any one condition before it fails.
const GUARD: Duration = Duration::from_secs(30);

/// How often a test reads a task while it waits for a change.
const POLL: Duration = Duration::from_millis(50);

/// The lease each replica takes on the tasks it runs, in seconds.
const LEASE_SECONDS: &str = "1";

/// A `jobs http` process on a free port, keeping its tasks in a Redis;
/// killed when dropped. What it writes to stderr is kept, so that a test
/// can check that it did not panic.
struct Replica {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Replica {
    /// A replica on the Redis at `store`, once it accepts connections.
    async fn start(store: &str) -> Replica {
        for _ in 0..20 {
            if let Some(replica) = Replica::launch(free_port(), store).await {
                return replica;
            }
        }
        panic!("could not start a jobs replica on a free port");
    }

    /// Spawns the replica on `port` and waits until it accepts
    /// connections; `None` if it exited first (the port was taken).
    async fn launch(port: u16, store: &str) -> Option<Replica> {
        let address = format!("127.0.0.1:{port}");
        let mut child = Command::new(jobs_binary())
            .args(["http", &address, "--store", store, "--lease", LEASE_SECONDS])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the jobs example starts");
        let stderr = keep_reading(child.stderr.take().expect("piped"));
        let mut replica = Replica {
            child,
            url: format!("http://{address}/mcp"),
            stderr,
        };
        let deadline = Instant::now() + GUARD;
        while Instant::now() < deadline {
            if !replica.is_alive() {
                return None;
            }
            if tokio::net::TcpStream::connect(&address).await.is_ok() {
                return Some(replica);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the replica on {address} never accepted a connection");
    }

    /// A tasks client of this replica that confirms every build.
    fn client(&self) -> Client {
        Client::builder()
            .tasks(true)
            .request_timeout(GUARD)
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
            .connect(ClientTransport::http(&self.url).expect("a valid URL"))
    }

    /// Kills the process with SIGKILL, so that it cannot tidy anything up,
    /// and returns when it is gone.
    fn kill(&mut self) -> Instant {
        self.child.kill().expect("the replica can be killed");
        self.child.wait().expect("the replica is reaped");
        Instant::now()
    }

    fn is_alive(&mut self) -> bool {
        self.child
            .try_wait()
            .expect("the replica's state")
            .is_none()
    }

    /// What the process wrote to stderr so far.
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `stream` to its end on a thread of its own, into the string
/// returned.
fn keep_reading(mut stream: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    std::thread::spawn(move || {
        let mut buffer = [0; 4096];
        while let Ok(read @ 1..) = stream.read(&mut buffer) {
            let chunk = String::from_utf8_lossy(&buffer[..read]);
            sink.lock().unwrap().push_str(&chunk);
        }
    });
    text
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Starts `build` of `target` as a task through `client`; `seconds` is how
/// long it works once confirmed. Returns the task id.
async fn start_build(client: &Client, target: &str, seconds: u64) -> String {
    let arguments = json!({"target": target, "seconds": seconds});
    let created = client.call_tool("build", arguments).await.unwrap();
    created
        .task()
        .expect("build runs as a task")
        .id()
        .to_owned()
}

/// Reads task `task` through `client` every [`POLL`] until `wanted` holds
/// of it, and returns that reading.
async fn poll_until(
    client: &Client,
    task: &str,
    wanted: impl Fn(&DetailedTask) -> bool,
) -> DetailedTask {
    let deadline = Instant::now() + GUARD;
    loop {
        let read = client.get_task(task).await.unwrap();
        if wanted(&read) {
            return read;
        }
        assert!(
            Instant::now() < deadline,
            "task {task} never got there; last read: {read:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

fn has_status(status: TaskStatus) -> impl Fn(&DetailedTask) -> bool {
    move |read| read.task.status == status
}

/// The answer that confirms a build.
fn confirmation() -> InputResponses {
    serde_json::from_value(json!({"confirm": {"action": "accept", "content": {"ok": true}}}))
        .unwrap()
}

/// Waits through `survivor` for `task`, whose replica was killed at
/// `killed`, to be failed as an internal error; prints how long that took.
async fn assert_taken_over(survivor: &Client, task: &str, killed: Instant, what: &str) {
    let failed = poll_until(survivor, task, has_status(TaskStatus::Failed)).await;
    let took = killed.elapsed();
    eprintln!("takeover after SIGKILL {what}: {} ms", took.as_millis());
    let error = failed.error.expect("a failed task has its error");
    assert_eq!(error.code, -32603, "{error:?}");
    assert_eq!(error.message, "Internal error");
}

crate::redis_tests!(
    a_task_parked_on_a_killed_replica_is_failed_by_the_other,
    a_task_working_on_a_killed_replica_is_failed_by_the_other,
    a_server_restarted_on_the_same_redis_finds_its_tasks_again,
    a_task_started_on_one_live_replica_is_completed_through_the_other,
    a_replica_rides_out_redis_stopping_and_coming_back_under_load,
);

async fn a_task_parked_on_a_killed_replica_is_failed_by_the_other(redis: RedisServer) {
    let mut a = Replica::start(&redis.url()).await;
    let b = Replica::start(&redis.url()).await;
    let (to_a, to_b) = (a.client(), b.client());

    let task = start_build(&to_a, "all", 0).await;
    poll_until(&to_b, &task, has_status(TaskStatus::InputRequired)).await;
    let killed = a.kill();
    assert_taken_over(&to_b, &task, killed, "while parked").await;
}

async fn a_task_working_on_a_killed_replica_is_failed_by_the_other(redis: RedisServer) {
    let mut a = Replica::start(&redis.url()).await;
    let b = Replica::start(&redis.url()).await;
    let (to_a, to_b) = (a.client(), b.client());

    let task = start_build(&to_a, "all", 600).await;
    poll_until(&to_b, &task, has_status(TaskStatus::InputRequired)).await;
    to_b.update_task(&task, confirmation()).await.unwrap();
    poll_until(&to_b, &task, |read| {
        read.task.status == TaskStatus::Working
            && read.task.status_message.as_deref() == Some("building all")
    })
    .await;
    let killed = a.kill();
    assert_taken_over(&to_b, &task, killed, "while working").await;
}

/// One server, killed and started again on the same Redis, finds its
/// tasks again: a finished one reads as it was, and the one it was running
/// is failed once its lease lapses, by the new process itself.
async fn a_server_restarted_on_the_same_redis_finds_its_tasks_again(redis: RedisServer) {
    let mut first = Replica::start(&redis.url()).await;
    let to_first = first.client();
    let done = start_build(&to_first, "docs", 0).await;
    poll_until(&to_first, &done, has_status(TaskStatus::InputRequired)).await;
    to_first.update_task(&done, confirmation()).await.unwrap();
    poll_until(&to_first, &done, has_status(TaskStatus::Completed)).await;
    let running = start_build(&to_first, "all", 0).await;
    poll_until(&to_first, &running, has_status(TaskStatus::InputRequired)).await;

    let killed = first.kill();
    let again = Replica::start(&redis.url()).await;
    let to_again = again.client();

    let read = to_again.get_task(&done).await.unwrap();
    assert_eq!(read.task.status, TaskStatus::Completed);
    assert_eq!(read.result.unwrap()["content"][0]["text"], "built docs");
    assert_taken_over(&to_again, &running, killed, "and a restart").await;
}

async fn a_task_started_on_one_live_replica_is_completed_through_the_other(redis: RedisServer) {
    let a = Replica::start(&redis.url()).await;
    let b = Replica::start(&redis.url()).await;

    let task = start_build(&a.client(), "web", 0).await;
    let done = b
        .client()
        .await_task(&task, AwaitOptions::default().timeout(GUARD))
        .await
        .unwrap();
    assert_eq!(done.text(), Some("built web"));
}

/// How one call of the load loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// It ran as a task and completed.
    Task,
    /// It ran synchronously: the store could not keep a task.
    Synchronous,
    /// Reading or answering its task failed with `-31002`.
    Unavailable,
    /// Its task was lost with the Redis that stopped (`-32602`).
    Lost,
}

/// A loop of builds through one client, until stopped, keeping how each
/// ended.
struct Load {
    outcomes: Arc<Mutex<Vec<Outcome>>>,
    stop: Arc<AtomicBool>,
    running: tokio::task::JoinHandle<()>,
}

impl Load {
    fn start(client: Client) -> Load {
        let outcomes = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let running = tokio::spawn(build_until(client, outcomes.clone(), stop.clone()));
        Load {
            outcomes,
            stop,
            running,
        }
    }

    /// How many calls so far ended with `outcome`.
    fn count(&self, outcome: Outcome) -> usize {
        let outcomes = self.outcomes.lock().unwrap();
        outcomes.iter().filter(|&&o| o == outcome).count()
    }

    /// Polls until `more` further calls than now ended with `outcome`.
    async fn wait_for(&self, more: usize, outcome: Outcome) {
        let wanted = self.count(outcome) + more;
        let deadline = Instant::now() + GUARD;
        while self.count(outcome) < wanted {
            assert!(
                Instant::now() < deadline,
                "never {wanted} calls ending {outcome:?}: {:?}",
                self.outcomes.lock().unwrap()
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Stops the loop once its current call ends; panics if a call ended
    /// in any other way than an [`Outcome`].
    async fn finish(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.running.await.expect("no call ended unexpectedly");
    }
}

/// Builds again and again through `client` until `stop`, each build
/// confirmed and awaited, pushing how each ended onto `outcomes`.
async fn build_until(client: Client, outcomes: Arc<Mutex<Vec<Outcome>>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        let outcome = build_once(&client).await;
        outcomes.lock().unwrap().push(outcome);
    }
}

async fn build_once(client: &Client) -> Outcome {
    let called = client.call_tool("build", json!({"target": "all"})).await;
    let called = called.expect("build runs, as a task or not");
    let Some(task) = called.task() else {
        assert_eq!(called.text(), Some("built all"));
        return Outcome::Synchronous;
    };
    let awaited = client
        .await_task(task, AwaitOptions::default().timeout(GUARD))
        .await;
    match awaited {
        Ok(done) => {
            assert_eq!(done.text(), Some("built all"));
            Outcome::Task
        }
        Err(e) if e.code() == Some(-31002) => Outcome::Unavailable,
        Err(ClientError::Rpc(e)) if e.code == -32602 && e.message.contains("Task not found") => {
            Outcome::Lost
        }
        Err(e) => panic!("a build ended unexpectedly: {e}"),
    }
}

/// A raw modern request of a tasks client to `url`, as Streamable HTTP
/// carries it.
async fn post(url: &str, id: i64, method: &str, mut params: Value) -> reqwest::Response {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    });
    let name = params["name"].as_str().or(params["taskId"].as_str());
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name.to_owned());
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    request.body(body.to_string()).send().await.unwrap()
}

async fn json_body(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// While Redis is down, a task cannot be read (`503`, `Retry-After: 1`,
/// `-31002`), and `build`, an `optional` tool, runs synchronously.
async fn assert_store_unavailable(url: &str, task: &str) {
    let read = post(url, 1, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(read.status().as_u16(), 503);
    assert_eq!(read.headers()["retry-after"], "1");
    let read = json_body(read).await;
    assert_eq!(read["error"]["code"], -31002, "{read}");

    let arguments = json!({"name": "build", "arguments": {"target": "docs"}});
    let call = json_body(post(url, 2, "tools/call", arguments).await).await;
    assert_eq!(call["result"]["resultType"], "input_required", "{call}");
}

async fn a_replica_rides_out_redis_stopping_and_coming_back_under_load(mut redis: RedisServer) {
    let mut replica = Replica::start(&redis.url()).await;
    let client = replica.client();
    let load = Load::start(client.clone());
    load.wait_for(2, Outcome::Task).await;
    let before = start_build(&client, "docs", 0).await;

    tokio::task::block_in_place(|| redis.stop());
    assert_store_unavailable(&replica.url, &before).await;
    load.wait_for(2, Outcome::Synchronous).await;

    tokio::task::block_in_place(|| redis.restart());
    load.wait_for(2, Outcome::Task).await;
    load.finish().await;

    assert!(
        replica.is_alive(),
        "the replica exited: {}",
        replica.stderr()
    );
    let stderr = replica.stderr();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
