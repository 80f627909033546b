//! `presa` in a real terminal, a pseudo-terminal that util-linux's
//! `script` provides, driven by the keys a person would press; what the
//! terminal tests and the shell's tests share. A test waits for the text
//! that its last keys should draw, never on a clock.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// How long one [`Terminal::wait_for`] waits for its text: far longer
/// than any step takes, so that only a test that would hang reaches it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The keys Ctrl-C, Ctrl-D, up, tab and Enter, as the terminal sends them.
pub const CTRL_C: &[u8] = b"\x03";
pub const CTRL_D: &[u8] = b"\x04";
pub const UP: &[u8] = b"\x1b[A";
pub const TAB: &[u8] = b"\t";
pub const ENTER: &[u8] = b"\r";

/// `presa` running in a terminal of its own, and what it drew so far.
pub struct Terminal {
    child: Child,
    keys: Option<ChildStdin>,
    screen: ChildStdout,
    seen: String,
    /// Where the next [`wait_for`](Self::wait_for) starts looking: text
    /// drawn before the last keys were typed does not count.
    from: usize,
}

impl Terminal {
    /// Starts `presa ARGS` in a terminal, its config folder the test's
    /// temporary one; `None` without `script`.
    pub fn start(args: &[&str]) -> Option<Self> {
        Self::start_in(args, Path::new(env!("CARGO_TARGET_TMPDIR")))
    }

    /// Starts `presa ARGS` in a terminal, its config folder `config`;
    /// `None` without `script`, except in CI, where the tests must run.
    ///
    /// `script` runs the command through `$SHELL -c`, and the shell
    /// `exec`s `presa` so that `presa` alone is in the terminal's
    /// foreground: a shell left waiting would take the Ctrl-C too, and
    /// `dash` (`/bin/sh`, where `SHELL` is unset, as in CI) dies of it,
    /// which `script` reports as status 130 whatever `presa` did.
    pub fn start_in(args: &[&str], config: &Path) -> Option<Self> {
        if Command::new("script").arg("--version").output().is_err() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have util-linux's `script` to run the terminal tests"
            );
            #[allow(
                clippy::disallowed_macros,
                reason = "a note for whoever runs the tests"
            )]
            {
                eprintln!("skipped: no `script` (util-linux) to give presa a terminal");
            }
            return None;
        }
        let presa = shell_words::join(
            std::iter::once(env!("CARGO_BIN_EXE_presa")).chain(args.iter().copied()),
        );
        let command = format!("exec {presa}");
        let mut child = Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env("PRESA_CONFIG_DIR", config)
            .env_remove("PRESA_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script runs");
        Some(Terminal {
            keys: child.stdin.take(),
            screen: child.stdout.take().unwrap(),
            child,
            seen: String::new(),
            from: 0,
        })
    }

    /// Reads what `presa` draws until `wanted` appears; the text after it
    /// is where the next wait starts. Panics, showing the screen, when
    /// `presa` ends first, or when nothing shows `wanted` within
    /// [`PATIENCE`]: then the terminal is killed, so that a test that
    /// would wait for good fails instead.
    pub fn wait_for(&mut self, wanted: &str) {
        let script = self.child.id();
        let (waiting, watched) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let gave_up = watched
                .recv_timeout(PATIENCE)
                .is_err_and(|e| e == RecvTimeoutError::Timeout);
            if gave_up {
                let _ = Command::new("kill").arg(script.to_string()).status();
            }
            gave_up
        });
        let mut buffer = [0u8; 4096];
        let ended = loop {
            if let Some(at) = self.seen[self.from..].find(wanted) {
                self.from += at + wanted.len();
                break false;
            }
            match self.screen.read(&mut buffer) {
                Ok(0) | Err(_) => break true,
                Ok(n) => self.seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
            }
        };
        drop(waiting);
        let gave_up = watchdog.join().unwrap_or(false);
        assert!(
            !gave_up,
            "nothing showed {wanted:?} within {PATIENCE:?}:\n{}",
            self.seen
        );
        assert!(!ended, "presa ended before {wanted:?}:\n{}", self.seen);
    }

    /// Types `keys`; only what is drawn from now on answers a wait.
    pub fn press(&mut self, keys: &[u8]) {
        self.from = self.seen.len();
        let typing = self.keys.as_mut().expect("the terminal is open");
        typing.write_all(keys).unwrap();
        typing.flush().unwrap();
    }

    /// Closes the keyboard, and waits for `presa` to end: its status and
    /// everything it drew.
    pub fn finish(mut self) -> (ExitStatus, String) {
        drop(self.keys.take());
        let mut rest = Vec::new();
        let _ = self.screen.read_to_end(&mut rest);
        self.seen.push_str(&String::from_utf8_lossy(&rest));
        (self.child.wait().unwrap(), self.seen)
    }
}
