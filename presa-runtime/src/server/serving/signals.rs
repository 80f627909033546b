//! The signals that end a server process: SIGTERM and SIGINT (Ctrl-C) on
//! Unix, Ctrl-C on Windows.
//!
//! Their handlers are installed by [`termination_signals`] itself, not by
//! a task that may run later: a server calls it before it reads anything,
//! so a signal that comes as soon as the first bytes are read is counted,
//! where it would otherwise kill the process (the default action) with
//! those requests unanswered.

use tokio::sync::watch;

/// How many times a termination signal arrived, counted from now on by a
/// task of its own. A signal whose handler cannot be installed is never
/// counted. Must be called inside a tokio runtime.
pub(crate) fn termination_signals() -> watch::Receiver<u32> {
    let (count, counted) = watch::channel(0);
    let mut arrivals = Arrivals::install();
    tokio::spawn(async move {
        while arrivals.next().await {
            count.send_modify(|n| *n += 1);
            if count.is_closed() {
                return;
            }
        }
    });
    counted
}

/// Resolves once `times` signals have arrived.
pub(crate) async fn signalled(mut count: watch::Receiver<u32>, times: u32) {
    if count.wait_for(|n| *n >= times).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The installed handlers.
struct Arrivals {
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    ctrl_c: Option<tokio::signal::windows::CtrlC>,
}

impl Arrivals {
    #[cfg(unix)]
    fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Arrivals {
            terminate: signal(SignalKind::terminate()).ok(),
            interrupt: signal(SignalKind::interrupt()).ok(),
        }
    }

    #[cfg(windows)]
    fn install() -> Self {
        Arrivals {
            ctrl_c: tokio::signal::windows::ctrl_c().ok(),
        }
    }

    /// Waits for the next signal; `false` once none can come.
    #[cfg(unix)]
    async fn next(&mut self) -> bool {
        tokio::select! {
            Some(()) = recv(self.terminate.as_mut()) => true,
            Some(()) = recv(self.interrupt.as_mut()) => true,
            else => false,
        }
    }

    #[cfg(windows)]
    async fn next(&mut self) -> bool {
        match self.ctrl_c.as_mut() {
            Some(ctrl_c) => ctrl_c.recv().await.is_some(),
            None => false,
        }
    }
}

/// One Unix signal's next arrival, `None` if it has no handler or no more
/// can come. Windows has one handler, awaited directly.
#[cfg(unix)]
async fn recv(signal: Option<&mut tokio::signal::unix::Signal>) -> Option<()> {
    signal?.recv().await
}

#[cfg(test)]
mod tests {
    use super::Arrivals;

    /// Every handler installs on this system (SIGTERM and SIGINT on Unix,
    /// Ctrl-C on Windows): one that did not would leave its signal to the
    /// default action, which kills the server with its requests unanswered.
    #[tokio::test]
    async fn every_handler_installs() {
        let arrivals = Arrivals::install();
        #[cfg(unix)]
        assert!(arrivals.terminate.is_some() && arrivals.interrupt.is_some());
        #[cfg(windows)]
        assert!(arrivals.ctrl_c.is_some());
    }
}
