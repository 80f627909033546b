//! Doc comments that only repeat the name of what they document.
//!
//! A doc comment should tell you something the name does not: what a field
//! carries, its unit, when it is absent, why a type exists. `/// The task.`
//! over `task: Task` tells you nothing, and it hides the items whose docs
//! matter. This test finds such lines in the crates' own sources, so that
//! they do not come back.
//!
//! The rule, in order:
//!
//! 1. Only a doc comment of exactly one `///` line counts. A longer comment
//!    says more by its length alone.
//! 2. The item it documents is the next line that is not an attribute. Its
//!    name is the identifier that line defines: a field, a variant, or the
//!    name after `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`
//!    or `mod`.
//! 3. The line is boilerplate when every word of the comment, leaving out a
//!    few small words ("the", "a", "of" ...), is a word of that name. Names
//!    split into words at `_` and at each capital letter; a few short forms
//!    count as their long form ("meta" is "metadata").

use std::fs;
use std::path::{Path, PathBuf};

/// The source folders this test reads, from the repository's root.
const SOURCES: &[&str] = &[
    "src",
    "presa-runtime/src",
    "presa-macros/src",
    "presa-redis/src",
    "presa-cli/src",
];

/// Words a doc line may use without saying anything.
const SMALL_WORDS: &[&str] = &["the", "a", "an", "its", "of", "this", "to", "is", "for"];

/// Short forms in names and the long form a doc comment uses.
const SAME_WORDS: &[(&str, &str)] = &[
    ("meta", "metadata"),
    ("id", "identifier"),
    ("params", "parameters"),
    ("args", "arguments"),
    ("ms", "milliseconds"),
];

/// Keywords after which the defined item's name follows.
const DEFINING: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union",
];

/// One doc line that only repeats its item's name.
#[derive(Debug, PartialEq)]
struct Boilerplate {
    file: String,
    line: usize,
    doc: String,
    name: String,
}

/// The words of a name: `ttl_ms` is `ttl ms`, `ResourceLink` is
/// `resource link`, `HTTPServer` is `httpserver`.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for ch in name.trim_start_matches("r#").chars() {
        if ch == '_' {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if ch.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = ch.is_lowercase() || ch.is_ascii_digit();
        word.extend(ch.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The words of a doc line, lower case, without punctuation or small words.
fn doc_words(doc: &str) -> Vec<String> {
    doc.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .flat_map(name_words)
        .filter(|w| !SMALL_WORDS.contains(&w.as_str()))
        .collect()
}

/// Whether a doc word is one of the name's words, counting short forms.
fn same_word(doc_word: &str, name_words: &[String]) -> bool {
    name_words.iter().any(|n| {
        n == doc_word
            || SAME_WORDS
                .iter()
                .any(|(short, long)| n == short && doc_word == *long)
    })
}

/// The name a source line defines, if it defines one (rule 2).
fn defined_name(line: &str) -> Option<String> {
    let tokens: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
        .filter(|t| !t.is_empty())
        .collect();
    // `pub(crate) fn name`, `pub struct Name<T>`, `async fn name`...
    if let Some(at) = tokens.iter().position(|t| DEFINING.contains(t)) {
        return tokens.get(at + 1).map(|t| t.to_string());
    }
    // A field `pub name: Type` or `name: Type`, or a variant `Name`,
    // `Name(..)`, `Name { .. }`, `Name = 3`.
    let rest = line
        .trim_start()
        .trim_start_matches("pub(crate)")
        .trim_start_matches("pub(super)")
        .trim_start_matches("pub")
        .trim_start();
    let ident: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '#')
        .collect();
    if ident.is_empty() || ["impl", "let", "use", "macro_rules"].contains(&ident.as_str()) {
        return None;
    }
    let after = rest[ident.len()..].trim_start();
    let field_or_variant = after.starts_with(':') && !after.starts_with("::")
        || after.is_empty()
        || after.starts_with(',')
        || after.starts_with('(')
        || after.starts_with('{')
        || after.starts_with('=');
    field_or_variant.then_some(ident)
}

/// Every boilerplate doc line of one file (rules 1 to 3).
fn boilerplate_in(file: &str, source: &str) -> Vec<Boilerplate> {
    let lines: Vec<&str> = source.lines().collect();
    let is_doc = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| l.trim_start().starts_with("///"))
    };
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !is_doc(i) || (i > 0 && is_doc(i - 1)) || is_doc(i + 1) {
            continue;
        }
        let doc = line.trim_start().trim_start_matches("///").trim();
        let Some(item) = lines[i + 1..]
            .iter()
            .find(|l| !l.trim_start().starts_with("#[") && !l.trim().is_empty())
        else {
            continue;
        };
        let Some(name) = defined_name(item) else {
            continue;
        };
        let words = doc_words(doc);
        let name_words = name_words(&name);
        if !words.is_empty() && words.iter().all(|w| same_word(w, &name_words)) {
            found.push(Boilerplate {
                file: file.to_owned(),
                line: i + 1,
                doc: doc.to_owned(),
                name,
            });
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_doc_line_only_repeats_its_items_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in SOURCES {
        rust_files(&root.join(folder), &mut files);
    }
    assert!(files.len() > 100, "read only {} files", files.len());
    let mut found = Vec::new();
    for path in &files {
        let source = fs::read_to_string(path).expect("a readable source file");
        let rel = path.strip_prefix(root).expect("under the root");
        found.extend(boilerplate_in(&rel.display().to_string(), &source));
    }
    let listing: Vec<String> = found
        .iter()
        .map(|b| format!("{}:{}: /// {}  (over `{}`)", b.file, b.line, b.doc, b.name))
        .collect();
    assert!(
        found.is_empty(),
        "{} doc lines only repeat the name of what they document. \
         Say what the item carries, its unit or when it is absent, or \
         remove the line:\n{}",
        found.len(),
        listing.join("\n")
    );
}

#[test]
fn a_doc_line_that_repeats_the_name_is_found() {
    let source = "\
pub struct Task {
    /// The task identifier.
    pub task_id: String,
    /// Metadata.
    #[serde(rename = \"_meta\")]
    pub meta: Option<Value>,
    /// How long the server keeps the task after it ends, in milliseconds.
    pub ttl_ms: u64,
}

/// The resource link.
pub enum ResourceLink {
    /// Text.
    Text(String),
}

/// Starts the server.
/// It returns when the transport closes.
pub fn serve() {}
";
    let found = boilerplate_in("made_up.rs", source);
    let names: Vec<&str> = found.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["task_id", "meta", "ResourceLink", "Text"]);
    assert_eq!(found[0].line, 2);
}

#[test]
fn names_split_into_words() {
    assert_eq!(name_words("ttl_ms"), ["ttl", "ms"]);
    assert_eq!(name_words("ResourceLink"), ["resource", "link"]);
    assert_eq!(name_words("r#type"), ["type"]);
    assert_eq!(
        defined_name("    pub(crate) async fn open("),
        Some("open".into())
    );
    assert_eq!(defined_name("    Working,"), Some("Working".into()));
    assert_eq!(defined_name("    let x = 3;"), None);
    assert_eq!(defined_name("    foo::bar();"), None);
}
