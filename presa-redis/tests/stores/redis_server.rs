//! A `redis-server` of a test's own, on a free port, killed when dropped.
//!
//! Where no `redis-server` is installed, [`RedisServer::start`] says how to
//! get one and returns `None`, so the test passes without running; with
//! `PRESA_REQUIRE_REDIS=1` it panics instead.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How many times to look for the server answering (10 ms apart).
const ATTEMPTS: u32 = 500;

/// A running `redis-server` that keeps nothing on disk.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

impl RedisServer {
    /// A server on a free port; `None` if `redis-server` is not installed
    /// and the environment does not require it.
    pub fn start() -> Option<Self> {
        if !installed() {
            let required = std::env::var("PRESA_REQUIRE_REDIS").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "PRESA_REQUIRE_REDIS=1 but redis-server is not on PATH"
            );
            eprintln!(
                "redis-server not found: install Debian's redis-server \
                 (apt-get install redis-server) to run these tests"
            );
            return None;
        }
        for _ in 0..20 {
            let mut server = RedisServer {
                child: None,
                port: free_port(),
            };
            if server.launch() {
                return Some(server);
            }
        }
        panic!("could not start redis-server on a free port");
    }

    /// The URL of the server.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server; its data is lost.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts a new, empty server on the same port.
    pub fn restart(&mut self) {
        self.stop();
        assert!(
            self.launch(),
            "redis-server did not start again on {}",
            self.port
        );
    }

    /// Spawns the server and waits until it answers as itself; false if
    /// it exited (its port was taken meanwhile).
    fn launch(&mut self) -> bool {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let pid = child.id();
        self.child = Some(child);
        for _ in 0..ATTEMPTS {
            if self.exited() {
                self.child = None;
                return false;
            }
            if answers_as(self.port, pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.stop();
        false
    }

    fn exited(&mut self) -> bool {
        let child = self.child.as_mut().expect("launched");
        child.try_wait().ok().flatten().is_some()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn installed() -> bool {
    match Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
    {
        Ok(_) => true,
        Err(e) if e.kind() == ErrorKind::NotFound => false,
        Err(e) => panic!("running redis-server --version: {e}"),
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Whether the server on `port` answers, and is the process `pid` (not
/// another test's server that took the port first).
fn answers_as(port: u16, pid: u32) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream.write_all(b"INFO server\r\n").is_err() {
        return false;
    }
    let wanted = format!("process_id:{pid}\r\n");
    let mut reply = Vec::new();
    let mut buffer = [0; 4096];
    while let Ok(read @ 1..) = stream.read(&mut buffer) {
        reply.extend_from_slice(&buffer[..read]);
        if String::from_utf8_lossy(&reply).contains(&wanted) {
            return true;
        }
    }
    false
}
