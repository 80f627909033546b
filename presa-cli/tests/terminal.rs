//! `presa` in a real terminal, a pseudo-terminal that util-linux's
//! `script` provides, driven by the keys a person would press: the jobs
//! example's question asked as a form and answered `y`, and Ctrl-C while
//! a task is followed, answered with each choice. The byte 0x03 typed
//! into the terminal becomes SIGINT for `presa`, as the key would.
//!
//! Each step waits for the text the previous one should have drawn,
//! never on a clock.

#![cfg(unix)]

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

const CTRL_C: &[u8] = b"\x03";
const UP: &[u8] = b"\x1b[A";
const ENTER: &[u8] = b"\r";

/// The Ctrl-C question's prompt, and its last item: once that is drawn,
/// the list reads keys.
const INTERRUPTED: &str = "Interrupted: cancel the task, or detach";
const LAST_CHOICE: &str = "detach";

/// `presa` running in a terminal of its own, and what it drew so far.
struct Terminal {
    child: Child,
    keys: Option<ChildStdin>,
    screen: ChildStdout,
    seen: String,
    /// Where the next [`wait_for`](Self::wait_for) starts looking: text
    /// drawn before the last keys were typed does not count.
    from: usize,
}

impl Terminal {
    /// Starts `presa ARGS` in a terminal; `None` without `script`.
    fn start(args: &[&str]) -> Option<Self> {
        if Command::new("script").arg("--version").output().is_err() {
            eprintln!("skipped: no `script` (util-linux) to give presa a terminal");
            return None;
        }
        let command = shell_words::join(
            std::iter::once(env!("CARGO_BIN_EXE_presa")).chain(args.iter().copied()),
        );
        let mut child = Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
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
    /// `presa` ends first.
    fn wait_for(&mut self, wanted: &str) {
        let mut buffer = [0u8; 4096];
        loop {
            if let Some(at) = self.seen[self.from..].find(wanted) {
                self.from += at + wanted.len();
                return;
            }
            match self.screen.read(&mut buffer) {
                Ok(0) | Err(_) => panic!("presa ended before {wanted:?}:\n{}", self.seen),
                Ok(n) => self.seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
            }
        }
    }

    /// Types `keys`; only what is drawn from now on answers a wait.
    fn press(&mut self, keys: &[u8]) {
        self.from = self.seen.len();
        let typing = self.keys.as_mut().expect("the terminal is open");
        typing.write_all(keys).unwrap();
        typing.flush().unwrap();
    }

    /// Closes the keyboard, and waits for `presa` to end: its status and
    /// everything it drew.
    fn finish(mut self) -> (ExitStatus, String) {
        drop(self.keys.take());
        let mut rest = Vec::new();
        let _ = self.screen.read_to_end(&mut rest);
        self.seen.push_str(&String::from_utf8_lossy(&rest));
        (self.child.wait().unwrap(), self.seen)
    }
}

/// `stdio:` and the jobs example serving over stdio.
fn jobs_server() -> String {
    let jobs = jobs_example::jobs_binary();
    format!(
        "stdio:{} stdio",
        shell_words::quote(&jobs.to_string_lossy())
    )
}

/// `presa call` of a build that, confirmed ahead, works for an hour as a
/// task, once its progress line shows it working.
fn building_for_an_hour() -> Option<Terminal> {
    let server = jobs_server();
    let mut terminal = Terminal::start(&[
        "call",
        &server,
        "build",
        "target=all",
        "seconds=3600",
        "--answer",
        "confirm.ok=true",
        "--task",
    ])?;
    terminal.wait_for("building all");
    Some(terminal)
}

/// Ctrl-C, once the list that asks what it means is up.
fn interrupt(terminal: &mut Terminal) {
    terminal.press(CTRL_C);
    terminal.wait_for(INTERRUPTED);
    terminal.wait_for(LAST_CHOICE);
}

/// The task that the progress line of `screen` follows.
fn followed_task(screen: &str) -> &str {
    let line = screen.split("task ").nth(1).expect("a progress line");
    line.split([':', ' ']).next().unwrap()
}

/// Checks that `presa` detached from its task: exit status 5, and the
/// way to follow the task again, named.
fn detached(terminal: Terminal) {
    let (status, screen) = terminal.finish();
    assert_eq!(status.code(), Some(5), "{screen}");
    let task = followed_task(&screen);
    let watch = format!("watch {task}");
    assert!(
        screen.contains("presa task ") && screen.contains(&watch),
        "{screen}"
    );
}

#[test]
fn the_form_asks_in_a_terminal_and_the_answer_builds() {
    let server = jobs_server();
    let Some(mut terminal) = Terminal::start(&["call", &server, "build", "target=all"]) else {
        return;
    };
    terminal.wait_for("Build all?");
    terminal.wait_for("go ahead");
    terminal.press(b"y");
    terminal.wait_for("built all");
    let (status, screen) = terminal.finish();
    assert!(status.success(), "{status}: {screen}");
}

#[test]
fn ctrl_c_then_the_default_detaches_and_names_the_task() {
    let Some(mut terminal) = building_for_an_hour() else {
        return;
    };
    interrupt(&mut terminal);
    terminal.press(ENTER);
    detached(terminal);
}

#[test]
fn ctrl_c_then_cancel_ends_the_task_cancelled() {
    let Some(mut terminal) = building_for_an_hour() else {
        return;
    };
    interrupt(&mut terminal);
    terminal.press(UP);
    terminal.wait_for("cancel the task");
    terminal.press(ENTER);
    terminal.wait_for("was cancelled");
    let (status, screen) = terminal.finish();
    assert_eq!(status.code(), Some(130), "{screen}");
    let task = followed_task(&screen);
    assert!(
        screen.contains(&format!("task {task} was cancelled")),
        "{screen}"
    );
}

#[test]
fn a_second_ctrl_c_on_the_question_detaches() {
    let Some(mut terminal) = building_for_an_hour() else {
        return;
    };
    interrupt(&mut terminal);
    terminal.press(CTRL_C);
    detached(terminal);
}

#[test]
fn ctrl_c_on_a_task_s_own_question_still_asks_what_it_means() {
    let server = jobs_server();
    let Some(mut terminal) = Terminal::start(&["call", &server, "build", "target=all", "--task"])
    else {
        return;
    };
    terminal.wait_for("Build all?");
    terminal.wait_for("go ahead");
    interrupt(&mut terminal);
    terminal.press(ENTER);
    detached(terminal);
}
