//! The README's Getting started works as written. A new crate with exactly
//! its `[dependencies]` lines and its `src/main.rs` builds, with the
//! presa crates taken from this repository through `[patch.crates-io]`.
//! With `PRESA_PACKAGES` set to a folder of unpacked `.crate` files (as
//! `cargo package` writes them, one `NAME-VERSION` folder each), the
//! crates come from there instead: CI builds it that way, so a file the
//! packages leave out fails here, as it would for a user.
//! Then the test runs the server it built, lists its tools over stdio,
//! and calls them. Its tasks example is a doctest of the guide's Tasks
//! chapter, word for word, so it compiles and runs with the crate's
//! doctests.
//!
//! The contract with the README, in order:
//!
//! 1. Getting started has exactly one ```` ```toml ```` block, which holds
//!    `[dependencies]`, and one ```` ```rust ```` block, a whole
//!    `src/main.rs` that serves over stdio.
//! 2. Each `#[tool]` in that block is a tool the server lists, under its
//!    function's name or its `name = "..."`.
//! 3. Each tool answers a call whose arguments are filled from its input
//!    schema, and each question it asks is accepted with answers filled
//!    from the question's schema.

#[path = "common/jobs_example.rs"]
mod jobs_example;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use presa::client::{CallOutcome, Client, ClientTransport};
use presa::wire::{ElicitRequestParams, ElicitResult};
use serde_json::{Map, Value, json};

/// How long the whole stdio exchange may take: an upper bound, not a wait.
const EXCHANGE_LIMIT: Duration = Duration::from_secs(60);

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

/// A TOML string that names `path`.
fn toml_path(path: &Path) -> String {
    format!("{:?}", path.display().to_string().replace('\\', "/"))
}

/// The folders of the presa crates that stand in for crates.io's: the
/// unpacked packages under `PRESA_PACKAGES` if it is set, or else this
/// repository's.
fn presa_crates() -> [(&'static str, PathBuf); 3] {
    const NAMES: [&str; 3] = ["presa-mcp", "presa-runtime", "presa-macros"];
    match std::env::var_os("PRESA_PACKAGES") {
        Some(packages) => NAMES.map(|name| {
            let folder = Path::new(&packages).join(format!("{name}-{}", env!("CARGO_PKG_VERSION")));
            assert!(
                folder.join("Cargo.toml").is_file(),
                "PRESA_PACKAGES names no unpacked package at {}. Unpack the \
                 `.crate` files that `cargo package` writes into that folder.",
                folder.display()
            );
            (name, folder)
        }),
        None => {
            let repository = repository();
            [
                ("presa-mcp", repository.clone()),
                ("presa-runtime", repository.join("presa-runtime")),
                ("presa-macros", repository.join("presa-macros")),
            ]
        }
    }
}

/// The crate's manifest: the README's `dependencies` block as it is, and
/// the presa crates of [`presa_crates`] in place of those on crates.io.
fn manifest(dependencies: &str) -> String {
    let patch = presa_crates()
        .iter()
        .map(|(name, path)| format!("{name} = {{ path = {} }}\n", toml_path(path)))
        .collect::<String>();
    format!(
        "[package]\nname = \"readme-getting-started\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n{dependencies}\n\n[patch.crates-io]\n{patch}"
    )
}

/// The names of the tools that `main_rs` defines with `#[tool]`: each
/// function's name, or the `name = "..."` its attribute gives.
fn tool_names(main_rs: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut attribute: Option<String> = None;
    for line in main_rs.lines().map(str::trim) {
        if line.starts_with("#[tool]") || line.starts_with("#[tool(") {
            attribute = Some(line.to_owned());
        } else if let Some(tool) = &attribute
            && let Some((_, after)) = line.split_once("fn ")
        {
            let function = after
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            let renamed = tool
                .split_once("name = \"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| name);
            names.push(renamed.unwrap_or(function).to_owned());
            attribute = None;
        }
    }
    names
}

/// A value of the JSON schema `schema`, if it is of a plain type: the first
/// of an `enum`, or a string, number, boolean, array or object.
fn example_of(schema: &Value) -> Option<Value> {
    if let Some(first) = schema["enum"].get(0) {
        return Some(first.clone());
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.iter().find(|k| *k != "null")?.as_str()?,
        kind => kind.as_str()?,
    };
    Some(match kind {
        "string" => json!("presa"),
        "integer" | "number" => json!(1),
        "boolean" => json!(true),
        "array" => json!([]),
        "object" => json!({}),
        _ => return None,
    })
}

/// An object with a value for each required property of the object schema
/// `schema`, or `None` if one of them is not of a plain type.
fn filled(schema: &Value) -> Option<Map<String, Value>> {
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    required
        .iter()
        .map(|name| {
            let name = name.as_str()?;
            Some((name.to_owned(), example_of(&schema["properties"][name])?))
        })
        .collect()
}

/// Writes `text` to `path`, unless it holds that already: a file rewritten
/// with the same text would still make cargo build the crate again.
fn write(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Builds the Getting started crate in the workspace's target folder, so
/// that only what changed is built again; returns its binary.
fn build(dependencies: &str, main_rs: &str) -> PathBuf {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme");
    let krate = work.join("crate");
    write(&krate.join("Cargo.toml"), &manifest(dependencies));
    write(&krate.join("src/main.rs"), main_rs);
    // The repository's lock file, so the crate resolves the versions the
    // repository tested. Cargo then adds the crate and the patches to it,
    // so it is copied again only when the repository's has changed.
    let lock = std::fs::read_to_string(repository().join("Cargo.lock")).unwrap();
    if std::fs::read_to_string(work.join("repository.lock")).ok() != Some(lock.clone()) {
        write(&krate.join("Cargo.lock"), &lock);
        write(&work.join("repository.lock"), &lock);
    }

    // The workspace's own target folder: the crate's dependencies that
    // match the workspace's (the presa crates among them, when they come
    // from this repository) are built already, so only the rest is built.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the temporary folder lies inside the target folder")
        .to_owned();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS");
    // The environment of a `cargo build` in a shell, so that one there
    // shares this build's artifacts (see `jobs_example`).
    #[cfg(not(presa_wine))]
    for (variable, _) in std::env::vars_os() {
        if variable
            .to_str()
            .is_some_and(jobs_example::describes_the_test_package)
        {
            build.env_remove(variable);
        }
    }
    let output = build.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "the README's Getting started crate does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    target.join("debug").join(format!(
        "readme-getting-started{}",
        std::env::consts::EXE_SUFFIX
    ))
}

/// Answers a question with a value for each field it requires.
async fn accept_filled(input: presa::client::PendingInput<ElicitRequestParams>) -> ElicitResult {
    match &input.params {
        ElicitRequestParams::Form {
            requested_schema, ..
        } => match filled(requested_schema) {
            Some(answer) => ElicitResult::accept(Value::Object(answer)),
            None => ElicitResult::decline(),
        },
        _ => ElicitResult::decline(),
    }
}

/// Lists the tools of the server at `binary` over stdio, checks that
/// `expected` are among them, and calls each whose arguments are plain.
/// Returns the tools it called.
async fn exchange(binary: &Path, expected: &[String]) -> Vec<String> {
    let mut command = tokio::process::Command::new(binary);
    command.stderr(Stdio::null());
    let client = Client::builder()
        .on_elicitation(accept_filled)
        .connect(ClientTransport::spawn(command).expect("the built server starts"));
    let tools = client
        .list_tools()
        .await
        .expect("the server lists its tools");
    let listed: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    let mut called = Vec::new();
    for name in expected {
        let tool = tools
            .iter()
            .find(|tool| tool.name == *name)
            .unwrap_or_else(|| panic!("the README's `{name}` tool is not listed: {listed:?}"));
        let Some(arguments) = filled(&tool.input_schema) else {
            continue;
        };
        let outcome = client
            .call_tool(name, Value::Object(arguments.clone()))
            .await
            .unwrap_or_else(|e| panic!("calling `{name}` with {arguments:?} failed: {e}"));
        let CallOutcome::Complete(result) = outcome else {
            panic!("`{name}` answered with a task, though the client asked for none");
        };
        assert!(
            !result.is_error() && result.text().is_some_and(|text| !text.is_empty()),
            "`{name}` with {arguments:?} answered {result:?}"
        );
        called.push(name.clone());
    }
    client.close().await.expect("the server exits");
    called
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "runs cargo, a Linux program that a test under Wine cannot start"
)]
fn the_getting_started_crate_builds_and_serves_over_stdio() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let toml = blocks(&readme, "Getting started", "toml");
    let rust = blocks(&readme, "Getting started", "rust");
    assert_eq!(
        (toml.len(), rust.len()),
        (1, 1),
        "Getting started has one ```toml block and one ```rust block"
    );
    assert!(
        toml[0].lines().any(|l| l.trim() == "[dependencies]")
            && toml[0].lines().any(|l| l.starts_with("presa-mcp = ")),
        "the toml block is `[dependencies]` with a `presa-mcp` line:\n{}",
        toml[0]
    );
    let tools = tool_names(&rust[0]);
    assert!(
        !tools.is_empty(),
        "the rust block defines no `#[tool]`:\n{}",
        rust[0]
    );

    let binary = build(&toml[0], &rust[0]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let called = runtime
        .block_on(async { tokio::time::timeout(EXCHANGE_LIMIT, exchange(&binary, &tools)).await })
        .unwrap_or_else(|_| panic!("no answer over stdio within {EXCHANGE_LIMIT:?}"));
    assert!(
        !called.is_empty(),
        "none of the README's tools {tools:?} takes arguments this test can fill"
    );
}

#[test]
fn the_tools_of_a_main_rs_are_found() {
    let main_rs = "use presa::prelude::*;\n\n/// Adds.\n#[tool]\nasync fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\n\
                   #[tool(task = \"optional\")]\npub async fn greet_someone(name: String) -> String {\n    name\n}\n\n\
                   #[tool(name = \"echo\", title = \"Echo\")]\nfn repeat(text: String) -> String {\n    text\n}\n\n\
                   fn not_a_tool() {}\n";
    assert_eq!(tool_names(main_rs), ["add", "greet_someone", "echo"]);
}

#[test]
fn arguments_are_filled_from_a_schema_of_plain_types() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": ["integer", "null"]},
            "mode": {"enum": ["fast", "slow"]},
            "extra": {"type": "string"},
        },
        "required": ["name", "count", "mode"],
    });
    assert_eq!(
        Value::Object(filled(&schema).unwrap()),
        json!({"name": "presa", "count": 1, "mode": "fast"})
    );
    let nested = json!({"properties": {"at": {"$ref": "#/$defs/Time"}}, "required": ["at"]});
    assert_eq!(filled(&nested), None);
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

#[test]
fn the_readme_lists_every_guide_chapter_in_order() {
    let guide = std::fs::read_to_string(repository().join("src/guide.rs")).unwrap();
    let chapters: Vec<&str> = guide
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod ")?.strip_suffix(" {}"))
        .collect();
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let listed: Vec<&str> = readme
        .lines()
        .filter_map(|line| {
            let link = line.split("/presa/guide/").nth(1)?;
            link.strip_suffix("/index.html)")
        })
        .collect();
    assert!(chapters.len() > 10, "{chapters:?}");
    assert_eq!(
        listed, chapters,
        "the README's Documentation list must name src/guide.rs's chapters, in its order"
    );
}
