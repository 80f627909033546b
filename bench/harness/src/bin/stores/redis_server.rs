//! A `redis-server` of the section's own, on a free loopback port, killed
//! when dropped, in one of the shapes a store meets ([`Shape`]).
//!
//! A private server, rather than one the machine may already run, so that
//! the figures start from an empty Redis that nobody else loads, and so
//! that emptying it between rounds (`FLUSHALL`) destroys nothing.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

use redis::aio::MultiplexedConnection;

/// How many times to ask a starting server whether it is up, 10 ms apart.
const READY_ATTEMPTS: u32 = 500;

/// How many free ports to try: another program may take the one found
/// before the server binds it.
const PORT_ATTEMPTS: u32 = 10;

/// How a store reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `redis://`, one server.
    Plain,
    /// `rediss://` on the port after the plain one, with a certificate of
    /// a private CA (the harness itself keeps to the plain port).
    Tls,
    /// A Redis Cluster of this one node, which holds every slot: the
    /// cluster protocol's own cost, with no second shard to go to (one
    /// store's keys are on one shard anyway).
    ClusterNode,
}

/// A running `redis-server` that keeps nothing on disk, and a connection
/// of the harness's own to it.
pub struct RedisServer {
    child: Child,
    port: u16,
    shape: Shape,
    /// Where its certificates or its cluster state are, if anywhere.
    folder: PathBuf,
    connection: MultiplexedConnection,
}

impl RedisServer {
    /// A server of `shape` on a free port, once it answers (and, as a
    /// cluster node, says the cluster is up); `None` when `redis-server`
    /// is not installed.
    pub async fn start(shape: Shape) -> Option<Self> {
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port();
            let folder = std::env::temp_dir().join(format!("presa-bench-redis-{port}"));
            std::fs::create_dir_all(&folder).expect("a folder for the server's files");
            let child = match spawn(port, shape, &folder) {
                Ok(child) => child,
                Err(e) if e.kind() == ErrorKind::NotFound => return None,
                Err(e) => panic!("starting redis-server: {e}"),
            };
            if let Some(server) = ready(child, port, shape, folder).await {
                if shape == Shape::ClusterNode {
                    server.hold_every_slot().await;
                }
                return Some(server);
            }
        }
        panic!("redis-server did not start on any of {PORT_ATTEMPTS} free ports");
    }

    /// The URL stores connect to.
    pub fn url(&self) -> String {
        match self.shape {
            Shape::Plain | Shape::ClusterNode => url(self.port),
            Shape::Tls => format!("rediss://127.0.0.1:{}/", self.port + 1),
        }
    }

    /// The CA that signed the server's certificate, for a TLS server.
    pub fn ca(&self) -> Option<Vec<u8>> {
        (self.shape == Shape::Tls)
            .then(|| std::fs::read(self.folder.join("ca.pem")).expect("the CA written at start"))
    }

    /// Assigns every slot to this node, and waits until it says the
    /// cluster is `ok`.
    async fn hold_every_slot(&self) {
        let mut connection = self.connection.clone();
        let () = redis::cmd("CLUSTER")
            .arg("ADDSLOTSRANGE")
            .arg(0)
            .arg(16383)
            .query_async(&mut connection)
            .await
            .expect("CLUSTER ADDSLOTSRANGE");
        for _ in 0..READY_ATTEMPTS {
            let info: String = redis::cmd("CLUSTER")
                .arg("INFO")
                .query_async(&mut connection)
                .await
                .expect("CLUSTER INFO");
            if info.contains("cluster_state:ok") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the one-node cluster did not come up");
    }

    /// Deletes every key.
    pub async fn flush(&self) {
        let mut connection = self.connection.clone();
        let () = redis::cmd("FLUSHALL")
            .query_async(&mut connection)
            .await
            .expect("FLUSHALL");
    }

    /// The bytes Redis's allocator holds for data and bookkeeping
    /// (`used_memory` of `INFO memory`).
    pub async fn used_memory(&self) -> u64 {
        let info = self.info("memory").await;
        info.lines()
            .find_map(|line| line.strip_prefix("used_memory:"))
            .and_then(|bytes| bytes.trim().parse().ok())
            .expect("INFO memory reports used_memory")
    }

    /// How many times Redis has run each command so far, by name
    /// (`INFO commandstats`). A script's own commands count too.
    pub async fn command_calls(&self) -> BTreeMap<String, u64> {
        let info = self.info("commandstats").await;
        info.lines()
            .filter_map(|line| line.strip_prefix("cmdstat_"))
            .filter_map(|line| {
                let (name, stats) = line.split_once(':')?;
                let calls = stats.split(',').find_map(|s| s.strip_prefix("calls="))?;
                Some((name.to_owned(), calls.trim().parse().ok()?))
            })
            .collect()
    }

    /// Whether the server answering is process `pid`, not another
    /// program's Redis that took the port first.
    async fn is_process(&self, pid: u32) -> bool {
        let wanted = format!("process_id:{pid}\r\n");
        self.info("server").await.contains(&wanted)
    }

    async fn info(&self, part: &str) -> String {
        let mut connection = self.connection.clone();
        redis::cmd("INFO")
            .arg(part)
            .query_async(&mut connection)
            .await
            .expect("INFO")
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn url(port: u16) -> String {
    format!("redis://127.0.0.1:{port}/")
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener.local_addr().expect("its address").port()
}

fn spawn(port: u16, shape: Shape, folder: &std::path::Path) -> std::io::Result<Child> {
    let mut command = Command::new("redis-server");
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(folder);
    match shape {
        Shape::Plain => {}
        Shape::Tls => {
            make_certificates(folder);
            let file = |name: &str| folder.join(name);
            command
                .args(["--tls-port", &(port + 1).to_string()])
                .arg("--tls-cert-file")
                .arg(file("server.pem"))
                .arg("--tls-key-file")
                .arg(file("server.key"))
                .arg("--tls-ca-cert-file")
                .arg(file("ca.pem"))
                .args(["--tls-auth-clients", "no"]);
        }
        Shape::ClusterNode => {
            command
                .args(["--cluster-enabled", "yes", "--cluster-config-file"])
                .arg(folder.join("nodes.conf"));
        }
    }
    command.stdout(Stdio::null()).spawn()
}

/// A CA, and a certificate for 127.0.0.1 it signed, in `folder`.
fn make_certificates(folder: &std::path::Path) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().expect("a CA key"))
        .expect("a CA certificate");
    let key = KeyPair::generate().expect("a server key");
    let server = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .expect("server parameters")
        .signed_by(&key, &ca)
        .expect("a server certificate");
    let write = |name: &str, text: String| {
        std::fs::write(folder.join(name), text).expect("a certificate file");
    };
    write("ca.pem", ca.pem());
    write("server.pem", server.pem());
    write("server.key", key.serialize_pem());
}

/// The server `child` once it answers on `port` as itself; `None` (and
/// the child reaped) when it exited, its port taken meanwhile.
async fn ready(mut child: Child, port: u16, shape: Shape, folder: PathBuf) -> Option<RedisServer> {
    let client = redis::Client::open(url(port)).expect("a Redis URL");
    for _ in 0..READY_ATTEMPTS {
        if child.try_wait().ok().flatten().is_some() {
            let _ = std::fs::remove_dir_all(&folder);
            return None;
        }
        if let Ok(connection) = client.get_multiplexed_async_connection().await {
            let server = RedisServer {
                child,
                port,
                shape,
                folder,
                connection,
            };
            let ours = server.is_process(server.child.id()).await;
            return ours.then_some(server);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&folder);
    None
}
