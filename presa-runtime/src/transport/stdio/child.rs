//! A server process spawned by a client, its streams framed, and how it is
//! shut down: close its stdin, wait, then ask it to end, then kill it.

use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::sync::oneshot;

#[cfg(unix)]
use super::unix::terminate;
#[cfg(not(unix))]
use super::windows::terminate;
use crate::transport::channel::FrameChannel;
use crate::transport::lines::{UntilStopped, spawn_io};
use crate::transport::stop::StopReading;

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
        let stop = StopReading::default();
        let stdout = UntilStopped::new(stdout, &stop);
        let channel = spawn_io(stdout, stdin, max_message_size, Some(close_rx), stop);
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
    /// period sends SIGTERM, and after another, SIGKILL. On Windows, after
    /// the grace period, terminates the process (`TerminateProcess`, exit
    /// code 1): there is no SIGTERM step.
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
    if terminate(&child)
        && let Ok(status) = tokio::time::timeout(grace, child.wait()).await
    {
        return status;
    }
    // SIGKILL on Unix, TerminateProcess on Windows.
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
