//! `presa skill --save DIR`: a loaded skill's files written to
//! `DIR/NAME/`, each at its path inside the skill.
//!
//! The paths come from the server, so they are checked before anything is
//! written. The rules, in order:
//!
//! 1. the skill's name must follow the Agent Skills naming rules, so the
//!    folder `DIR/NAME` is one plain folder inside `DIR`;
//! 2. each file's path inside the skill is relative, made of plain
//!    segments: no empty segment, no `.` or `..`, no `\`, no `:` (a drive
//!    or a stream on Windows) and no NUL. A path that breaks a rule is
//!    refused, naming the file, and nothing is written;
//! 3. every file is read and checked against the entry (size, then
//!    digest) before the first one is written, so a failed check leaves
//!    nothing behind;
//! 4. the files go to a fresh folder beside the target, which is renamed
//!    into place when every file is written. An existing `DIR/NAME` is
//!    left alone unless `--force` says to replace it.

use std::path::{Path, PathBuf};

use presa::client::LoadedSkill;
use presa::wire::{skill_name_is_valid, skill_root_uri};

use crate::exit::Failure;

/// Writes every file of `skill` under `dir`/NAME/, and returns that
/// folder.
pub async fn save(skill: &LoadedSkill, dir: &Path, force: bool) -> Result<PathBuf, Failure> {
    let entry = skill.entry();
    let name = entry.name();
    if !skill_name_is_valid(name) {
        return Err(Failure::protocol(format!(
            "the skill's name `{}` is not a valid skill name, so presa will not make a folder \
             of it",
            name.escape_debug()
        )));
    }
    let Some(files) = skill.files() else {
        return Err(Failure::usage(
            "a dynamic skill lists no files, so there is nothing to save",
        ));
    };
    let root = skill_root_uri(&entry.uri).unwrap_or_default();
    let mut planned = Vec::with_capacity(files.len());
    for file in files {
        let relative = relative_path(root, &file.uri)?;
        planned.push((relative, file.uri.as_str()));
    }
    let target = dir.join(name);
    if target.symlink_metadata().is_ok() && !force {
        return Err(Failure::usage(format!(
            "{} already exists; pass --force to replace it",
            target.display()
        )));
    }
    let mut contents = Vec::with_capacity(planned.len());
    for (relative, uri) in planned {
        let file = skill.read(uri).await.map_err(Failure::from)?;
        contents.push((relative, file.bytes));
    }
    write_all(dir, name, &target, contents).map_err(|error| {
        Failure::protocol(format!(
            "cannot save the skill in {}: {error}",
            dir.display()
        ))
    })?;
    Ok(target)
}

/// Rule 2: the path of `uri` inside the skill folder `root`.
fn relative_path(root: &str, uri: &str) -> Result<PathBuf, Failure> {
    let refuse = |why: &str| {
        Failure::protocol(format!(
            "the skill lists {}, whose path {why}; presa saves nothing",
            uri.escape_debug()
        ))
    };
    let path = uri
        .strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .ok_or_else(|| refuse("is outside the skill's folder"))?;
    let mut relative = PathBuf::new();
    for segment in path.split('/') {
        if matches!(segment, "" | "." | "..") {
            return Err(refuse("has an empty, `.` or `..` segment"));
        }
        if segment.contains(['\\', ':', '\0']) {
            return Err(refuse("has a `\\`, `:` or NUL in it"));
        }
        relative.push(segment);
    }
    Ok(relative)
}

/// Rule 4: writes `contents` into a fresh folder in `dir`, then renames it
/// to `target`, replacing what was there.
fn write_all(
    dir: &Path,
    name: &str,
    target: &Path,
    contents: Vec<(PathBuf, Vec<u8>)>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let partial = dir.join(format!(".{name}.presa-partial-{}", std::process::id()));
    if partial.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&partial)?;
    }
    std::fs::create_dir(&partial)?;
    let written = contents.into_iter().try_for_each(|(relative, bytes)| {
        let path = partial.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)
    });
    if let Err(error) = written {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(error);
    }
    if let Ok(existing) = target.symlink_metadata() {
        if existing.is_dir() {
            std::fs::remove_dir_all(target)?;
        } else {
            std::fs::remove_file(target)?;
        }
    }
    std::fs::rename(&partial, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_could_leave_the_folder_is_refused() {
        let root = "skill://acme/pdf";
        assert_eq!(
            relative_path(root, "skill://acme/pdf/references/GUIDE.md").unwrap(),
            PathBuf::from("references").join("GUIDE.md")
        );
        for uri in [
            "skill://acme/pdf/../x",
            "skill://acme/pdf/a/../../x",
            "skill://acme/pdf//etc/passwd",
            "skill://acme/pdf/./x",
            "skill://acme/pdf/..\\..\\x",
            "skill://acme/pdf/C:/x",
            "skill://acme/pdfx/y",
            "skill://acme/other/y",
        ] {
            let failure = relative_path(root, uri).unwrap_err();
            assert!(
                failure.message.contains("presa saves nothing"),
                "{uri}: {failure:?}"
            );
        }
    }
}
