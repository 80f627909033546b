//! What several of `presa`'s process tests share: a server served over
//! Streamable HTTP for the whole test binary, and `presa` run against it.
//!
//! The server is listening before any `presa` starts (its listener is
//! bound first), so nothing waits on a clock.

use std::net::SocketAddr;
use std::process::{Command, Output, Stdio};

use presa::prelude::*;
use presa::server::http::StreamableHttp;

/// A server served over HTTP on a runtime of its own, for the whole test
/// binary.
pub struct Served {
    /// The server, for creating tasks through presa's client in process.
    pub server: Server,
    /// Its endpoint.
    pub url: String,
    /// The runtime that serves it.
    pub runtime: tokio::runtime::Runtime,
}

impl Served {
    /// `server`, served on a loopback port of its own.
    pub fn new(server: Server) -> Served {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime for the server");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(SocketAddr::from((
                [127, 0, 0, 1],
                0,
            ))))
            .expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        runtime.spawn(
            StreamableHttp::new(server.clone())
                .serve_on(listener)
                .into_future(),
        );
        Served {
            server,
            url: format!("http://127.0.0.1:{port}/mcp"),
            runtime,
        }
    }
}

/// `presa ARGS`, with nothing on stdin, no token from the environment,
/// and sign-ins kept in the test's own folder.
pub fn presa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_presa"))
        .args(args)
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .env_remove("PRESA_TOKEN")
        .stdin(Stdio::null())
        .output()
        .expect("presa runs")
}
