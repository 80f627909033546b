//! The layer rules of `presa-runtime/src`, checked so that they cannot drift.
//!
//! A folder declares its layers with one line in its `mod.rs` docs:
//! `//! Layers, bottom up: a, b, c.` For every folder that does:
//!
//! 1. the line names each room of the folder once, and nothing else (a room
//!    is a `.rs` file at the folder's root other than `mod.rs`, or a
//!    subfolder with a `mod.rs`);
//! 2. no file imports a room that the line puts above its own room;
//! 3. no file imports a name through its own folder's `mod.rs` (the face):
//!    `super::RequestMeta` hides which room the name comes from, so you
//!    import `super::meta::RequestMeta`;
//! 4. the folder holds at most 12 `.rs` files at its root;
//! 5. its `mod.rs` defines nothing: docs, `mod` lines and `pub use` lines.
//!
//! Every folder of `presa-runtime/src` with a `mod.rs` must carry the line
//! (the crate root has its layer table instead). The crate's layer
//! table in `lib.rs` ("module | what it is | uses") must list every top
//! module, each after the modules it uses, with the modules it imports. And
//! no two public types share a name.
//!
//! Imports are read from `use` trees and from inline `crate::`/`super::`
//! paths, outside comments, strings and `#[cfg(test)]` items
//! (`common/rust_source.rs`). Each check has a test on a made-up tree that
//! breaks it, so that none of them passes by reading nothing.

#[path = "common/rust_source.rs"]
mod rust_source;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rust_source::{Crate, Import, SourceFile, Vis};

/// Imports that still run up the layers, as (file under `presa-runtime/src`,
/// room it imports). None is left: add one only with a plan to remove it.
/// The test fails once an entry allows nothing, so the list can only
/// shrink.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Public type names allowed to be defined twice: none. The test fails once
/// an entry here is defined only once, so the list can only shrink.
const KNOWN_TWICE: &[&str] = &[];

/// The most `.rs` files a folder holds at its root, `mod.rs` included.
const MAX_FILES: usize = 12;

/// How the layer line starts, after `//! `.
const LAYERS: &str = "Layers, bottom up:";

/// The label messages give the runtime's source folder.
const RUNTIME: &str = "presa-runtime/src";

fn runtime_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(RUNTIME)
}

fn load(root: &Path) -> Crate {
    Crate::load(root).unwrap_or_else(|e| panic!("{e}"))
}

/// The folder a face file (`x/mod.rs`, `lib.rs`) opens: `x`, or `""`.
fn folder_of(face: &SourceFile) -> &str {
    face.rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `dir/` for a folder, `""` for the root.
fn prefix(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    }
}

/// The rooms of folder `dir` on disk, and how many `.rs` files its root
/// holds.
fn rooms_on_disk(root: &Path, dir: &str) -> (BTreeSet<String>, usize) {
    let mut rooms = BTreeSet::new();
    let mut files = 0;
    let entries = fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("cannot list {dir}: {e}"));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            if path.join("mod.rs").is_file() {
                rooms.insert(name);
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            files += 1;
            if !matches!(stem, "mod" | "lib" | "main") {
                rooms.insert(stem.to_owned());
            }
        }
    }
    (rooms, files)
}

/// The names of a layer line (the text after `//! `), bottom first.
fn parse_layers(line: &str) -> Result<Vec<String>, String> {
    let list = line.strip_prefix(LAYERS).unwrap_or(line).trim();
    let Some(list) = list.strip_suffix('.') else {
        return Err(
            "the layer line must end with a full stop: `//! Layers, bottom up: a, b, c.`".into(),
        );
    };
    let names: Vec<String> = list.split(',').map(|n| n.trim().to_owned()).collect();
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || !n.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return Err(format!(
            "the layer line must be room names separated by `, ` (found `{bad}`): `//! Layers, bottom up: a, b, c.`"
        ));
    }
    Ok(names)
}

fn quoted(names: &[&String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a name that `face` re-exports comes from, as a path from the
/// crate root, read from the face's `pub use` lines.
fn defining_path(krate: &Crate, face: &SourceFile, name: &str) -> Option<Vec<String>> {
    let g = &face.module;
    let dir = folder_of(face);
    let none = BTreeMap::new();
    let mut globbed = Vec::new();
    for u in face
        .scan
        .uses
        .iter()
        .filter(|u| u.vis != Vis::Private && u.inline.is_empty())
    {
        let Some(target) = krate.resolve(g, &u.path, &none) else {
            continue;
        };
        if u.glob {
            if target.len() > g.len() && target.starts_with(g) {
                globbed.push(target[g.len()].clone());
            }
        } else if u.binds.as_deref() == Some(name) {
            return Some(target);
        }
    }
    let room = globbed.into_iter().find(|room| {
        let file = format!("{}{room}.rs", prefix(dir));
        let folder = format!("{}{room}/", prefix(dir));
        krate.files.iter().any(|f| {
            (f.rel == file || f.rel.starts_with(&folder))
                && f.scan.items.iter().any(|i| i.name == name)
        })
    })?;
    let mut path = g.clone();
    path.extend([room, name.to_owned()]);
    Some(path)
}

/// Checks every folder of `krate` whose face declares its layers, and that
/// each folder of `required` does. `label` is how messages name the root.
fn check_layers(krate: &Crate, label: &str, required: &[&str]) -> Vec<String> {
    let imports = krate.imports();
    let mut problems = BTreeSet::new();
    for dir in required {
        let face = format!("{dir}/mod.rs");
        let declared = krate
            .file(&face)
            .is_some_and(|f| f.docs.iter().any(|(_, l)| l.starts_with(LAYERS)));
        if !declared {
            problems.insert(format!(
                "{label}/{face}: has no `//! {LAYERS} …` line, and `{dir}` must declare its layers: \
                 add the line, naming every room of the folder, bottom first"
            ));
        }
    }
    for face in krate.files.iter().filter(|f| f.is_face()) {
        let lines: Vec<&(usize, String)> = face
            .docs
            .iter()
            .filter(|(_, l)| l.starts_with(LAYERS))
            .collect();
        let Some((at, line)) = lines.first() else {
            continue;
        };
        let at = *at;
        let here = format!("{label}/{}:{at}", face.rel);
        if lines.len() > 1 {
            problems.insert(format!(
                "{here}: the folder declares its layers {} times; keep one line",
                lines.len()
            ));
        }
        let order = match parse_layers(line) {
            Ok(order) => order,
            Err(e) => {
                problems.insert(format!("{here}: {e}"));
                continue;
            }
        };
        let dir = folder_of(face);
        let shown = if dir.is_empty() {
            "the crate root".to_owned()
        } else {
            format!("{dir}/")
        };
        let (rooms, files) = rooms_on_disk(&krate.root, dir);
        check_names(&mut problems, &here, &shown, &order, &rooms);
        if files > MAX_FILES {
            problems.insert(format!(
                "{label}/{}: {files} .rs files at its root (mod.rs included); a folder holds at most \
                 {MAX_FILES}: group related rooms into subfolders",
                prefix(dir)
            ));
        }
        if face.rel.ends_with("mod.rs") {
            check_face_defines_nothing(&mut problems, label, face);
        }
        for import in &imports {
            check_import(&mut problems, krate, label, face, &order, &rooms, import);
        }
    }
    problems.into_iter().collect()
}

/// Rule 1: the line names the rooms, each once.
fn check_names(
    problems: &mut BTreeSet<String>,
    here: &str,
    shown: &str,
    order: &[String],
    rooms: &BTreeSet<String>,
) {
    let listed: BTreeSet<&String> = order.iter().collect();
    let missing: Vec<&String> = rooms.iter().filter(|r| !listed.contains(r)).collect();
    let extra: Vec<&String> = order.iter().filter(|n| !rooms.contains(*n)).collect();
    let twice: BTreeSet<&String> = order
        .iter()
        .filter(|n| order.iter().filter(|m| m == n).count() > 1)
        .collect();
    if !missing.is_empty() {
        problems.insert(format!(
            "{here}: the layer line does not list the room(s) {} of {shown}; add each above the rooms it imports and below those that import it",
            quoted(&missing)
        ));
    }
    if !extra.is_empty() {
        problems.insert(format!(
            "{here}: the layer line lists {}, which {shown} does not hold (no such .rs file, nor subfolder with a mod.rs); remove it from the line",
            quoted(&extra)
        ));
    }
    if !twice.is_empty() {
        problems.insert(format!(
            "{here}: the layer line lists {} more than once; keep each room once",
            quoted(&twice.into_iter().collect::<Vec<_>>())
        ));
    }
}

/// Rule 5: a folder's `mod.rs` is its face and defines nothing.
fn check_face_defines_nothing(problems: &mut BTreeSet<String>, label: &str, face: &SourceFile) {
    let defined = face
        .scan
        .items
        .iter()
        .filter(|i| i.inline.is_empty() && !i.nested);
    for item in defined {
        let what = if item.name.is_empty() {
            item.keyword.clone()
        } else {
            format!("{} {}", item.keyword, item.name)
        };
        problems.insert(format!(
            "{label}/{}:{}: defines `{what}`, but a folder's mod.rs is its face (module docs, `mod` lines, \
             `pub use` lines): move it to a file of its own and re-export it from there",
            face.rel, item.line
        ));
    }
    for module in face
        .scan
        .mods
        .iter()
        .filter(|m| m.body && m.inline.is_empty())
    {
        problems.insert(format!(
            "{label}/{}:{}: defines the inline module `{}`, but a folder's mod.rs is its face: move it to `{}.rs`",
            face.rel, module.line, module.name, module.name
        ));
    }
}

/// Rules 2 and 3 for one import, against the folder that `face` opens.
fn check_import(
    problems: &mut BTreeSet<String>,
    krate: &Crate,
    label: &str,
    face: &SourceFile,
    order: &[String],
    rooms: &BTreeSet<String>,
    import: &Import,
) {
    let file = &krate.files[import.file];
    let dir = folder_of(face);
    let Some(inside) = file.rel.strip_prefix(&prefix(dir)) else {
        return;
    };
    if file.rel == face.rel {
        return;
    }
    let from_room = inside
        .split('/')
        .next()
        .unwrap_or(inside)
        .trim_end_matches(".rs");
    let g = &face.module;
    if !import.target.starts_with(g) {
        return;
    }
    let here = format!("{label}/{}:{}", file.rel, import.line);
    let face_name = format!("{label}/{}", face.rel);
    let direct =
        !inside.contains('/') || (inside.ends_with("/mod.rs") && inside.matches('/').count() == 1);
    let Some(to_room) = import.target.get(g.len()) else {
        if import.glob {
            problems.insert(format!(
                "{here}: `use {}` imports everything {face_name} re-exports, through its own folder's face; \
                 import each name from the room that defines it",
                import.written
            ));
        }
        return;
    };
    if !rooms.contains(to_room) {
        let name = to_room;
        let better = match defining_path(krate, face, name) {
            Some(path) if direct && path.starts_with(g) => {
                format!("from `super::{}` instead", path[g.len()..].join("::"))
            }
            Some(path) => format!("from `crate::{}` instead", path.join("::")),
            None => "from the module that defines it instead".to_owned(),
        };
        problems.insert(format!(
            "{here}: imports `{name}` through {face_name}, the face of its own folder (`{}`); import it {better}",
            import.written
        ));
        return;
    }
    let position = |room: &str| order.iter().position(|n| n == room);
    if let (Some(from), Some(to)) = (position(from_room), position(to_room))
        && to > from
    {
        problems.insert(format!(
                "{here}: room `{from_room}` imports room `{to_room}` (`{}`), which {face_name}'s layer line puts \
                 above it ({}): move `{to_room}` below `{from_room}` in the line if nothing in `{to_room}` imports \
                 `{from_room}`, or move the code so that imports run down the layers",
                import.written,
                order.join(", ")
            ));
    }
}

/// One row of the layer table in `lib.rs`.
struct Row {
    line: usize,
    module: String,
    uses: Vec<String>,
}

/// The names in backticks of a table cell, `[`x`]` links included.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The rows of the "module | what it is | uses" table in `lib.rs`'s docs.
fn layer_table(lib: &SourceFile) -> Result<Vec<Row>, String> {
    let start = lib
        .docs
        .iter()
        .position(|(_, l)| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            cells.len() == 5 && cells[1] == "module" && cells[3] == "uses"
        })
        .ok_or("lib.rs's docs have no `| module | what it is | uses |` table")?;
    let mut rows = Vec::new();
    for (line, text) in lib.docs[start + 1..]
        .iter()
        .take_while(|(_, l)| l.starts_with('|'))
    {
        if text.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = text.split('|').map(str::trim).collect();
        let (Some(first), Some(uses)) = (cells.get(1), cells.get(cells.len().saturating_sub(2)))
        else {
            return Err(format!("lib.rs:{line}: a table row needs three cells"));
        };
        let module = ticked(first)
            .into_iter()
            .next()
            .ok_or(format!("lib.rs:{line}: the row names no `module`"))?;
        rows.push(Row {
            line: *line,
            module,
            uses: ticked(uses),
        });
    }
    Ok(rows)
}

/// The crate's layer table: one row per top module, each after the modules
/// it uses, and its uses column equal to the top modules it imports.
fn check_table(krate: &Crate, label: &str) -> Vec<String> {
    let Some(lib) = krate.file("lib.rs") else {
        return vec![format!("{label}/lib.rs: not found")];
    };
    let rows = match layer_table(lib) {
        Ok(rows) => rows,
        Err(e) => return vec![format!("{label}/{e}")],
    };
    let here = |line: usize| format!("{label}/lib.rs:{line}");
    let mut problems = Vec::new();
    let top: BTreeSet<&String> = lib
        .scan
        .mods
        .iter()
        .filter(|m| m.inline.is_empty())
        .map(|m| &m.name)
        .collect();
    for module in &top {
        if !rows.iter().any(|r| &r.module == *module) {
            problems.push(format!(
                "{label}/lib.rs: declares the module `{module}`, but its layer table has no row for it; \
                 add one, below the modules it uses"
            ));
        }
    }
    let mut imported: BTreeMap<&str, BTreeMap<&str, &Import>> = BTreeMap::new();
    let imports = krate.imports();
    for import in &imports {
        if let (Some(from), Some(to)) = (import.from.first(), import.target.first())
            && from != to
            && top.contains(to)
        {
            imported
                .entry(from.as_str())
                .or_default()
                .entry(to.as_str())
                .or_insert(import);
        }
    }
    for (index, row) in rows.iter().enumerate() {
        if !top.contains(&row.module) {
            problems.push(format!(
                "{}: the layer table has a row for `{}`, which lib.rs does not declare; remove the row",
                here(row.line),
                row.module
            ));
            continue;
        }
        let above: Vec<&str> = rows[..index].iter().map(|r| r.module.as_str()).collect();
        for used in &row.uses {
            if !above.contains(&used.as_str()) {
                problems.push(format!(
                    "{}: `{}` uses `{used}`, which the layer table lists below it (or not at all); \
                     each row comes after the modules it uses",
                    here(row.line),
                    row.module
                ));
            }
        }
        let actual = imported
            .get(row.module.as_str())
            .cloned()
            .unwrap_or_default();
        for (to, import) in &actual {
            if !row.uses.iter().any(|u| u == to) {
                let file = &krate.files[import.file].rel;
                problems.push(format!(
                    "{label}/{file}:{}: `{}` imports `{to}` (`{}`), but its row in the layer table (lib.rs:{}) \
                     does not list `{to}`: add it to the row's uses if `{}` may depend on `{to}`, or drop the import",
                    import.line, row.module, import.written, row.line, row.module
                ));
            }
        }
        for used in &row.uses {
            if !actual.contains_key(used.as_str()) {
                problems.push(format!(
                    "{}: the row of `{}` lists `{used}` in its uses, but nothing in `{}` imports it; remove it from the row",
                    here(row.line),
                    row.module,
                    row.module
                ));
            }
        }
    }
    problems
}

/// No `pub struct|enum|trait|type|union NAME` defined twice, but the names
/// of `known_twice`, each of which must still be defined twice.
fn check_public_names(krate: &Crate, label: &str, known_twice: &[&str]) -> Vec<String> {
    let mut defined: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for file in &krate.files {
        let types = file.scan.items.iter().filter(|i| {
            i.vis == Vis::Public
                && matches!(
                    i.keyword.as_str(),
                    "struct" | "enum" | "trait" | "type" | "union"
                )
        });
        for item in types {
            defined
                .entry(&item.name)
                .or_default()
                .push(format!("{label}/{}:{}", file.rel, item.line));
        }
    }
    let mut problems = Vec::new();
    for (name, places) in &defined {
        if places.len() > 1 && !known_twice.contains(name) {
            problems.push(format!(
                "the public type name `{name}` is defined {} times ({}); no two public types share a name: rename all but one",
                places.len(),
                places.join(", ")
            ));
        }
    }
    for name in known_twice {
        if defined.get(name).is_none_or(|places| places.len() < 2) {
            problems.push(format!(
                "`{name}` is in KNOWN_TWICE, but it is no longer defined twice: remove it from the list"
            ));
        }
    }
    problems
}

fn assert_clean(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn every_folder_that_declares_its_layers_keeps_them() {
    let krate = load(&runtime_src());
    assert!(
        krate.files.len() > 100,
        "read only {} files of {RUNTIME}",
        krate.files.len()
    );
    let required = folders_with_a_face(&runtime_src());
    assert!(
        required.len() > 50,
        "found only {} folders with a mod.rs under {RUNTIME}",
        required.len()
    );
    let required: Vec<&str> = required.iter().map(String::as_str).collect();
    let problems = check_layers(&krate, RUNTIME, &required);
    assert_clean(allow_known_upward(problems, KNOWN_UPWARD));
}

/// The folders below `root`, at any depth, that have a `mod.rs`, as paths
/// relative to `root`.
fn folders_with_a_face(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![String::new()];
    while let Some(dir) = todo.pop() {
        if !dir.is_empty() && root.join(&dir).join("mod.rs").is_file() {
            found.push(dir.clone());
        }
        let entries =
            fs::read_dir(root.join(&dir)).unwrap_or_else(|e| panic!("cannot list {dir}: {e}"));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                todo.push(format!("{}{name}", prefix(&dir)));
            }
        }
    }
    found.sort();
    found
}

/// Removes the problems that `known` allows: each entry is a file and the
/// room it imports upward. Reports an entry that allows nothing, so the
/// list can only shrink.
fn allow_known_upward(problems: Vec<String>, known: &[(&str, &str)]) -> Vec<String> {
    let allows = |problem: &str, (file, room): &(&str, &str)| {
        problem.starts_with(&format!("{RUNTIME}/{file}:"))
            && problem.contains(&format!("imports room `{room}`"))
    };
    let mut left: Vec<String> = problems
        .iter()
        .filter(|problem| !known.iter().any(|entry| allows(problem, entry)))
        .cloned()
        .collect();
    for entry @ (file, room) in known {
        if !problems.iter().any(|problem| allows(problem, entry)) {
            left.push(format!(
                "({file:?}, {room:?}) is in KNOWN_UPWARD, but {file} no longer imports `{room}` upward: remove it from the list"
            ));
        }
    }
    left
}

#[test]
fn a_known_upward_import_is_allowed_only_while_it_exists() {
    let problem = format!(
        "{RUNTIME}/server/legacy/connection.rs:47: room `legacy` imports room `serving` (`x`)"
    );
    let known = [("server/legacy/connection.rs", "serving")];
    assert!(allow_known_upward(vec![problem.clone()], &known).is_empty());
    let other = format!("{RUNTIME}/server/router.rs:3: room `router` imports room `http` (`x`)");
    assert_eq!(
        allow_known_upward(vec![problem, other.clone()], &known),
        [other]
    );
    let stale = allow_known_upward(Vec::new(), &known);
    assert_eq!(stale.len(), 1);
    assert!(
        stale[0].contains("no longer imports `serving` upward"),
        "{stale:?}"
    );
}

#[test]
fn the_crate_layer_table_lists_what_each_module_imports() {
    assert_clean(check_table(&load(&runtime_src()), RUNTIME));
}

#[test]
fn no_public_type_name_is_defined_twice() {
    assert_clean(check_public_names(
        &load(&runtime_src()),
        RUNTIME,
        KNOWN_TWICE,
    ));
}

// Made-up trees that break each rule.

/// A made-up `src` folder in the temp dir, removed on drop.
struct Tree {
    root: PathBuf,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Tree {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "presa-layers-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let root = std::env::temp_dir().join(name);
        let _ = fs::remove_dir_all(&root);
        for (rel, text) in files {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
            fs::write(&path, text).expect("write the file");
        }
        Tree { root }
    }

    fn layers(&self, required: &[&str]) -> Vec<String> {
        check_layers(&load(&self.root), "src", required)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Asserts that `problems` holds exactly one message per entry of `expect`,
/// each containing all of that entry's parts.
fn assert_reports(problems: &[String], expect: &[&[&str]]) {
    for parts in expect {
        assert!(
            problems
                .iter()
                .any(|p| parts.iter().all(|part| p.contains(part))),
            "no problem reads {parts:?}; got:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(
        problems.len(),
        expect.len(),
        "got:\n{}",
        problems.join("\n")
    );
}

const LIB: (&str, &str) = ("lib.rs", "//! A crate.\n\npub mod a;\n");

#[test]
fn a_clean_tree_passes() {
    let tree = Tree::new(&[
        LIB,
        (
            "a/mod.rs",
            "//! A folder.\n//!\n//! Layers, bottom up: meta, low, sub, high.\n\nmod high;\nmod low;\nmod meta;\nmod sub;\n\npub use high::High;\npub use meta::*;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        ("a/meta.rs", "//! Names.\n\npub struct RequestMeta;\n"),
        (
            "a/low.rs",
            "//! Low.\n\nuse super::meta::RequestMeta;\n\npub struct Low(pub RequestMeta);\n",
        ),
        (
            "a/sub/mod.rs",
            "//! A subfolder.\n\nmod inner;\n\npub use inner::Inner;\n",
        ),
        (
            "a/sub/inner.rs",
            "use crate::a::low::Low;\nuse super::super::{meta, low as l};\n\npub struct Inner(Low, meta::RequestMeta, l::Low);\n",
        ),
        (
            "a/high.rs",
            "//! High.\n\nuse super::{low::Low, sub::{self, Inner}};\n\npub struct High(Low, sub::Inner, Inner);\n\ntype Made = crate::a::sub::Inner;\n",
        ),
    ]);
    assert_clean(tree.layers(&["a"]));
}

#[test]
fn the_layer_line_must_name_the_rooms() {
    let tree = Tree::new(&[
        LIB,
        (
            "a/mod.rs",
            "//! Layers, bottom up: low, ghost, low.\n\nmod low;\nmod extra;\nmod sub;\n",
        ),
        ("a/low.rs", ""),
        ("a/extra.rs", ""),
        ("a/sub/mod.rs", ""),
        ("a/notes/readme.md", ""),
    ]);
    assert_reports(
        &tree.layers(&[]),
        &[
            &[
                "src/a/mod.rs:1",
                "does not list the room(s) `extra`, `sub` of a/",
            ],
            &["src/a/mod.rs:1", "lists `ghost`, which a/ does not hold"],
            &["src/a/mod.rs:1", "lists `low` more than once"],
        ],
    );
}

#[test]
fn a_malformed_layer_line_is_reported() {
    let tree = Tree::new(&[
        LIB,
        ("a/mod.rs", "//! Layers, bottom up: low high\n\nmod low;\n"),
        ("a/low.rs", ""),
    ]);
    assert_reports(
        &tree.layers(&[]),
        &[&["src/a/mod.rs:1", "must end with a full stop"]],
    );
    let tree = Tree::new(&[
        LIB,
        ("a/mod.rs", "//! Layers, bottom up: low high.\n\nmod low;\n"),
        ("a/low.rs", ""),
    ]);
    assert_reports(
        &tree.layers(&[]),
        &[&["src/a/mod.rs:1", "found `low high`"]],
    );
}

#[test]
fn an_import_up_the_layers_is_reported() {
    let tree = Tree::new(&[
        LIB,
        (
            "a/mod.rs",
            "//! Layers, bottom up: low, sub, high.\n\nmod high;\nmod low;\nmod sub;\n",
        ),
        (
            "a/high.rs",
            "pub struct High;\npub mod deep { pub struct Deep; }\n",
        ),
        (
            "a/low.rs",
            "use super::high::High;\nuse crate::{\n    a::{high::deep::{self as d}},\n};\nuse super::high as h;\n\nfn f() {\n    let _ = crate::a::high::High;\n    let _: h::High;\n}\n",
        ),
        ("a/sub/mod.rs", "mod inner;\n"),
        ("a/sub/inner.rs", "use super::super::high::*;\n"),
    ]);
    let up = "imports room `high`";
    assert_reports(
        &tree.layers(&[]),
        &[
            &["src/a/low.rs:1:", up, "`super::high::High`"],
            &["src/a/low.rs:3:", up, "`crate::a::high::deep`"],
            &["src/a/low.rs:5:", up, "`super::high`"],
            &["src/a/low.rs:8:", up, "`crate::a::high::High`"],
            &["src/a/low.rs:9:", up, "`h::High`"],
            &[
                "src/a/sub/inner.rs:1:",
                "room `sub` imports room `high`",
                "`super::super::high::*`",
            ],
        ],
    );
}

#[test]
fn comments_strings_and_test_code_are_not_imports() {
    let tree = Tree::new(&[
        LIB,
        (
            "a/mod.rs",
            "//! Layers, bottom up: low, high.\n\nmod high;\nmod low;\n",
        ),
        ("a/high.rs", "pub struct High;\n"),
        (
            "a/low.rs",
            r####"//! Not `super::high::High`.
/// Nor crate::a::high::High.
// super::high::High
/* crate::a::high /* nested */ super::high::High */
const A: &str = "super::high::High";
const B: &str = r#"crate::a::high::High " still"#;
const C: &[u8] = br##"super::high::High"##;
const D: char = '"';
fn f<'a>(x: &'a str) -> &'a str { let _ = "\" super::high::High"; x }

#[cfg(test)]
mod tests {
    use super::super::high::High;
    mod deeper { fn g() { let _ = crate::a::high::High; } }
}

#[cfg(all(test, feature = "x"))]
use super::high::High;

#[cfg(test)]
fn helper() -> crate::a::high::High { crate::a::high::High }

#[cfg(test)]
mod more;
"####,
        ),
        ("a/low/more.rs", "use crate::a::high::High;\n"),
    ]);
    assert_clean(tree.layers(&[]));
}

#[test]
fn an_import_through_the_own_folders_face_is_reported() {
    let tree = Tree::new(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("b.rs", "pub struct Outside;\n"),
        (
            "a/mod.rs",
            "//! Layers, bottom up: meta, names, user, sub.\n\nmod meta;\nmod names;\nmod sub;\nmod user;\n\npub use meta::*;\npub use names::{Named as Renamed};\npub use crate::b::Outside;\n",
        ),
        ("a/meta.rs", "pub struct RequestMeta;\n"),
        ("a/names.rs", "pub struct Named;\n"),
        (
            "a/user.rs",
            "use super::RequestMeta;\nuse super::*;\n\ntype Made = super::Renamed;\nuse super::{Outside, Unknown};\n",
        ),
        ("a/sub/mod.rs", "mod deep;\n"),
        ("a/sub/deep.rs", "use crate::a::RequestMeta;\n"),
    ]);
    assert_reports(
        &tree.layers(&[]),
        &[
            &[
                "src/a/user.rs:5:",
                "imports `Outside`",
                "from `crate::b::Outside` instead",
            ],
            &[
                "src/a/user.rs:5:",
                "imports `Unknown`",
                "from the module that defines it instead",
            ],
            &[
                "src/a/user.rs:1:",
                "imports `RequestMeta` through src/a/mod.rs",
                "from `super::meta::RequestMeta` instead",
            ],
            &[
                "src/a/user.rs:2:",
                "`use super::*` imports everything src/a/mod.rs re-exports",
            ],
            &[
                "src/a/user.rs:4:",
                "imports `Renamed` through src/a/mod.rs",
                "from `super::names::Named` instead",
            ],
            &[
                "src/a/sub/deep.rs:1:",
                "imports `RequestMeta`",
                "from `crate::a::meta::RequestMeta` instead",
            ],
        ],
    );
}

#[test]
fn a_folder_holds_at_most_twelve_files() {
    // A folder `a` whose root holds `mod.rs` and `rooms` more files.
    let folder = |rooms: usize| {
        let names: Vec<String> = (1..=rooms).map(|n| format!("f{n:02}")).collect();
        let decls: String = names.iter().map(|n| format!("mod {n};\n")).collect();
        let mut files = vec![
            ("lib.rs".to_owned(), "pub mod a;\n".to_owned()),
            (
                "a/mod.rs".to_owned(),
                format!("//! Layers, bottom up: {}.\n\n{decls}", names.join(", ")),
            ),
        ];
        files.extend(names.iter().map(|n| (format!("a/{n}.rs"), String::new())));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        Tree::new(&files).layers(&[])
    };
    assert_reports(
        &folder(12),
        &[&["src/a/:", "13 .rs files at its root", "at most 12"]],
    );
    assert_clean(folder(11));
}

#[test]
fn a_folder_face_defines_nothing() {
    let tree = Tree::new(&[
        LIB,
        (
            "a/mod.rs",
            "//! Layers, bottom up: low.\n\nmod low;\npub use low::Low;\n\npub struct Face;\nimpl Face { pub fn new() -> Self { Face } }\nmod inline { pub struct X; }\n\n#[cfg(test)]\nmod tests { fn helper() {} }\n",
        ),
        ("a/low.rs", "pub struct Low;\n"),
    ]);
    assert_reports(
        &tree.layers(&[]),
        &[
            &[
                "src/a/mod.rs:6:",
                "defines `struct Face`",
                "move it to a file of its own",
            ],
            &["src/a/mod.rs:7:", "defines `impl Face`"],
            &[
                "src/a/mod.rs:8:",
                "defines the inline module `inline`",
                "move it to `inline.rs`",
            ],
        ],
    );
}

#[test]
fn a_required_folder_must_declare_its_layers() {
    let tree = Tree::new(&[
        LIB,
        ("a/mod.rs", "//! A folder without its line.\n\nmod low;\n"),
        ("a/low.rs", ""),
    ]);
    assert_reports(
        &tree.layers(&["a"]),
        &[&[
            "src/a/mod.rs: has no `//! Layers, bottom up: …` line",
            "`a` must declare its layers",
        ]],
    );
    assert_clean(tree.layers(&[]));
}

#[test]
fn every_folder_with_a_mod_rs_is_required() {
    let tree = Tree::new(&[
        LIB,
        ("a/mod.rs", "//! Layers, bottom up: b.\n\nmod b;\n"),
        ("a/b/mod.rs", "//! Layers, bottom up: low.\n\nmod low;\n"),
        ("a/b/low.rs", ""),
        ("a/b/data/notes.rs", ""),
        ("c/mod.rs", "//! No line.\n"),
    ]);
    assert_eq!(folders_with_a_face(&tree.root), ["a", "a/b", "c"]);
}

const TABLE_LIB: &str = "//! A crate.
//!
//! | module | what it is | uses |
//! |---|---|---|
//! | `util` (private) | helpers | nothing |
//! | [`wire`] | messages | `util` |
//! | [`server`] | serving | `wire`, `util` |
//! | `gone` | an old row | nothing |
//!
//! More prose.

pub mod server;
mod util;
pub mod wire;
pub mod client;

#[doc(hidden)]
pub mod __private {
    pub use crate::server::Server;
}
";

#[test]
fn the_crate_layer_table_must_match_the_imports() {
    let tree = Tree::new(&[
        ("lib.rs", TABLE_LIB),
        ("util.rs", "pub fn help() {}\n"),
        ("wire.rs", "//! Uses nothing: the row's `util` is stale.\n"),
        (
            "server.rs",
            "use crate::wire;\nuse crate::client::Client;\n\npub struct Server(crate::util::Help);\n",
        ),
        ("client.rs", "pub struct Client;\n"),
    ]);
    let problems = check_table(&load(&tree.root), "src");
    assert_reports(
        &problems,
        &[
            &["src/lib.rs: declares the module `client`", "no row for it"],
            &[
                "src/lib.rs: declares the module `__private`",
                "no row for it",
            ],
            &["src/lib.rs:8:", "a row for `gone`", "remove the row"],
            &[
                "src/lib.rs:6:",
                "the row of `wire` lists `util`",
                "nothing in `wire` imports it",
            ],
            &[
                "src/server.rs:2:",
                "`server` imports `client` (`crate::client::Client`)",
                "does not list `client`",
            ],
        ],
    );
    let ordered = TABLE_LIB.replace(
        "| [`wire`] | messages | `util` |",
        "| [`wire`] | messages | `server` |",
    );
    let tree = Tree::new(&[
        ("lib.rs", ordered.as_str()),
        ("util.rs", ""),
        ("wire.rs", "use crate::server::Server;\n"),
        (
            "server.rs",
            "use crate::wire;\nuse crate::util::Help;\npub struct Server;\n",
        ),
        ("client.rs", ""),
    ]);
    let problems = check_table(&load(&tree.root), "src");
    assert!(
        problems.iter().any(|p| p.contains("lib.rs:6:")
            && p.contains("`wire` uses `server`, which the layer table lists below it")),
        "{problems:#?}"
    );
}

#[test]
fn a_public_type_name_defined_twice_is_reported() {
    let tree = Tree::new(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        (
            "a.rs",
            "pub struct Twice;\npub enum Known {}\npub(crate) struct Private;\n#[cfg(test)]\nmod tests { pub struct Once; }\n",
        ),
        (
            "b.rs",
            "pub trait Twice {}\npub type Known = ();\npub(crate) struct Private;\npub struct Once;\npub struct Renamed;\n",
        ),
    ]);
    let krate = load(&tree.root);
    assert_reports(
        &check_public_names(&krate, "src", &["Known", "Renamed"]),
        &[
            &["`Twice` is defined 2 times (src/a.rs:1, src/b.rs:1)"],
            &["`Renamed` is in KNOWN_TWICE, but it is no longer defined twice"],
        ],
    );
    assert_clean(check_public_names(&krate, "src", &["Known", "Twice"]));
}

#[test]
fn tokens_skip_comments_and_keep_literals_whole() {
    use rust_source::{Kind, tokenize};
    let tokens = tokenize("a /* b /* c */ d */ 'x' '\\'' 'life b'q' r#\"s\"# r#raw e // f\n::g");
    let shown: Vec<(Kind, &str, usize)> = tokens
        .iter()
        .map(|t| (t.kind, t.text.as_str(), t.line))
        .collect();
    assert_eq!(
        shown,
        [
            (Kind::Ident, "a", 1),
            (Kind::Literal, "", 1),
            (Kind::Literal, "", 1),
            (Kind::Lifetime, "life", 1),
            (Kind::Literal, "", 1),
            (Kind::Literal, "s", 1),
            (Kind::Ident, "raw", 1),
            (Kind::Ident, "e", 1),
            (Kind::Punct, "::", 2),
            (Kind::Ident, "g", 2),
        ]
    );
}
