//! Two `jobs` replicas sharing their 2025-11-25 sessions through one
//! Redis, behind HAProxy balancing round robin with no affinity, driven by
//! the hosts people run: the TypeScript SDK 1.x client
//! (`tests/interop/ts_replicas.mjs`) and the MCP Inspector's CLI.
//!
//! Each test starts its own deployment and stops it when it ends, even by
//! a panic:
//!
//! 1. a `redis-server` on a free port, keeping nothing on disk;
//! 2. two `jobs http 127.0.0.1:0 --store redis://…` processes, `r1` and
//!    `r2`, each ready once it prints its address on stderr;
//! 3. HAProxy, on a socket this test binds and hands it as its stdin
//!    (`bind fd@0`), so it needs no wait before its first request. Its
//!    configuration ([`haproxy_config`]) sends each request to the next
//!    replica in turn, and names the replica in an `X-Replica` response
//!    header, which the SDK client records: that is the proof that a
//!    session's requests reached both replicas.
//!
//! The tests:
//!
//! - [`a_legacy_session_is_served_by_either_replica`]: `initialize`, a
//!   subscription to `jobs://builds/latest`, a `build` whose question is
//!   answered through the other replica, the update notification of a
//!   build that the other replica than the GET stream's ran, a build as
//!   a task, and `DELETE`, after which both replicas answer 404.
//! - [`a_replica_killed_between_requests_leaves_the_session_to_the_other`]:
//!   the replica that holds the GET stream is killed with SIGKILL while a
//!   build runs on it. The call must fail with the server's error when
//!   the client resumes its stream on the replica left, not hang until the
//!   client's timeout. The next requests must succeed through the replica
//!   left, where the client's GET stream opens again and gets the next
//!   update. The test prints what the SDK saw.
//! - [`the_inspector_lists_and_calls_tools_through_the_proxy`].
//!
//! They need `PRESA_INTEROP_NODE` (Node 22), `PRESA_INTEROP_TS_SDK` (the
//! `@modelcontextprotocol/sdk` 1.x package folder), `PRESA_INSPECTOR`
//! (the Inspector's launcher script), `haproxy` and `redis-server`;
//! `scripts/replicas.sh` provides them all. Without them a test says so
//! and passes without running, unless `PRESA_REPLICAS=1` is set (as the
//! script and CI set it), when it fails.
//!
//! Nothing here sleeps to let something happen. Each wait is for a line
//! a process prints, a response or a notification, bounded by
//! [`PATIENCE`] so that a fault fails the test instead of hanging it.
#![cfg(all(unix, feature = "http-server"))]

#[allow(dead_code)]
#[path = "../presa-redis/tests/stores/redis_server.rs"]
mod redis_server;

#[path = "common/jobs_example.rs"]
mod jobs_example;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use jobs_example::jobs_binary;
use redis_server::RedisServer;

/// The upper bound of any one wait for something that should come soon.
const PATIENCE: Duration = Duration::from_secs(60);

/// What a replica prints on stderr once it listens, before its URL.
const READY: &str = "serving the jobs server at ";

// ---------------------------------------------------------------------
// What the tests need

/// The programs the tests run, found in the environment.
struct Setup {
    node: PathBuf,
    sdk: PathBuf,
    inspector: PathBuf,
    haproxy: PathBuf,
}

/// The setup, or `None` (and a note) when it is incomplete and
/// `PRESA_REPLICAS` is not `1`. With `PRESA_REPLICAS=1`, an incomplete
/// setup fails the test, naming what is missing.
fn setup() -> Option<Setup> {
    let from_env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let node = from_env("PRESA_INTEROP_NODE");
    let sdk = from_env("PRESA_INTEROP_TS_SDK");
    let inspector = from_env("PRESA_INSPECTOR");
    let haproxy = on_path("haproxy");
    let redis = on_path("redis-server");
    let mut missing = Vec::new();
    for (found, what) in [
        (node.is_some(), "PRESA_INTEROP_NODE (a Node 22 binary)"),
        (
            sdk.is_some(),
            "PRESA_INTEROP_TS_SDK (the TypeScript SDK's folder)",
        ),
        (
            inspector.is_some(),
            "PRESA_INSPECTOR (the Inspector's launcher)",
        ),
        (haproxy.is_some(), "haproxy (apt-get install haproxy)"),
        (
            redis.is_some(),
            "redis-server (apt-get install redis-server)",
        ),
    ] {
        if !found {
            missing.push(what);
        }
    }
    if missing.is_empty() {
        return Some(Setup {
            node: node?,
            sdk: sdk?,
            inspector: inspector?,
            haproxy: haproxy?,
        });
    }
    let missing = missing.join(", ");
    if std::env::var_os("PRESA_REPLICAS").is_some_and(|v| v == "1") {
        panic!("PRESA_REPLICAS=1, but this is missing: {missing}");
    }
    eprintln!("note: not run, for want of {missing}; run scripts/replicas.sh");
    None
}

/// Program `name` on `PATH`, or in the `sbin` folders where Debian puts
/// HAProxy and which a user's `PATH` often lacks.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|folder| folder.join(name))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------
// The deployment

/// A `jobs http` process keeping its tasks and sessions in a Redis;
/// killed when dropped.
struct Replica {
    name: &'static str,
    child: Child,
    /// Its own URL, not the proxy's.
    url: String,
    address: String,
    stderr: Arc<Mutex<String>>,
}

impl Replica {
    /// Starts replica `name` on the Redis at `store`, and returns once it
    /// printed the address it listens on.
    fn start(name: &'static str, store: &str) -> Replica {
        let mut child = Command::new(jobs_binary())
            .args(["http", "127.0.0.1:0", "--store", store])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the jobs example starts");
        let (ready, listening) = mpsc::channel();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let lines = BufReader::new(child.stderr.take().expect("piped")).lines();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Some(url) = line.strip_prefix(READY) {
                    let _ = ready.send(url.to_owned());
                }
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let url = listening.recv_timeout(PATIENCE).unwrap_or_else(|_| {
            let status = child.try_wait();
            panic!(
                "replica {name} did not say where it listens ({status:?}):\n{}",
                stderr.lock().unwrap()
            )
        });
        let address = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("replica {name} printed an odd URL: {url}"))
            .to_owned();
        Replica {
            name,
            child,
            url,
            address,
            stderr,
        }
    }

    /// Kills the process with SIGKILL, as a crash would end it, and
    /// returns once it is gone.
    fn kill(&mut self) {
        self.child.kill().expect("the replica can be killed");
        self.child.wait().expect("the replica is reaped");
    }

    /// Fails if the process panicked.
    fn assert_sound(&self) {
        let stderr = self.stderr.lock().unwrap();
        assert!(
            !stderr.contains("panicked"),
            "replica {} panicked:\n{stderr}",
            self.name
        );
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// HAProxy in front of the replicas: round robin, no affinity, and every
/// request on its own connection to a replica. What it does when a
/// replica dies:
///
/// - `retries 3`, `retry-on conn-failure empty-response` and `option
///   redispatch 1`: a request whose connection to a replica fails before
///   any of it was sent (a dead replica refuses the connection) is sent
///   again, to the next replica, at once. So no request fails for a
///   replica that is already dead.
/// - `check inter 500ms fall 1`: a replica that refuses the health check
///   is taken out until it answers again, so requests stop trying it.
/// - A request that a replica was serving when it died cannot be sent
///   again: part of its answer may have gone. HAProxy ends the client's
///   response there, and the client sees its stream break.
///
/// `option http-no-delay` sends each part of a response as it comes.
/// Without it, HAProxy 2.6 on a plain-HTTP frontend (as here; not one
/// that ends TLS) holds the head of every event-stream response for about
/// 200 ms, waiting for more to send with it: each legacy call would take
/// that much longer. Timeouts are long, so that an event stream
/// that is quiet for a while (presa writes a comment every 15 seconds)
/// stays open.
fn haproxy_config(replicas: &[&Replica]) -> String {
    let servers: String = replicas
        .iter()
        .map(|r| {
            format!(
                "    server {} {} check inter 500ms fall 1 rise 1\n",
                r.name, r.address
            )
        })
        .collect();
    format!(
        "global\n\
         \x20   log stderr format short local0 info\n\
         defaults\n\
         \x20   mode http\n\
         \x20   log global\n\
         \x20   option httplog\n\
         \x20   option http-server-close\n\
         \x20   option http-no-delay\n\
         \x20   option redispatch 1\n\
         \x20   retries 3\n\
         \x20   retry-on conn-failure empty-response\n\
         \x20   timeout connect 2s\n\
         \x20   timeout client 10m\n\
         \x20   timeout server 10m\n\
         \x20   timeout http-request 10s\n\
         frontend mcp\n\
         \x20   bind fd@0\n\
         \x20   default_backend replicas\n\
         backend replicas\n\
         \x20   balance roundrobin\n\
         \x20   http-response set-header X-Replica %[srv_name]\n\
         {servers}"
    )
}

/// HAProxy, killed when dropped; its log (one line per request, naming
/// the replica) is kept in a folder of its own.
struct Proxy {
    child: Child,
    url: String,
    folder: PathBuf,
}

impl Proxy {
    /// Starts HAProxy in front of `replicas`, on a socket bound here: it
    /// accepts connections as soon as this returns.
    fn start(haproxy: &Path, replicas: &[&Replica]) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the proxy");
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let folder = std::env::temp_dir().join(format!(
            "presa-replicas-proxy-{}-{}",
            std::process::id(),
            listener.local_addr().unwrap().port()
        ));
        std::fs::create_dir_all(&folder).unwrap();
        let config = folder.join("haproxy.cfg");
        std::fs::write(&config, haproxy_config(replicas)).unwrap();
        let log = std::fs::File::create(folder.join("haproxy.log")).unwrap();
        let child = Command::new(haproxy)
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .stdin(Stdio::from(OwnedFd::from(listener)))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", haproxy.display()));
        Proxy { child, url, folder }
    }

    /// What HAProxy logged so far.
    fn log(&self) -> String {
        std::fs::read_to_string(self.folder.join("haproxy.log")).unwrap_or_default()
    }

    /// The replicas HAProxy's log names as having served a request.
    fn served_by(&self) -> BTreeSet<String> {
        self.log()
            .lines()
            .filter_map(|line| line.split(" replicas/").nth(1))
            .filter_map(|rest| rest.split_whitespace().next())
            .filter(|name| !name.starts_with('<'))
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A Redis, two replicas on it and HAProxy in front. Fields drop in
/// order: the proxy first, the Redis last.
struct Deployment {
    proxy: Proxy,
    replicas: Vec<Replica>,
    _redis: RedisServer,
}

impl Deployment {
    fn start(setup: &Setup) -> Deployment {
        let redis = RedisServer::start();
        let replicas = vec![
            Replica::start("r1", &redis.url()),
            Replica::start("r2", &redis.url()),
        ];
        let proxy = Proxy::start(&setup.haproxy, &replicas.iter().collect::<Vec<_>>());
        Deployment {
            proxy,
            replicas,
            _redis: redis,
        }
    }

    fn replica(&mut self, name: &str) -> &mut Replica {
        self.replicas
            .iter_mut()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no replica named {name}"))
    }

    fn assert_sound(&self) {
        for replica in &self.replicas {
            replica.assert_sound();
        }
    }
}

// ---------------------------------------------------------------------
// The host

/// `tests/interop/ts_replicas.mjs` running phase `phase` through the
/// proxy; killed when dropped.
struct Host {
    child: tokio::process::Child,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    stderr: Arc<Mutex<String>>,
}

impl Host {
    fn start(setup: &Setup, deployment: &Deployment, phase: &str) -> Host {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/ts_replicas.mjs");
        let mut child = tokio::process::Command::new(&setup.node)
            .arg(script)
            .arg(&deployment.proxy.url)
            .arg(phase)
            .args(deployment.replicas.iter().map(|r| &r.url))
            .env("MCP_TS_SDK", &setup.sdk)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let mut err_lines = tokio::io::BufReader::new(child.stderr.take().expect("piped")).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = err_lines.next_line().await {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        Host {
            child,
            lines: tokio::io::BufReader::new(stdout).lines(),
            stderr,
        }
    }

    /// The next JSON line the host prints, which must be event `event`.
    async fn next(&mut self, event: &str) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("the host printed no {event} within {PATIENCE:?}"))
            .expect("the host's stdout reads");
        let Some(line) = line else {
            let status = tokio::time::timeout(PATIENCE, self.child.wait()).await;
            panic!(
                "the host ended ({status:?}) before {event}:\n{}",
                self.stderr.lock().unwrap()
            );
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the host printed {line:?}, not JSON: {e}"));
        assert_eq!(message["event"], event, "{message}");
        message
    }

    /// Tells the host to go on after a `kill` event.
    async fn go_on(&mut self) {
        let stdin = self.child.stdin.as_mut().expect("piped");
        stdin.write_all(b"go on\n").await.unwrap();
        stdin.flush().await.unwrap();
    }
}

/// The replicas named in `report[key]`, a list of names.
fn names(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap_or("?").to_owned())
        .collect()
}

// ---------------------------------------------------------------------
// The tests

#[tokio::test]
async fn a_legacy_session_is_served_by_either_replica() {
    let Some(setup) = setup() else {
        return;
    };
    let deployment = Deployment::start(&setup);
    let mut host = Host::start(&setup, &deployment, "shared");
    let report = host.next("report").await;
    eprintln!("what the host saw: {report}");

    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(report["tools"], json!(["build"]), "{report}");

    // A question one replica asked was answered through the other.
    let builds = report["builds"].as_array().expect("builds");
    assert!(
        builds.iter().all(|b| b["answerStatus"] == 202),
        "every answer is accepted: {report}"
    );
    assert!(
        builds.iter().any(|b| b["call"] != b["answer"]),
        "no answer reached the other replica than its call's: {report}"
    );
    for (n, b) in builds.iter().enumerate() {
        assert_eq!(b["result"], format!("built docs{n}"), "{report}");
    }
    // Each build's update reached the GET stream, one of them from the
    // replica that does not hold it.
    assert!(
        builds.iter().any(|b| b["call"] != report["get"]),
        "no build ran on the other replica than the GET stream's: {report}"
    );
    assert!(
        report["updates"].as_array().unwrap().len() >= builds.len(),
        "{report}"
    );
    assert!(
        names(&report["updates"]) == BTreeSet::from(["jobs://builds/latest".to_owned()]),
        "{report}"
    );

    // The task: created, followed and finished, through both replicas.
    let task = &report["task"];
    assert_eq!(task["result"], "built all", "{report}");
    assert_eq!(task["messages"][0], "taskCreated", "{report}");
    assert_eq!(
        task["messages"].as_array().unwrap().last().unwrap(),
        "result"
    );
    let task_replicas: BTreeSet<String> = task["replicas"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(names)
        .collect();
    assert_eq!(
        task_replicas.len(),
        2,
        "the task stayed on one replica: {report}"
    );
    assert!(
        report["asked"]
            .as_array()
            .unwrap()
            .contains(&json!("Build all?")),
        "{report}"
    );

    // DELETE ends the session on both replicas.
    assert_eq!(report["deleteStatus"], 200, "{report}");
    assert_eq!(report["afterDelete"], json!([404, 404]), "{report}");

    assert_eq!(
        deployment.proxy.served_by(),
        BTreeSet::from(["r1".to_owned(), "r2".to_owned()]),
        "HAProxy's log:\n{}",
        deployment.proxy.log()
    );
    deployment.assert_sound();
}

#[tokio::test]
async fn a_replica_killed_between_requests_leaves_the_session_to_the_other() {
    let Some(setup) = setup() else {
        return;
    };
    let mut deployment = Deployment::start(&setup);
    let mut host = Host::start(&setup, &deployment, "kill");
    let kill = host.next("kill").await;
    let victim = kill["replica"]
        .as_str()
        .expect("a replica's name")
        .to_owned();
    deployment.replica(&victim).kill();
    host.go_on().await;
    let report = host.next("report").await;
    eprintln!("what the host saw when replica {victim} died: {report}");

    assert_eq!(report["answerStatus"], 202, "{report}");
    // The call in flight on the dead replica failed with the server's
    // error, which the client got when it resumed the call's stream on the
    // replica left: not with the SDK's own timeout (-32001, after 10 s).
    let in_flight = &report["inFlight"];
    assert_eq!(in_flight["ok"], false, "{report}");
    assert_eq!(in_flight["code"], -32603, "{report}");
    assert!(
        in_flight["error"]
            .as_str()
            .unwrap()
            .contains("send the request again"),
        "{report}"
    );
    assert!(in_flight["afterMs"].as_u64().unwrap() < 10_000, "{report}");
    // The transport saw the stream break at once.
    assert!(
        report["transportErrors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["message"]
                .as_str()
                .unwrap()
                .contains("SSE stream disconnected")
                && e["afterMs"].as_u64().unwrap() < 10_000),
        "{report}"
    );
    // The next requests succeeded, through the replica left.
    let survivor = if victim == "r1" { "r2" } else { "r1" };
    assert_eq!(report["toolsAfter"], json!(["build"]), "{report}");
    assert_eq!(report["rebuilt"]["result"], "built again", "{report}");
    assert_eq!(report["servedAfter"], json!([survivor]), "{report}");
    // The dead replica held the GET stream too: the client opened it again
    // on the replica left, and the update of the build after the kill
    // reached it there (the script waits for that update).
    assert_eq!(report["get"], victim.as_str(), "{report}");
    assert!(
        report["gets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["status"] == 200 && g["replica"] == survivor),
        "the GET stream was not opened again on {survivor}: {report}"
    );

    for replica in &deployment.replicas {
        if replica.name == survivor {
            replica.assert_sound();
        }
    }
}

#[tokio::test]
async fn the_inspector_lists_and_calls_tools_through_the_proxy() {
    let Some(setup) = setup() else {
        return;
    };
    let deployment = Deployment::start(&setup);
    let inspector = |args: &[&str]| {
        let output = Command::new(&setup.node)
            .arg(&setup.inspector)
            .args(["--cli", &deployment.proxy.url])
            .args(["--transport", "http", "--protocol-era", "legacy"])
            .args(args)
            .output()
            .expect("the Inspector starts");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status, stdout, stderr)
    };

    let (status, stdout, stderr) = inspector(&["--method", "tools/list"]);
    assert!(status.success(), "the Inspector failed: {stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("JSON");
    let tools: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["build"]);

    // `build` asks a question, and the Inspector's CLI declares no way to
    // answer one: the server refuses the call, naming the tool, and the
    // Inspector prints the refusal on stderr and fails.
    let (status, stdout, stderr) = inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "build",
        "--tool-arg",
        "target=docs",
    ]);
    assert!(!status.success(), "{stdout}");
    let called: Value = serde_json::from_str(&stderr)
        .unwrap_or_else(|e| panic!("the Inspector printed no JSON error ({e}): {stdout}{stderr}"));
    assert_eq!(
        called["error"]["message"], "Tool `build` needs input the client cannot give",
        "{called}"
    );

    let (status, stdout, stderr) = inspector(&[
        "--method",
        "resources/read",
        "--uri",
        "jobs://builds/latest",
    ]);
    assert!(status.success(), "the Inspector failed: {stderr}");
    let read: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(read["contents"][0]["text"], "no build yet");

    assert_eq!(
        deployment.proxy.served_by(),
        BTreeSet::from(["r1".to_owned(), "r2".to_owned()]),
        "HAProxy's log:\n{}",
        deployment.proxy.log()
    );
    deployment.assert_sound();
}
