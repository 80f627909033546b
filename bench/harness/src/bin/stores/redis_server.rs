//! A `redis-server` of the section's own, on a free loopback port, killed
//! when dropped.
//!
//! A private server, rather than one the machine may already run, so that
//! the figures start from an empty Redis that nobody else loads, and so
//! that emptying it between rounds (`FLUSHALL`) destroys nothing.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use redis::aio::MultiplexedConnection;

/// How many times to ask a starting server whether it is up, 10 ms apart.
const READY_ATTEMPTS: u32 = 500;

/// How many free ports to try: another program may take the one found
/// before the server binds it.
const PORT_ATTEMPTS: u32 = 10;

/// A running `redis-server` that keeps nothing on disk, and a connection
/// of the harness's own to it.
pub struct RedisServer {
    child: Child,
    port: u16,
    connection: MultiplexedConnection,
}

impl RedisServer {
    /// A server on a free port, once it answers; `None` when `redis-server`
    /// is not installed.
    pub async fn start() -> Option<Self> {
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port();
            let child = match spawn(port) {
                Ok(child) => child,
                Err(e) if e.kind() == ErrorKind::NotFound => return None,
                Err(e) => panic!("starting redis-server: {e}"),
            };
            if let Some(server) = ready(child, port).await {
                return Some(server);
            }
        }
        panic!("redis-server did not start on any of {PORT_ATTEMPTS} free ports");
    }

    /// The URL stores connect to.
    pub fn url(&self) -> String {
        url(self.port)
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
    }
}

fn url(port: u16) -> String {
    format!("redis://127.0.0.1:{port}/")
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener.local_addr().expect("its address").port()
}

fn spawn(port: u16) -> std::io::Result<Child> {
    Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
}

/// The server `child` once it answers on `port` as itself; `None` (and
/// the child reaped) when it exited, its port taken meanwhile.
async fn ready(mut child: Child, port: u16) -> Option<RedisServer> {
    let client = redis::Client::open(url(port)).expect("a Redis URL");
    for _ in 0..READY_ATTEMPTS {
        if child.try_wait().ok().flatten().is_some() {
            return None;
        }
        if let Ok(connection) = client.get_multiplexed_async_connection().await {
            let server = RedisServer {
                child,
                port,
                connection,
            };
            let ours = server.is_process(server.child.id()).await;
            return ours.then_some(server);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}
