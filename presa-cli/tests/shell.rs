//! `presa shell` in a pseudo-terminal, against the jobs example over
//! stdio, driven by the keys a person would press: Tab completes the
//! tool's name and its argument's; the build's question is answered; a
//! required argument left out is asked for; a task is followed to its
//! end, and Ctrl-C while it runs asks what it means and leaves the shell
//! up; Ctrl-C at the prompt clears the line; Ctrl-D and `exit` end the
//! shell with status 0, the lines typed kept in its history. And with no
//! terminal, lines piped in run in turn.
//!
//! Each step waits for the text the previous one should draw, never on
//! a clock.

#![cfg(unix)]

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;

#[path = "common/pty.rs"]
mod pty;

#[allow(
    dead_code,
    reason = "the shared server's in-process handles go unused here"
)]
mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::Served;
use presa::prelude::*;

use pty::{CTRL_C, CTRL_D, ENTER, TAB, Terminal};

const PROMPT: &str = "presa> ";

/// `stdio:` and the jobs example serving over stdio.
fn jobs_server() -> String {
    let jobs = jobs_example::jobs_binary();
    format!(
        "stdio:{} stdio",
        shell_words::quote(&jobs.to_string_lossy())
    )
}

/// `presa shell` on the jobs example, once its first prompt is up; its
/// config folder `config`, or the tests' own.
fn shell(config: Option<&PathBuf>) -> Option<Terminal> {
    let server = jobs_server();
    let args = ["shell", server.as_str()];
    let mut terminal = match config {
        Some(config) => Terminal::start_in(&args, config)?,
        None => Terminal::start(&args)?,
    };
    terminal.wait_for(PROMPT);
    Some(terminal)
}

/// Ends the shell with Ctrl-D, and checks it ends with status 0.
fn ctrl_d_ends(mut terminal: Terminal) -> String {
    terminal.press(CTRL_D);
    let (status, screen) = terminal.finish();
    assert_eq!(status.code(), Some(0), "{screen}");
    screen
}

#[test]
fn tab_completes_the_tool_and_its_argument_and_the_question_is_answered() {
    let Some(mut terminal) = shell(None) else {
        return;
    };
    terminal.press(b"call bu");
    terminal.press(TAB);
    terminal.wait_for("ild");
    terminal.press(b" tar");
    terminal.press(TAB);
    terminal.wait_for("get=");
    terminal.press(b"all");
    terminal.press(ENTER);
    terminal.wait_for("Build all?");
    terminal.wait_for("go ahead");
    terminal.press(b"y");
    terminal.wait_for("built all");
    terminal.wait_for(PROMPT);
    let screen = ctrl_d_ends(terminal);
    assert!(screen.contains("presa> call build target="), "{screen}");
}

#[test]
fn a_required_argument_left_out_is_asked_for() {
    let Some(mut terminal) = shell(None) else {
        return;
    };
    terminal.press(b"call build");
    terminal.press(ENTER);
    terminal.wait_for("build needs target");
    terminal.wait_for("target");
    terminal.press(b"docs");
    terminal.press(ENTER);
    terminal.wait_for("Build docs?");
    terminal.wait_for("go ahead");
    terminal.press(b"y");
    terminal.wait_for("built docs");
    terminal.wait_for(PROMPT);
    ctrl_d_ends(terminal);
}

#[test]
fn a_task_is_followed_to_its_end_and_ctrl_c_while_one_runs_keeps_the_shell() {
    let Some(mut terminal) = shell(None) else {
        return;
    };
    terminal.press(b"call build target=web seconds=1 --task");
    terminal.press(ENTER);
    terminal.wait_for("go ahead");
    terminal.press(b"y");
    terminal.wait_for("building web");
    terminal.wait_for("built web");
    terminal.wait_for(PROMPT);

    terminal.press(b"call build target=all seconds=3600");
    terminal.press(ENTER);
    terminal.wait_for("go ahead");
    terminal.press(b"y");
    terminal.wait_for("building all");
    terminal.press(CTRL_C);
    terminal.wait_for("Interrupted: cancel the task, or detach");
    terminal.wait_for("detach");
    terminal.press(ENTER);
    terminal.wait_for("detached");
    terminal.wait_for(PROMPT);
    terminal.press(b"tools");
    terminal.press(ENTER);
    terminal.wait_for("Builds a target");
    terminal.wait_for(PROMPT);
    ctrl_d_ends(terminal);
}

#[test]
fn ctrl_c_at_the_prompt_clears_the_line_and_exit_ends_the_shell() {
    let config = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shell-history");
    let _ = std::fs::remove_dir_all(&config);
    let Some(mut terminal) = shell(Some(&config)) else {
        return;
    };
    terminal.press(b"call bu");
    terminal.press(CTRL_C);
    terminal.wait_for(PROMPT);
    terminal.press(b"tools");
    terminal.press(ENTER);
    terminal.wait_for("Builds a target");
    terminal.wait_for(PROMPT);
    terminal.press(b"exit");
    terminal.press(ENTER);
    let (status, screen) = terminal.finish();
    assert_eq!(status.code(), Some(0), "{screen}");
    let history = std::fs::read_to_string(config.join("shell_history")).unwrap_or_default();
    assert!(history.contains("tools"), "{history}");
    assert!(!history.contains("call bu"), "{history}");
}

/// With no terminal, the shell reads its lines from stdin, as a script
/// would give them: a question goes unanswered and is told once, a bad
/// line is told, and the lines after them still run.
#[test]
fn lines_from_a_script_run_in_turn() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let server = jobs_server();
    let mut child = Command::new(env!("CARGO_BIN_EXE_presa"))
        .args(["shell", &server])
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("presa runs");
    let lines = "call build target=all\nfrobnicate\ncall build target=all\ntools --json\nexit\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("--answer confirm.ok=true").count(),
        2,
        "each call tells its own question once: {stderr}"
    );
    assert!(stderr.contains("no command `frobnicate`"), "{stderr}");
    assert!(stdout.contains(r#""name": "build""#), "{stdout}");
}

/// A server named in presa's aliases opens a shell as its URL would; and
/// `servers`, which talks to no session, is not a command of the shell.
#[test]
fn a_shell_opens_on_a_server_given_by_its_alias() {
    let config = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shell-alias");
    let _ = std::fs::remove_dir_all(&config);
    std::fs::create_dir_all(&config).unwrap();
    let jobs = jobs_example::jobs_binary();
    let aliases = serde_json::json!({
        "mcpServers": {"jobs": {"command": jobs, "args": ["stdio"]}}
    });
    std::fs::write(config.join("servers.json"), aliases.to_string()).unwrap();
    let Some(mut terminal) = Terminal::start_in(&["shell", "presa:jobs"], &config) else {
        return;
    };
    terminal.wait_for(PROMPT);
    terminal.press(b"servers");
    terminal.press(ENTER);
    terminal.wait_for("`servers` is not a command of the shell");
    terminal.wait_for(PROMPT);
    terminal.press(b"tools");
    terminal.press(ENTER);
    terminal.wait_for("Builds a target");
    terminal.wait_for(PROMPT);
    ctrl_d_ends(terminal);
}

/// After `log-level` in the shell, the server's log messages show on
/// stderr for the rest of it (the build runs as a task, which logs
/// nothing; the read logs); the new commands run there as one-shot.
#[test]
fn the_log_level_holds_for_the_rest_of_the_shell() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let server = jobs_server();
    let mut child = Command::new(env!("CARGO_BIN_EXE_presa"))
        .args(["shell", &server, "--answer", "confirm.ok=true"])
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("presa runs");
    let lines = "read jobs://builds/web\nlog-level info\ncall build target=docs\n\
                 read jobs://builds/docs\ntemplates\nping --timeout 5\nexit\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("no build of web yet"), "{stdout}");
    assert!(
        stdout.contains("built docs\nbuilt docs\n"),
        "the call, then the read: {stdout}"
    );
    let logged = "[server log] info reading the build of docs";
    assert!(stderr.contains(logged), "{stderr}");
    assert!(
        !stderr.contains("of web"),
        "no log before log-level: {stderr}"
    );
    assert!(stdout.contains("jobs://builds/{target}"), "{stdout}");
    assert!(
        stderr.contains("--timeout"),
        "a connection option is refused: {stderr}"
    );
}

/// The server of [`tools_added_on_a_modern_server_complete_after_the_next_command`]:
/// over HTTP, 2026-07-28, with one tool that adds another.
fn growing() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| Served::new(Server::builder("growing", "1").tool(GrowTool).build()))
}

/// Adds the tool `freshly_added` to the server.
#[tool]
async fn grow() -> &'static str {
    let _ = growing().server.add_tool(FreshlyAddedTool);
    "grown"
}

/// A tool that only exists once `grow` ran.
#[tool]
async fn freshly_added() -> &'static str {
    "fresh"
}

/// A 2026-07-28 server tells no change outside a listen stream, so the
/// shell lists its tools again after each command: a tool that one
/// command added completes at the next prompt.
#[test]
fn tools_added_on_a_modern_server_complete_after_the_next_command() {
    let url = growing().url.clone();
    let Some(mut terminal) = Terminal::start(&["shell", &url]) else {
        return;
    };
    terminal.wait_for(PROMPT);
    terminal.press(b"call grow");
    terminal.press(ENTER);
    terminal.wait_for("grown");
    terminal.wait_for(PROMPT);
    terminal.press(b"call fresh");
    terminal.press(TAB);
    terminal.wait_for("ly_added");
    terminal.press(ENTER);
    terminal.wait_for("fresh");
    terminal.wait_for(PROMPT);
    ctrl_d_ends(terminal);
}
