//! The command line's own documents, run as a user runs them: each
//! command's `--help` lists the exit statuses it can end with, and
//! `presa completions` writes scripts the shells accept.

#[allow(dead_code)]
mod common;

use common::presa;

/// The commands `presa --help` lists, read from its `Commands:` section.
fn commands() -> Vec<String> {
    let out = presa(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap();
    let names: Vec<String> = section
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 14, "{names:?}");
    names
}

/// The statuses an `Exit status:` section of `help` lists.
fn statuses(help: &str) -> Vec<u32> {
    let section = help
        .split("Exit status:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Exit status section in:\n{help}"));
    section
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next()?.parse().ok())
        .collect()
}

#[test]
fn every_command_lists_its_exit_statuses() {
    let out = presa(&["--help"]);
    let all = statuses(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(all, [0, 1, 2, 3, 4, 5, 6, 130]);
    for command in commands() {
        let out = presa(&[&command, "--help"]);
        assert!(out.status.success(), "{command} --help");
        let listed = statuses(&String::from_utf8_lossy(&out.stdout));
        assert!(
            listed.starts_with(&[0]) && listed.contains(&2),
            "{command}: {listed:?}"
        );
        assert!(listed.iter().all(|code| all.contains(code)), "{command}");
    }
    // A call can end each way; a listing never reports a tool's error.
    let call = presa(&["call", "--help"]);
    assert_eq!(statuses(&String::from_utf8_lossy(&call.stdout)), all);
    let tools = presa(&["tools", "--help"]);
    assert!(!statuses(&String::from_utf8_lossy(&tools.stdout)).contains(&1));
}

#[test]
fn the_readme_lists_the_same_statuses_as_help() {
    let readme = include_str!("../README.md");
    let table = readme
        .split("## Exit status\n")
        .nth(1)
        .expect("an Exit status section");
    let rows: Vec<u32> = table
        .lines()
        .filter_map(|line| line.strip_prefix("| ")?.split(' ').next()?.parse().ok())
        .collect();
    let out = presa(&["--help"]);
    assert_eq!(rows, statuses(&String::from_utf8_lossy(&out.stdout)));
}

#[test]
fn completion_scripts_name_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = presa(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell} lacks {command}");
        }
    }
}

#[cfg(unix)]
#[test]
fn bash_accepts_the_bash_script() {
    let out = presa(&["completions", "bash"]);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("presa.bash");
    std::fs::write(&path, &out.stdout).unwrap();
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .output()
        .expect("bash runs");
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    // Loaded, it completes a command's name.
    let script = format!(
        "source {}; COMP_WORDS=(presa completi); COMP_CWORD=1; _presa presa completi presa; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let completed = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("bash runs");
    let offered = String::from_utf8_lossy(&completed.stdout);
    assert_eq!(offered.trim(), "completions", "{offered}");
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = presa(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("possible values: bash"), "{said}");
}
