//! Asking a child process to end, with SIGTERM.

use tokio::process::Child;

/// Sends the process SIGTERM; `false` if it has already been reaped.
pub(crate) fn terminate(child: &Child) -> bool {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let Some(pid) = child.id() else {
        return false;
    };
    let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
    true
}
