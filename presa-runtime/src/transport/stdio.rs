//! The stdio transport: newline-delimited JSON on a process's standard
//! streams.
//!
//! The server side reads stdin and writes stdout; only MCP messages go to
//! stdout, logs go to stderr. The client side spawns the server and, on
//! shutdown, closes its stdin, waits, then sends SIGTERM, then SIGKILL.

use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::sync::oneshot;

use super::FrameChannel;
use super::lines::{byte_stream, spawn_io};

/// This process's stdin and stdout as a frame channel, with messages of at
/// most `max_message_size` bytes.
pub fn stdio(max_message_size: usize) -> FrameChannel {
    byte_stream(tokio::io::stdin(), tokio::io::stdout(), max_message_size)
}

/// A server process spawned by a client. Dropping it without
/// [`shutdown`](StdioChild::shutdown) runs the same escalation in the
/// background.
#[derive(Debug)]
pub struct StdioChild {
    child: Option<Child>,
    close_stdin: Option<oneshot::Sender<()>>,
    grace: Duration,
}

impl StdioChild {
    /// Spawns `command` with piped stdin and stdout (stderr is inherited)
    /// and frames its streams.
    pub fn spawn(
        mut command: Command,
        max_message_size: usize,
    ) -> io::Result<(FrameChannel, StdioChild)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(false);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (close_tx, close_rx) = oneshot::channel();
        let channel = spawn_io(stdout, stdin, max_message_size, Some(close_rx));
        Ok((
            channel,
            StdioChild {
                child: Some(child),
                close_stdin: Some(close_tx),
                grace: Duration::from_secs(2),
            },
        ))
    }

    /// How long each shutdown step waits for the process to exit (default 2 s).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// Closes the server's stdin and waits for it to exit; after the grace
    /// period sends SIGTERM, and after another, SIGKILL.
    pub async fn shutdown(mut self) -> io::Result<ExitStatus> {
        let child = self
            .child
            .take()
            .expect("the child is present until shutdown");
        escalate(child, self.close_stdin.take(), self.grace).await
    }
}

async fn escalate(
    mut child: Child,
    close_stdin: Option<oneshot::Sender<()>>,
    grace: Duration,
) -> io::Result<ExitStatus> {
    if let Some(close) = close_stdin {
        let _ = close.send(());
    }
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status;
    }
    if let Some(pid) = child.id() {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
        if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
            return status;
        }
    }
    child.kill().await?;
    child.wait().await
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let close = self.close_stdin.take();
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                let grace = self.grace;
                rt.spawn(async move {
                    let _ = escalate(child, close, grace).await;
                });
            }
            Err(_) => {
                let _ = child.start_kill();
            }
        }
    }
}
