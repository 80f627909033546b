//! The "proved by" column of `docs/bad-input.md` and `docs/security.md`
//! names tests. This test checks that each named test still exists, so
//! that a renamed or moved test cannot leave a row pointing at nothing.
//!
//! A cell names tests in these forms, separated by commas:
//!
//! 1. `tests/http.rs::name`: a function in a test file of this crate or
//!    of a member crate (`presa-cli/tests/...`);
//! 2. `crate::server::http::body::tests::name`: a function in
//!    `presa-runtime`, found by walking its module path to a file;
//! 3. `::name`, `…::name` or a bare `name`: a function beside the one
//!    named before it in the same cell;
//! 4. a path to a file or folder (`tests/legacy_outputs.rs`,
//!    `scripts/interop.sh`), which must exist;
//! 5. the word "same": the cell above proves this row too.
//!
//! A command-line flag in a code span (`--strict`) is prose about the
//! test before it, and is skipped.
//!
//! A cell in another form fails the test, so that a typo is not read as
//! prose and skipped.

use std::fs;
use std::path::{Path, PathBuf};

/// The documents whose tables name their proofs.
const DOCUMENTS: [&str; 2] = ["docs/bad-input.md", "docs/security.md"];

#[test]
fn every_test_the_docs_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for document in DOCUMENTS {
        let text = fs::read_to_string(root.join(document)).unwrap();
        for (line_number, cell) in proof_cells(&text) {
            let at = format!("{document}:{line_number}");
            let mut previous: Option<Place> = None;
            for name in code_spans(&cell) {
                if name.starts_with("--") {
                    continue;
                }
                checked += 1;
                match check(root, &name, previous.as_ref()) {
                    Ok(place) => previous = Some(place),
                    Err(why) => missing.push(format!("{at}: `{name}`: {why}")),
                }
            }
            let bare = cell.replace('`', "");
            if code_spans(&cell).is_empty() && bare.trim() != "same" {
                missing.push(format!("{at}: the cell names no test: {cell}"));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} proofs found: is the table format still read?"
    );
    assert!(
        missing.is_empty(),
        "rows in the docs name tests that do not exist; rename them there too:\n{}",
        missing.join("\n")
    );
}

/// Where a named test was found: the files a following `::name` may be in.
#[derive(Clone)]
struct Place {
    files: Vec<PathBuf>,
}

/// The last cell of every table row under a `| ... | proved by |` header,
/// with its line number.
fn proof_cells(text: &str) -> Vec<(usize, String)> {
    let mut cells = Vec::new();
    let mut in_table = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if line.ends_with("| proved by |") {
            in_table = true;
            continue;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        let inner = line.trim_end_matches('|');
        let last = split_cells(inner).pop().unwrap_or_default();
        cells.push((index + 1, last.trim().to_owned()));
    }
    cells
}

/// Splits a row at the `|` that are not inside a code span.
fn split_cells(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut in_code = false;
    for c in row.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                cells.last_mut().unwrap().push(c);
            }
            '|' if !in_code => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
    }
    cells
}

/// The text of each code span in `cell`.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Finds `name`, read after `previous`.
fn check(root: &Path, name: &str, previous: Option<&Place>) -> Result<Place, String> {
    if let Some(path) = name.strip_prefix("crate::") {
        return in_runtime(root, path);
    }
    if let Some((file, function)) = name.split_once(".rs::") {
        // A function in a module of the file: `tests/connection.rs::cap::name`.
        let function = function.rsplit("::").next().unwrap_or(function);
        let file = root.join(format!("{file}.rs"));
        return has_function(&[file], function);
    }
    if name.contains('/') || name.ends_with(".rs") || name.ends_with(".sh") {
        let path = root.join(name.trim_end_matches('/'));
        return if path.exists() {
            Ok(Place {
                files: files_of(&path),
            })
        } else {
            Err(format!("{} does not exist", path.display()))
        };
    }
    let function = name.trim_start_matches('…').trim_start_matches("::");
    let is_identifier = !function.is_empty()
        && function
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    match previous {
        Some(place) if is_identifier => has_function(&place.files, function),
        _ => Err("not a test's name, and no test named before it in the cell".into()),
    }
}

/// Walks `path` (after `crate::`) through `presa-runtime/src` to the file
/// of its deepest module, then looks there for its last segment.
fn in_runtime(root: &Path, path: &str) -> Result<Place, String> {
    let segments: Vec<&str> = path.split("::").collect();
    let mut directory = root.join("presa-runtime/src");
    let mut file = directory.join("lib.rs");
    let mut rest = &segments[..];
    while let Some((segment, after)) = rest.split_first() {
        let as_file = directory.join(format!("{segment}.rs"));
        let as_folder = directory.join(segment).join("mod.rs");
        if as_file.exists() {
            file = as_file;
        } else if as_folder.exists() {
            file = as_folder;
        } else {
            break;
        }
        directory = directory.join(segment);
        rest = after;
    }
    let files = vec![file];
    match rest {
        [] => Ok(Place { files }),
        [.., module] if *module == "tests" => has_module(&files, module),
        [.., function] => has_function(&files, function),
    }
}

/// Every `.rs` file at `path`, or in it when it is a folder.
fn files_of(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_owned()];
    }
    let mut files = Vec::new();
    if let Ok(entries) = fs::read_dir(path) {
        for entry in entries.flatten() {
            files.extend(files_of(&entry.path()));
        }
    }
    files.retain(|file| file.extension().is_some_and(|e| e == "rs"));
    files
}

fn has_function(files: &[PathBuf], function: &str) -> Result<Place, String> {
    has_item(files, &format!("fn {function}("), function)
}

fn has_module(files: &[PathBuf], module: &str) -> Result<Place, String> {
    has_item(files, &format!("mod {module}"), module)
}

/// Whether one of `files` holds `needle`; a macro-made test counts when
/// the file names it as the first argument of a call (`case!(name, …)`).
fn has_item(files: &[PathBuf], needle: &str, name: &str) -> Result<Place, String> {
    for file in files {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        if text.contains(needle) || text.contains(&format!("!({name},")) {
            return Ok(Place {
                files: files.to_vec(),
            });
        }
    }
    let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Err(format!("not found in {}", shown.join(", ")))
}
