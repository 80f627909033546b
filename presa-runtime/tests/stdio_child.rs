//! The stdio child's shutdown ladder: close stdin, then SIGTERM, then SIGKILL.
//!
//! Unix only: the children are `sh` and `cat`, and the statuses are
//! signals. The Windows ladder (close stdin, then TerminateProcess) is
//! tested on the `jobs` example in presa's `tests/stdio_process.rs`.
#![cfg(unix)]

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use presa_runtime::transport::{Inbound, StdioChild};
use tokio::process::Command;

/// Spawns `script` under `sh` and waits until it prints `ready`.
async fn spawn_ready(script: &str) -> StdioChild {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script]);
    let (mut channel, child) = StdioChild::spawn(cmd, 1024).unwrap();
    assert_eq!(
        channel.incoming.recv().await,
        Some(Inbound::Frame("ready".into()))
    );
    child
}

#[tokio::test]
async fn a_server_that_exits_on_eof_exits_cleanly() {
    let (_channel, child) = StdioChild::spawn(Command::new("cat"), 1024).unwrap();
    let status = child
        .grace_period(Duration::from_secs(30))
        .shutdown()
        .await
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn a_server_that_ignores_eof_gets_sigterm() {
    let child = spawn_ready("echo ready; exec sleep 1000").await;
    let status = child
        .grace_period(Duration::from_millis(200))
        .shutdown()
        .await
        .unwrap();
    assert_eq!(status.signal(), Some(15));
}

#[tokio::test]
async fn a_server_that_ignores_sigterm_gets_sigkill() {
    let child = spawn_ready("trap '' TERM; echo ready; while :; do sleep 1; done").await;
    let status = child
        .grace_period(Duration::from_millis(200))
        .shutdown()
        .await
        .unwrap();
    assert_eq!(status.signal(), Some(9));
}

#[tokio::test]
async fn dropping_the_child_runs_the_same_ladder() {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "echo ready; exec sleep 1000"]);
    let (mut channel, child) = StdioChild::spawn(cmd, 1024).unwrap();
    assert_eq!(
        channel.incoming.recv().await,
        Some(Inbound::Frame("ready".into()))
    );
    drop(child.grace_period(Duration::from_millis(100)));
    // The process's stdout closes only when it is gone.
    assert_eq!(channel.incoming.recv().await, None);
}
