//! Ctrl-C read as a key while a prompt is up, for when something catches
//! the interrupt it stands for.
//!
//! A prompt reads one key at a time and leaves the terminal as it found
//! it in between, when the terminal turns Ctrl-C into SIGINT at once.
//! There a Ctrl-C would reach whoever catches SIGINT while the prompt
//! stays up, waiting for a key. Read as a key it always ends the prompt,
//! which then raises SIGINT itself. Only safe where SIGINT is caught: the
//! raised signal would otherwise end `presa` with the terminal still so.

/// Ctrl-C read as a key until dropped: `ISIG` off on the terminal that is
/// stdin, and back as it was after.
#[cfg(unix)]
pub struct CtrlCAsKey {
    was: Option<nix::sys::termios::Termios>,
}

#[cfg(unix)]
impl CtrlCAsKey {
    /// Turns `ISIG` off, if stdin is a terminal that lets it.
    pub fn read() -> Self {
        use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
        let stdin = std::io::stdin();
        let Ok(was) = tcgetattr(&stdin) else {
            return CtrlCAsKey { was: None };
        };
        let mut as_key = was.clone();
        as_key.local_flags.remove(LocalFlags::ISIG);
        let set = tcsetattr(&stdin, SetArg::TCSADRAIN, &as_key).is_ok();
        CtrlCAsKey {
            was: set.then_some(was),
        }
    }
}

#[cfg(unix)]
impl Drop for CtrlCAsKey {
    fn drop(&mut self) {
        use nix::sys::termios::{SetArg, tcsetattr};
        if let Some(was) = &self.was {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSADRAIN, was);
        }
    }
}

/// Elsewhere the terminal is left as it is.
#[cfg(not(unix))]
pub struct CtrlCAsKey;

#[cfg(not(unix))]
impl CtrlCAsKey {
    /// Changes nothing.
    pub fn read() -> Self {
        CtrlCAsKey
    }
}
