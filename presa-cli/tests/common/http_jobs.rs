//! The `jobs` example serving Streamable HTTP on a free port, for the
//! process tests: ready once it printed its address, killed on drop.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use super::jobs_example;
use super::process_start::started;

/// The jobs example serving HTTP on a free port; killed on drop.
pub struct HttpJobs {
    child: Child,
    /// Its endpoint.
    pub url: String,
}

impl HttpJobs {
    /// Starts the example, and waits for the line that gives its address.
    pub fn start() -> Self {
        let mut command = Command::new(jobs_example::jobs_binary());
        command
            .args(["http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = started("the jobs example", || command.spawn());
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let url = loop {
            let line = lines.next().expect("a readiness line").unwrap();
            if let Some(url) = line.strip_prefix("serving the jobs server at ") {
                break url.to_owned();
            }
        };
        HttpJobs { child, url }
    }
}

impl Drop for HttpJobs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
