//! A small reader of Rust source for `tests/layers.rs`: tokens without
//! comments, the `use` trees and inline `crate::`/`super::` paths of each
//! file, and the module tree that the `mod` lines declare.
//!
//! It is a reader, not a compiler. It reads:
//!
//! 1. tokens, skipping comments (`//`, `///`, `//!`, nested `/* */`) and
//!    keeping string and char literals as single tokens, so that a path in a
//!    comment or a string is never read as an import;
//! 2. items marked `#[cfg(test)]` (or `#[cfg(all(test, …))]`): skipped whole,
//!    so test modules, test helpers and `#[cfg(test)] mod x;` files are not
//!    part of the layers;
//! 3. `use` trees (`{}` groups, `as` renames, globs, `self`) and inline paths
//!    that start with `crate`, `$crate`, `super`, `self`, a child module, or a
//!    name a `use` line bound to a module;
//! 4. the module tree, from `lib.rs` down its `mod x;` lines (and
//!    `#[path = "…"]`), so each file knows its module path.
//!
//! What it cannot see: paths a macro builds from pieces, and names brought in
//! by a glob and then used bare. Both are rare in this crate, and the layer
//! rules ask for named imports anyway.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// What a token is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An identifier or keyword (`r#x` is `x`).
    Ident,
    /// One punctuation character, or `::`.
    Punct,
    /// A string, char or number literal; `text` is a string's content.
    Literal,
    /// `'a`.
    Lifetime,
}

/// One token and the line it starts on (1-based).
#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

/// Splits `src` into tokens, dropping comments and whitespace.
pub fn tokenize(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let n = c.len();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let push =
        |out: &mut Vec<Token>, kind, text: String, line| out.push(Token { kind, text, line });
    while i < n {
        let ch = c[i];
        let start = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < n && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < n {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let s = i;
            while i < n && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[s..i].iter().collect();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#'))) {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                let s = i;
                while i < n && !(c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#')) {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
                push(
                    &mut out,
                    Kind::Literal,
                    c[s..i.min(n)].iter().collect(),
                    start,
                );
                i += 1 + hashes;
            } else if word == "r" && at(i) == '#' {
                i += 1;
                let s = i;
                while i < n && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                push(&mut out, Kind::Ident, c[s..i].iter().collect(), start);
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                let (text, end) = quoted(&c, i, &mut line);
                push(&mut out, Kind::Literal, text, start);
                i = end;
            } else if word == "b" && at(i) == '\'' {
                i = char_literal(&c, i);
                push(&mut out, Kind::Literal, String::new(), start);
            } else {
                push(&mut out, Kind::Ident, word, start);
            }
        } else if ch.is_ascii_digit() {
            while i < n
                && (c[i].is_alphanumeric()
                    || c[i] == '_'
                    || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            push(&mut out, Kind::Literal, String::new(), start);
        } else if ch == '"' {
            let (text, end) = quoted(&c, i, &mut line);
            push(&mut out, Kind::Literal, text, start);
            i = end;
        } else if ch == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                i = char_literal(&c, i);
                push(&mut out, Kind::Literal, String::new(), start);
            } else {
                let s = i + 1;
                i += 1;
                while i < n && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                push(&mut out, Kind::Lifetime, c[s..i].iter().collect(), start);
            }
        } else if ch == ':' && at(i + 1) == ':' {
            push(&mut out, Kind::Punct, "::".into(), start);
            i += 2;
        } else {
            push(&mut out, Kind::Punct, ch.to_string(), start);
            i += 1;
        }
    }
    out
}

/// Reads the string literal whose opening quote is at `c[i]`: its content
/// (escapes left as written) and the index after its closing quote.
fn quoted(c: &[char], mut i: usize, line: &mut usize) -> (String, usize) {
    i += 1;
    let s = i;
    while i < c.len() && c[i] != '"' {
        if c[i] == '\\' {
            i += 1;
        }
        if c.get(i) == Some(&'\n') {
            *line += 1;
        }
        i += 1;
    }
    (c[s..i.min(c.len())].iter().collect(), i + 1)
}

/// The index after the char literal whose opening quote is at `c[i]`.
fn char_literal(c: &[char], mut i: usize) -> usize {
    i += 1;
    while i < c.len() && c[i] != '\'' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// How visible an item or `use` is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Vis {
    Private,
    /// `pub(crate)`, `pub(super)`, `pub(in …)`.
    Restricted,
    Public,
}

/// One leaf of a `use` tree.
#[derive(Clone, Debug)]
pub struct UseEntry {
    /// The inline modules the `use` sits in, inside its file.
    pub inline: Vec<String>,
    /// The path as written, `self` leaves folded into their prefix; a
    /// leading `::` is kept as a segment.
    pub path: Vec<String>,
    /// `path::*`.
    pub glob: bool,
    /// The name the entry binds (its rename, or its last segment).
    pub binds: Option<String>,
    pub vis: Vis,
    pub line: usize,
}

/// A path written in code (not in a `use`), two segments or more.
#[derive(Clone, Debug)]
pub struct PathRef {
    pub inline: Vec<String>,
    pub path: Vec<String>,
    pub line: usize,
}

/// A `mod name;` or `mod name { … }` that is not `#[cfg(test)]`.
#[derive(Clone, Debug)]
pub struct ModDecl {
    pub inline: Vec<String>,
    pub name: String,
    /// `#[path = "…"]`.
    pub path_attr: Option<String>,
    /// `mod name { … }`.
    pub body: bool,
    pub line: usize,
}

/// An item definition: `keyword name`, e.g. `struct Foo`, `fn bar`,
/// `impl` (no name).
#[derive(Clone, Debug)]
pub struct Item {
    pub inline: Vec<String>,
    pub keyword: String,
    pub name: String,
    pub vis: Vis,
    /// Braces the item sits inside (0: the file's or inline module's top).
    pub nested: bool,
    pub line: usize,
}

/// What one file holds, outside comments and `#[cfg(test)]` items.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    pub uses: Vec<UseEntry>,
    pub paths: Vec<PathRef>,
    pub mods: Vec<ModDecl>,
    pub items: Vec<Item>,
}

const ITEM_KEYWORDS: &[&str] = &[
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "fn",
    "const",
    "static",
    "impl",
    "macro_rules",
];
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "union", "_",
];

fn text(t: &[Token], i: usize) -> &str {
    t.get(i).map_or("", |t| t.text.as_str())
}

fn is_ident(t: &[Token], i: usize) -> bool {
    t.get(i).is_some_and(|t| t.kind == Kind::Ident)
}

/// The index of the bracket that closes the one opened at `t[i]`.
fn closing(t: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, tok) in t.iter().enumerate().skip(i) {
        if tok.kind != Kind::Punct {
            continue;
        }
        match tok.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// Whether the attribute tokens (inside `#[…]`) are `cfg(test)` or
/// `cfg(all(…, test, …))`: code that exists only in test builds.
fn is_test_cfg(attr: &[Token]) -> bool {
    let words: Vec<&str> = attr
        .iter()
        .map(|t| {
            if t.kind == Kind::Literal {
                ""
            } else {
                t.text.as_str()
            }
        })
        .collect();
    match words.as_slice() {
        ["cfg", "(", "test", ")"] => true,
        ["cfg", "(", "all", "(", rest @ ..] => {
            let mut depth = 0;
            rest.iter().any(|w| {
                match *w {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    _ => {}
                }
                depth == 0 && *w == "test"
            })
        }
        _ => false,
    }
}

/// The index after the item that starts at `t[i]`: its first `;` outside
/// brackets, or the end of its first `{ … }` block; never past a bracket
/// that closes an enclosing group.
fn item_end(t: &[Token], mut i: usize) -> usize {
    while i < t.len() {
        match (t[i].kind, t[i].text.as_str()) {
            (Kind::Punct, ";") => return i + 1,
            (Kind::Punct, "{") => return closing(t, i) + 1,
            (Kind::Punct, "(" | "[") => i = closing(t, i) + 1,
            (Kind::Punct, ")" | "]" | "}") => return i,
            _ => i += 1,
        }
    }
    i
}

/// The visibility written before `t[i]`.
fn vis_before(t: &[Token], i: usize) -> Vis {
    let mut j = i;
    while j > 0 && matches!(text(t, j - 1), "unsafe" | "async" | "const" | "extern") {
        j -= 1;
    }
    if j > 0 && text(t, j - 1) == "pub" {
        return Vis::Public;
    }
    if j > 0
        && text(t, j - 1) == ")"
        && let Some(open) = (0..j - 1).rev().find(|&k| text(t, k) == "(")
        && open > 0
        && text(t, open - 1) == "pub"
    {
        return Vis::Restricted;
    }
    Vis::Private
}

/// Reads one `use` tree at `t[i]`, appending its leaves to `out` with
/// `prefix` before them; returns the index after it.
fn use_tree(
    t: &[Token],
    mut i: usize,
    mut path: Vec<String>,
    out: &mut Vec<(Vec<String>, bool, Option<String>, usize)>,
) -> usize {
    if text(t, i) == "::" {
        path.push("::".into());
        i += 1;
    }
    loop {
        match text(t, i) {
            "{" => {
                i += 1;
                while i < t.len() && text(t, i) != "}" {
                    let next = use_tree(t, i, path.clone(), out);
                    i = if next == i { i + 1 } else { next };
                    if text(t, i) == "," {
                        i += 1;
                    }
                }
                return i + 1;
            }
            "*" => {
                out.push((path, true, None, t[i].line));
                return i + 1;
            }
            "$" => i += 1,
            _ if is_ident(t, i) => {
                let line = t[i].line;
                path.push(t[i].text.clone());
                i += 1;
                if text(t, i) == "::" {
                    i += 1;
                    continue;
                }
                let mut binds = path.last().cloned();
                if text(t, i) == "as" {
                    binds = Some(text(t, i + 1).to_owned()).filter(|n| n != "_");
                    i += 2;
                }
                if path.len() > 1 && path.last().map(String::as_str) == Some("self") {
                    path.pop();
                    if binds.as_deref() == Some("self") {
                        binds = path.last().cloned();
                    }
                }
                out.push((path, false, binds, line));
                return i;
            }
            _ => return i,
        }
    }
}

/// Reads a path written in code from `t[i]`: `a::b::c`, stopping at the first
/// segment that is no identifier. Returns the segments and the index after.
fn code_path(t: &[Token], mut i: usize) -> (Vec<String>, usize) {
    let mut path = Vec::new();
    loop {
        if text(t, i) == "$" && text(t, i + 1) == "crate" {
            i += 1;
        }
        if !is_ident(t, i) {
            break;
        }
        path.push(t[i].text.clone());
        i += 1;
        if text(t, i) == "::" && (is_ident(t, i + 1) || text(t, i + 1) == "$") {
            i += 1;
        } else {
            break;
        }
    }
    (path, i)
}

/// Reads a file's tokens.
pub fn scan(t: &[Token]) -> Scan {
    let mut s = Scan::default();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    let names =
        |inline: &[(String, usize)]| inline.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    while i < t.len() {
        let word = t[i].text.as_str();
        let kind = t[i].kind;
        if kind == Kind::Punct && word == "#" {
            let inner = text(t, i + 1) == "!";
            let open = i + 1 + usize::from(inner);
            if text(t, open) != "[" {
                i += 1;
                continue;
            }
            let close = closing(t, open);
            let attr = &t[open + 1..close.min(t.len())];
            i = close + 1;
            if inner {
                continue;
            }
            if attr.len() == 3 && attr[0].text == "path" && attr[1].text == "=" {
                path_attr = Some(attr[2].text.clone());
            }
            if is_test_cfg(attr) {
                // Skip any further attributes, then the item they mark.
                while text(t, i) == "#" && text(t, i + 1) == "[" {
                    i = closing(t, i + 1) + 1;
                }
                let first = text(t, i);
                let starts_item = ITEM_KEYWORDS.contains(&first)
                    || matches!(
                        first,
                        "pub" | "mod" | "use" | "unsafe" | "async" | "extern" | "let"
                    )
                    || (is_ident(t, i) && text(t, i + 1) == "!");
                if starts_item {
                    i = item_end(t, i);
                }
                path_attr = None;
            }
            continue;
        }
        if kind == Kind::Punct {
            match word {
                "{" => depth += 1,
                "}" => {
                    depth = depth.saturating_sub(1);
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if kind != Kind::Ident {
            i += 1;
            continue;
        }
        let prev = if i > 0 { text(t, i - 1) } else { "" };
        match word {
            "mod" if is_ident(t, i + 1) && matches!(text(t, i + 2), ";" | "{") => {
                let body = text(t, i + 2) == "{";
                s.mods.push(ModDecl {
                    inline: names(&inline),
                    name: t[i + 1].text.clone(),
                    path_attr: path_attr.take(),
                    body,
                    line: t[i].line,
                });
                if body {
                    inline.push((t[i + 1].text.clone(), depth));
                    depth += 1;
                }
                i += 3;
            }
            "use" if text(t, i + 1) != "<" => {
                let vis = vis_before(t, i);
                let mut leaves = Vec::new();
                let end = use_tree(t, i + 1, Vec::new(), &mut leaves);
                for (path, glob, binds, line) in leaves {
                    s.uses.push(UseEntry {
                        inline: names(&inline),
                        path,
                        glob,
                        binds,
                        vis,
                        line,
                    });
                }
                i = end.max(i + 1);
            }
            w if ITEM_KEYWORDS.contains(&w) && prev != "::" => {
                let named = is_ident(t, i + 1) && !KEYWORDS.contains(&text(t, i + 1));
                let bang = w == "macro_rules" && text(t, i + 1) == "!";
                if named || bang || w == "impl" {
                    let name = if bang {
                        text(t, i + 2)
                    } else if named {
                        text(t, i + 1)
                    } else {
                        ""
                    };
                    s.items.push(Item {
                        inline: names(&inline),
                        keyword: w.to_owned(),
                        name: name.to_owned(),
                        vis: vis_before(t, i),
                        nested: depth > inline.last().map_or(0, |(_, d)| d + 1),
                        line: t[i].line,
                    });
                }
                i += 1;
            }
            _ if prev != "::" && text(t, i + 1) == "::" => {
                // `pub(in crate::x)` names a module to be visible in, no import.
                let visibility = prev == "in" && i >= 2 && text(t, i - 2) == "(";
                let (path, end) = code_path(t, i);
                if path.len() > 1 && !visibility {
                    s.paths.push(PathRef {
                        inline: names(&inline),
                        path,
                        line: t[i].line,
                    });
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    s
}

/// One `.rs` file the module tree reaches.
#[derive(Debug)]
pub struct SourceFile {
    /// Relative to the crate's `src`, with `/`.
    pub rel: String,
    pub module: Vec<String>,
    pub scan: Scan,
    /// The `//!` lines: (line, text after `//!` and one space).
    pub docs: Vec<(usize, String)>,
}

impl SourceFile {
    /// Whether the file is a folder's face (`mod.rs` or `lib.rs`), whose
    /// `mod x;` children live in its own folder.
    pub fn is_face(&self) -> bool {
        self.rel == "lib.rs" || self.rel == "main.rs" || self.rel.ends_with("/mod.rs")
    }
}

/// An import: a `use` leaf or an inline path, resolved to a path from the
/// crate root.
#[derive(Clone, Debug)]
pub struct Import {
    pub file: usize,
    pub line: usize,
    /// The module the import is written in (the file's, plus inline modules).
    pub from: Vec<String>,
    pub target: Vec<String>,
    pub glob: bool,
    /// The path as written.
    pub written: String,
}

/// A crate's files, reached from `lib.rs` through its `mod` lines.
#[derive(Debug)]
pub struct Crate {
    pub root: PathBuf,
    pub files: Vec<SourceFile>,
    /// Every module path: files and inline modules.
    pub modules: BTreeSet<Vec<String>>,
}

impl Crate {
    /// Reads the crate whose `lib.rs` is in `root`.
    pub fn load(root: &Path) -> Result<Crate, String> {
        let mut krate = Crate {
            root: root.to_owned(),
            files: Vec::new(),
            modules: BTreeSet::new(),
        };
        let mut queue = vec![(root.join("lib.rs"), Vec::<String>::new())];
        while let Some((path, module)) = queue.pop() {
            let src = fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let rel = path
                .strip_prefix(root)
                .map_err(|_| format!("{} is outside {}", path.display(), root.display()))?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let scan = scan(&tokenize(&src));
            let docs = src
                .lines()
                .enumerate()
                .filter_map(|(n, l)| {
                    let l = l.trim_start().strip_prefix("//!")?;
                    Some((
                        n + 1,
                        l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned(),
                    ))
                })
                .collect();
            let file = SourceFile {
                rel,
                module: module.clone(),
                scan,
                docs,
            };
            let dir = path.parent().unwrap_or(root).to_owned();
            let children = if file.is_face() {
                dir.clone()
            } else {
                dir.join(path.file_stem().unwrap_or_default())
            };
            krate.modules.insert(module.clone());
            for decl in &file.scan.mods {
                let mut child = module.clone();
                child.extend(decl.inline.iter().cloned());
                child.push(decl.name.clone());
                krate.modules.insert(child.clone());
                if decl.body {
                    continue;
                }
                let base = decl.inline.iter().fold(children.clone(), |p, m| p.join(m));
                let candidates = match &decl.path_attr {
                    Some(p) if decl.inline.is_empty() => vec![dir.join(p)],
                    Some(p) => vec![base.join(p)],
                    None => vec![
                        base.join(format!("{}.rs", decl.name)),
                        base.join(&decl.name).join("mod.rs"),
                    ],
                };
                if let Some(found) = candidates.into_iter().find(|p| p.is_file()) {
                    queue.push((found, child));
                }
            }
            krate.files.push(file);
        }
        krate.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(krate)
    }

    /// The file at `rel` (relative to `src`, with `/`), if the module tree
    /// reaches it.
    pub fn file(&self, rel: &str) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.rel == rel)
    }

    /// Resolves `path`, written in module `cur`, to a path from the crate
    /// root; `None` for other crates' paths and names it cannot place.
    pub fn resolve(
        &self,
        cur: &[String],
        path: &[String],
        aliases: &BTreeMap<String, Vec<String>>,
    ) -> Option<Vec<String>> {
        let (first, mut rest) = path.split_first()?;
        let mut out = match first.as_str() {
            "::" => return None,
            "crate" => Vec::new(),
            "self" => cur.to_vec(),
            "super" => {
                let mut out = cur.to_vec();
                out.pop()?;
                while rest.first().map(String::as_str) == Some("super") {
                    out.pop()?;
                    rest = &rest[1..];
                }
                out
            }
            name => {
                let mut child = cur.to_vec();
                child.push(name.to_owned());
                if self.modules.contains(&child) {
                    child
                } else {
                    aliases
                        .get(name)
                        .filter(|t| self.modules.contains(*t))?
                        .clone()
                }
            }
        };
        out.extend(rest.iter().cloned());
        Some(out)
    }

    /// Every import of every file, resolved.
    pub fn imports(&self) -> Vec<Import> {
        let mut all = Vec::new();
        for (index, file) in self.files.iter().enumerate() {
            let here = |inline: &[String]| {
                let mut m = file.module.clone();
                m.extend(inline.iter().cloned());
                m
            };
            let none = BTreeMap::new();
            let mut aliases = BTreeMap::new();
            for u in &file.scan.uses {
                if let (Some(name), Some(target)) =
                    (&u.binds, self.resolve(&here(&u.inline), &u.path, &none))
                    && self.modules.contains(&target)
                {
                    aliases.insert(name.clone(), target);
                }
            }
            for u in &file.scan.uses {
                let from = here(&u.inline);
                if let Some(target) = self.resolve(&from, &u.path, &aliases) {
                    let star = if u.glob { "::*" } else { "" };
                    all.push(Import {
                        file: index,
                        line: u.line,
                        from,
                        target,
                        glob: u.glob,
                        written: format!("{}{star}", u.path.join("::")),
                    });
                }
            }
            for p in &file.scan.paths {
                let from = here(&p.inline);
                if let Some(target) = self.resolve(&from, &p.path, &aliases) {
                    all.push(Import {
                        file: index,
                        line: p.line,
                        from,
                        target,
                        glob: false,
                        written: p.path.join("::"),
                    });
                }
            }
        }
        all
    }
}
