//! Most of the facade's integration tests, in one test binary.
//!
//! Each `tests/NAME.rs` listed here is a module of this binary, not a
//! binary of its own. Each test binary links all of presa and its
//! dependencies, so fifty of them cost CI minutes of linking and
//! gigabytes of disk, twice over with the Windows build. The files that
//! must be binaries of their own are `[[test]]` targets in Cargo.toml,
//! each with its reason there. Run one file's tests by its module path:
//! `cargo test --test suite protocol::`.
//!
//! Cargo finds no test file by itself here (`autotests = false`), so
//! [`every_test_file_runs`] fails for a file that is neither a module
//! below nor a `[[test]]` target: none is left out unseen.

mod common;
// Helpers that several of the files below share, loaded once.
#[path = "common/oauth.rs"]
mod issuer;
#[path = "common/jobs_example.rs"]
mod jobs_example;
#[path = "common/process_start.rs"]
mod process_start;

mod apps;
mod cancellation;
mod client;
mod client_eras;
mod client_surface;
mod completion;
mod connection;
mod doc_lines;
mod docs_proofs;
mod dormant;
mod elicit_schema;
mod errors;
mod examples;
mod extension_example;
mod extractors;
mod forms;
mod http;
mod http_legacy;
mod http_redirect;
mod http_serve;
mod in_place;
mod layers;
mod leases;
mod legacy;
mod legacy_http;
mod legacy_outputs;
mod legacy_replicas;
mod legacy_tasks;
mod list_changes;
mod macro_expansion;
mod middleware;
mod mrtr;
mod oauth;
mod oauth_client;
mod oauth_client_urls;
mod oauth_credentials;
mod output_schema;
mod prompts;
mod protocol;
mod resources;
mod sampling_declined;
mod schema_portability;
mod scopes;
mod shutdown;
mod skills_client;
mod skills_server;
mod stdio_process;
mod surface_macros;
mod task_store_failures;
mod tasks;
mod tasks_extension_doc;
mod tracing_spans;

/// Every `tests/*.rs` is a module of this binary or a `[[test]]` target
/// of its own, and only one of the two.
#[test]
fn every_test_file_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(root.join("tests/suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "suite")
        .collect();
    files.sort();
    let mut wrong = Vec::new();
    for name in &files {
        let module = suite.lines().any(|line| line == format!("mod {name};"));
        let target = test_targets(&manifest).any(|target| target == name);
        match (module, target) {
            (true, false) | (false, true) => {}
            (false, false) => wrong.push(format!(
                "tests/{name}.rs runs nowhere: add `mod {name};` to tests/suite.rs, \
                 or a `[[test]]` target for it to Cargo.toml"
            )),
            (true, true) => wrong.push(format!(
                "tests/{name}.rs runs twice: it is a module of tests/suite.rs and a \
                 `[[test]]` target of its own"
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The names of the `[[test]]` targets of `manifest`.
fn test_targets(manifest: &str) -> impl Iterator<Item = &str> {
    let mut section = "";
    manifest.lines().filter_map(move |line| {
        if line.starts_with('[') {
            section = line;
        }
        let name = line.strip_prefix("name = \"")?.strip_suffix('"')?;
        (section == "[[test]]").then_some(name)
    })
}
