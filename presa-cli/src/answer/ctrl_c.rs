//! Ctrl-C read as a key while a prompt is up, for when something catches
//! the interrupt it stands for.
//!
//! A prompt reads one key at a time and leaves the terminal as it found
//! it in between, when the terminal turns Ctrl-C into SIGINT at once.
//! There a Ctrl-C would reach whoever catches SIGINT while the prompt
//! stays up, waiting for a key. Read as a key it always ends the prompt,
//! which then raises SIGINT itself. Only safe where SIGINT is caught: the
//! raised signal would otherwise end `presa` with the terminal still so.
//!
//! A prompt so ended tells it with its answer ([`Prompted`]), which then
//! waits for the person's choice of what the Ctrl-C means (`choices`).

/// A prompt's answer, and whether a Ctrl-C read as a key ended the
/// prompt, its answer then declining.
pub struct Prompted<R> {
    /// What the server is told.
    pub answer: R,
    /// Whether a Ctrl-C ended the prompt.
    pub by_ctrl_c: bool,
}

impl<R> Prompted<R> {
    /// The person's answer.
    pub fn answered(answer: R) -> Self {
        Prompted {
            answer,
            by_ctrl_c: false,
        }
    }

    /// `declined`, the answer of a prompt that ended in `error`.
    pub fn failed(declined: R, error: &dialoguer::Error) -> Self {
        let dialoguer::Error::IO(error) = error;
        Prompted {
            answer: declined,
            by_ctrl_c: error.kind() == std::io::ErrorKind::Interrupted,
        }
    }
}

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
