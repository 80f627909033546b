//! `presa` in a real terminal: the jobs example's question asked as a
//! form in a pseudo-terminal, which util-linux's `script` provides, and
//! answered `y` as a person would.

#![cfg(unix)]

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The whole terminal output, once `presa` ends.
fn read_until(output: &mut impl Read, wanted: &str, seen: &mut String) -> bool {
    let mut buffer = [0u8; 4096];
    while !seen.contains(wanted) {
        match output.read(&mut buffer) {
            Ok(0) | Err(_) => return false,
            Ok(n) => seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
        }
    }
    true
}

#[test]
fn the_form_asks_in_a_terminal_and_the_answer_builds() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` (util-linux) to give presa a terminal");
        return;
    }
    let jobs = jobs_example::jobs_binary();
    let server = format!(
        "stdio:{} stdio",
        shell_words::quote(&jobs.to_string_lossy())
    );
    let command = shell_words::join([
        env!("CARGO_BIN_EXE_presa"),
        "call",
        &server,
        "build",
        "target=all",
    ]);
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut output = child.stdout.take().unwrap();
    let mut seen = String::new();
    assert!(read_until(&mut output, "Build all?", &mut seen), "{seen}");
    assert!(read_until(&mut output, "go ahead", &mut seen), "{seen}");
    stdin.write_all(b"y").unwrap();
    stdin.flush().unwrap();
    assert!(read_until(&mut output, "built all", &mut seen), "{seen}");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}: {seen}");
}
