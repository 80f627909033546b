//! A `redis-server` of a test's own, on a free port, killed when dropped,
//! and [`redis_tests!`](crate::redis_tests), which defines the tests that
//! need one.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

#[path = "on_path.rs"]
mod on_path;

/// How many times to look for the server answering (10 ms apart).
const ATTEMPTS: u32 = 500;

/// Defines a test for each `$test`, an `async fn(RedisServer)` of the
/// module that invokes this, which it calls with a server of its own
/// (or, after `on FIXTURE:`, with `FIXTURE::start()`, such as a cluster).
///
/// Where the build found no `redis-server` (presa-redis's build script
/// sets cfg `no_redis`), the tests are reported ignored, with how to run
/// them, rather than passing without running. The build looks again when
/// a file is added to a folder on `PATH`, so a server installed since is
/// found by the next `cargo test`. Built for another system
/// than the build's (cfg `redis_cross`: Windows, from Linux, run under
/// Wine), they are reported ignored for that: Wine starts a Linux
/// `redis-server` without a process handle, so a test could neither wait
/// for it nor kill it, and what that system has on its `PATH` is not
/// known to the build.
#[macro_export]
macro_rules! redis_tests {
    ($($test:ident),+ $(,)?) => {
        $crate::redis_tests!(on $crate::redis_server::RedisServer: $($test),+);
    };
    (on $fixture:path: $($test:ident),+ $(,)?) => {
        mod on_redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                #[cfg_attr(
                    no_redis,
                    ignore = "needs redis-server, which was not on PATH when this was built: \
                              install it and test again"
                )]
                #[cfg_attr(
                    redis_cross,
                    ignore = "built for another system than the build's (under Wine, a \
                              Linux redis-server starts with no process handle to wait on \
                              or kill): test on that system with a redis-server on PATH"
                )]
                async fn $test() {
                    super::$test(<$fixture>::start()).await;
                }
            )+
        }
    };
}

/// A running `redis-server` that keeps nothing on disk: no snapshots, no
/// log, and a working folder of its own, removed when it stops, for the
/// files a replica writes while it syncs (which a server started later in
/// a shared folder would load as its own data).
pub struct RedisServer {
    program: PathBuf,
    child: Option<Child>,
    port: u16,
    /// The configuration file it is started with, if any.
    config: Option<PathBuf>,
    /// More arguments, given the port.
    extra: fn(u16) -> Vec<String>,
}

impl RedisServer {
    /// A server on a free port; panics if no `redis-server` is on `PATH`.
    pub fn start() -> Self {
        Self::start_with(|_| Vec::new())
    }

    /// A server on a free port, with the arguments `extra` gives for it.
    pub fn start_with(extra: fn(u16) -> Vec<String>) -> Self {
        Self::start_from(None, extra)
    }

    /// A server on a free port started from the configuration file
    /// `config` (which Sentinel needs, and rewrites), with the arguments
    /// `extra` gives for it.
    pub fn start_from(config: Option<PathBuf>, extra: fn(u16) -> Vec<String>) -> Self {
        let program = on_path::redis_server().expect(
            "a redis-server on PATH: install it (apt-get install redis-server, brew install redis)",
        );
        for _ in 0..20 {
            let mut server = RedisServer {
                program: program.clone(),
                child: None,
                port: free_port(),
                config: config.clone(),
                extra,
            };
            if server.launch() {
                return server;
            }
        }
        panic!("could not start redis-server on a free port");
    }

    /// The URL of the server.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server; its data is lost.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(self.folder());
        }
    }

    /// The server's working folder.
    fn folder(&self) -> PathBuf {
        std::env::temp_dir().join(format!("presa-redis-server-{}", self.port))
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
        let folder = self.folder();
        std::fs::create_dir_all(&folder).expect("a working folder for redis-server");
        let child = Command::new(&self.program)
            .args(&self.config)
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&folder)
            .args((self.extra)(self.port))
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

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Whether the server on `port` answers, and is the process `pid` (not
/// another test's server that took the port first).
fn answers_as(port: u16, pid: u32) -> bool {
    replies_with(port, "INFO server", &format!("process_id:{pid}\r\n"))
}

/// Whether the server on `port` answers the inline `command` with a reply
/// that contains `wanted`.
pub fn replies_with(port: u16, command: &str, wanted: &str) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream
        .write_all(format!("{command}\r\n").as_bytes())
        .is_err()
    {
        return false;
    }
    let mut reply = Vec::new();
    let mut buffer = [0; 4096];
    while let Ok(read @ 1..) = stream.read(&mut buffer) {
        reply.extend_from_slice(&buffer[..read]);
        if String::from_utf8_lossy(&reply).contains(wanted) {
            return true;
        }
    }
    false
}
