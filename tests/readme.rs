//! The README's code compiles. Its "Getting started" is complete: a new
//! crate with exactly its `Cargo.toml` lines (with `presa` taken from this
//! repository) and its `src/main.rs` builds. Its tasks example is a doctest
//! of the guide's Tasks chapter, word for word, so it compiles and runs
//! with the crate's doctests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fenced code blocks of `language` in the README section `heading`.
fn blocks(readme: &str, heading: &str, language: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("the README has a `## {heading}` section"));
    let fence = format!("```{language}\n");
    section
        .split(&fence)
        .skip(1)
        .map(|rest| rest.split("\n```").next().unwrap_or_default().to_owned())
        .collect()
}

/// A rustdoc block as a reader sees it: without its hidden (`# `) lines.
fn shown(block: &str) -> String {
    block
        .lines()
        .filter(|line| *line != "#" && !line.starts_with("# "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The README's dependencies, with `presa` pointing at this repository.
fn manifest(dependencies: &str) -> String {
    let presa = repository().display().to_string().replace('\\', "/");
    let dependencies = dependencies
        .lines()
        .map(|line| match line.strip_prefix("presa-mcp = ") {
            Some(_) => format!("presa-mcp = {{ path = {presa:?} }}"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "[package]\nname = \"readme-getting-started\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n{dependencies}\n"
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "runs cargo, a Linux program that a test under Wine cannot start"
)]
fn the_getting_started_lines_are_enough() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let toml = blocks(&readme, "Getting started", "toml");
    let rust = blocks(&readme, "Getting started", "rust");
    assert_eq!(
        (toml.len(), rust.len()),
        (1, 1),
        "one Cargo.toml and one main.rs"
    );
    assert!(
        toml[0].lines().any(|l| l.starts_with("presa-mcp = ")),
        "{}",
        toml[0]
    );

    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme");
    let krate = work.join("crate");
    write(&krate.join("Cargo.toml"), &manifest(&toml[0]));
    write(&krate.join("src/main.rs"), &rust[0]);
    // The repository's lock file, so the crate resolves the versions the
    // repository tested.
    std::fs::copy(repository().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["check", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", work.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the README's getting-started crate does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_tasks_example_is_the_guides_doctest() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let chapter = std::fs::read_to_string(repository().join("src/guide/tasks.md")).unwrap();
    let example = blocks(&readme, "Tasks in one example", "rust");
    assert_eq!(example.len(), 1, "one example");
    let doctests: Vec<String> = chapter
        .split("```rust\n")
        .skip(1)
        .map(|rest| shown(rest.split("\n```").next().unwrap_or_default()))
        .collect();
    assert!(
        doctests.contains(&example[0]),
        "the README's tasks example is not a doctest of src/guide/tasks.md:\n{}",
        example[0]
    );
}
