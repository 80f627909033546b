//! Starting a process in a test, with one retry rule for Wine.
//!
//! Under Wine (the Windows tests in CI, `scripts/windows.sh`), starting a
//! process now and then fails with Windows error 1359, "Internal error".
//! Wine reports it when the new process dies while Wine loads it, before
//! any of its code runs: its loader could not lay out its memory that
//! time. The next attempt works. Real Windows does not fail this way, and
//! a test should not fail for a reason of the machine it runs on.
//!
//! So [`started`] tries again on that one error, up to three attempts in
//! all, and never on any other: a program that is missing, or that cannot
//! run, still fails the test at once with its own error.
//!
//! A process that a test's process starts meets the same failures: its
//! own start may fail with error 1359, or it may lose its connection to
//! `wineserver` and die at once (Wine prints "wine client error: ...
//! sendmsg: Bad file descriptor" to the terminal, not to the process's
//! own error stream). When that process is the server a `presa` command
//! started, the command says it could not start its server, or that its
//! server vanished.
//! [`finished`] runs a command to its end and, only in a build for Wine
//! (cfg `presa_wine`), runs it again when the caller says the output
//! shows that failure. On Linux it runs the command once, so a real
//! fault in presa still fails there.

use std::io;
use std::process::{Command, Output};

/// The Windows error Wine gives when a new process dies while it loads.
const WINE_LOADER_FAILED: i32 = 1359;

/// How many times [`started`] tries before it gives up.
const ATTEMPTS: usize = 3;

/// Runs `start`, which starts a process, and returns what it returns.
///
/// Tries again when Wine failed to load the process (see the module docs).
/// Panics, naming `what`, when it cannot start.
pub fn started<T>(what: &str, mut start: impl FnMut() -> io::Result<T>) -> T {
    let mut attempt = 1;
    loop {
        match start() {
            Ok(started) => return started,
            Err(error)
                if error.raw_os_error() == Some(WINE_LOADER_FAILED) && attempt < ATTEMPTS =>
            {
                // A test's own log, captured by the test harness: no
                // terminal reads it, so presa-cli's escaping is not needed.
                #[allow(clippy::disallowed_macros)]
                {
                    eprintln!("{what} did not load ({error}); trying again");
                }
                attempt += 1;
            }
            Err(error) => panic!("{what} did not start: {error}"),
        }
    }
}

/// Runs `command` to its end with [`started`]'s rule, and returns its
/// output.
///
/// In a build for Wine, runs it again, up to three attempts in all, while
/// `lost_to_wine` says the output shows the failure in the module docs.
/// Elsewhere `lost_to_wine` is never called. Panics, naming `what`, when
/// the command cannot start.
#[allow(dead_code)] // Each test crate that includes this file uses one part.
pub fn finished(
    what: &str,
    command: &mut Command,
    lost_to_wine: impl Fn(&Output) -> bool,
) -> Output {
    let mut attempt = 1;
    loop {
        let output = started(what, || command.output());
        if cfg!(presa_wine) && attempt < ATTEMPTS && lost_to_wine(&output) {
            #[allow(clippy::disallowed_macros)]
            {
                eprintln!("{what} lost a process to Wine; trying again");
            }
            attempt += 1;
            continue;
        }
        return output;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wine_failure() -> io::Error {
        io::Error::from_raw_os_error(WINE_LOADER_FAILED)
    }

    #[test]
    fn a_load_failure_is_tried_again() {
        let mut failures = 2;
        let value = started("the server", || {
            if failures > 0 {
                failures -= 1;
                Err(wine_failure())
            } else {
                Ok(7)
            }
        });
        assert_eq!((value, failures), (7, 0));
    }

    #[test]
    #[should_panic(expected = "the server did not start")]
    fn three_load_failures_fail() {
        started::<()>("the server", || Err(wine_failure()));
    }

    #[test]
    #[should_panic(expected = "the server did not start")]
    fn any_other_error_fails_at_once() {
        let mut attempts = 0;
        started::<()>("the server", || {
            attempts += 1;
            assert_eq!(attempts, 1, "tried again on an error that is not Wine's");
            Err(io::Error::from(io::ErrorKind::NotFound))
        });
    }
}
