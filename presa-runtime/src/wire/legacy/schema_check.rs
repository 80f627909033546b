//! The 2025-11-25 `schema.json` as a witness for the legacy wire types'
//! unit tests.
//!
//! The schema is read from the shared spec folder beside the repository
//! (`shared/spec/mcp-2025-11-25`), never copied into it. Where that folder
//! is missing (a clone on its own) a check is skipped with a note, except
//! in CI (`CI` set), where a missing schema fails the test.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{Value, json};

/// Panics, naming the violations, unless `value` satisfies the legacy
/// schema's `definition`.
pub(crate) fn assert_valid(definition: &str, value: &Value) {
    let Some(defs) = definitions() else { return };
    assert!(
        defs.get(definition).is_some(),
        "2025-11-25 defines no `{definition}`"
    );
    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "$ref": format!("#/$defs/{definition}"),
    });
    let validator = jsonschema::validator_for(&document).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at `{}`", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "breaks 2025-11-25 `{definition}`:\n{errors:#?}\nvalue: {value}"
    );
}

/// The schema's `$defs`; `None` when the schema is not beside the
/// repository, outside CI.
fn definitions() -> Option<&'static Value> {
    static DEFS: OnceLock<Option<Value>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let path = spec_folder().join("mcp-2025-11-25/schema.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
                Some(schema["$defs"].clone())
            }
            Err(e) if std::env::var_os("CI").is_some() => {
                panic!("cannot read {}: {e}", path.display())
            }
            Err(_) => {
                eprintln!("note: no shared spec folder; legacy shapes are not checked");
                None
            }
        }
    })
    .as_ref()
}

/// `shared/spec` in the first folder above the crate that holds one.
fn spec_folder() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|folder| folder.join("shared/spec"))
        .find(|candidate| candidate.is_dir())
        .unwrap_or_else(|| manifest.join("../../shared/spec"))
}
