//! Reading a host's config file leniently: comments and trailing commas
//! are allowed in every file, since some hosts write or accept them and
//! a reader loses nothing by accepting more. A file that is missing is no
//! error; one that cannot be read or parsed is a warning naming the file
//! and the line, and the other files still count.

use std::io::ErrorKind;
use std::path::Path;

use serde_json::Value;

/// The JSON in the file at `path`: `Ok(None)` when there is no such
/// file, `Err` with a warning to show when it cannot be read or parsed.
pub fn read(path: &Path) -> Result<Option<Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    parse(&text).map(Some).map_err(|e| {
        format!(
            "{} is not valid JSON ({e}); its servers are left out",
            path.display()
        )
    })
}

/// `text` as JSON with comments and trailing commas.
fn parse(text: &str) -> Result<Value, jsonc_parser::errors::ParseError> {
    jsonc_parser::parse_to_serde_value(text, &jsonc_parser::ParseOptions::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_read() {
        let value = parse("{\n // a comment\n \"a\": [1, 2,], /* more */\n}").unwrap();
        assert_eq!(value, serde_json::json!({"a": [1, 2]}));
    }

    #[test]
    fn a_malformed_file_is_a_warning_naming_the_file_and_line() {
        let dir = std::env::temp_dir().join(format!("presa-hosts-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("broken.json");
        std::fs::write(&path, "{\n  \"mcpServers\": {\n    \"a\": \n}\n").unwrap();
        let warning = read(&path).unwrap_err();
        assert!(warning.contains("broken.json"), "{warning}");
        assert!(warning.contains("on line 4"), "{warning}");
        assert!(warning.ends_with("its servers are left out"), "{warning}");
        assert_eq!(read(&dir.join("missing.json")), Ok(None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
