//! Finding the files of a skills folder on disk: every file below it, by
//! its `/`-separated path inside the folder, with its size. Nothing is
//! read yet, so that a skill over the limits is refused before its bytes
//! are.
//!
//! Rules, in order, for each entry of each folder (sorted by name, so that
//! two runs find the same files in the same order):
//!
//! 1. a name that starts with `.` is skipped, file or folder (`.git`,
//!    `.DS_Store`);
//! 2. a name that is not UTF-8 is an error: it cannot be part of a URI;
//! 3. a symbolic link is followed when it leads inside the skills folder,
//!    and is an error when it leads outside it (the server would publish
//!    a file its author never put in the folder) or to a folder that
//!    contains it (the walk would never end);
//! 4. an entry that is neither a file nor a folder (a socket, a FIFO) is
//!    skipped.

use std::fs;
use std::path::{Path, PathBuf};

use super::error::SkillLoadError;

/// A file found below the skills folder.
pub(super) struct FoundFile {
    /// Its path inside the skills folder, with `/` between names.
    pub path: String,
    /// Where to read it.
    pub location: PathBuf,
    /// Its size when it was found.
    pub size: u64,
}

/// Every file below `root`, by the rules of the module docs.
pub(super) fn walk(root: &Path) -> Result<Vec<FoundFile>, SkillLoadError> {
    let canonical_root = fs::canonicalize(root).map_err(io(root))?;
    let mut walk = Walk {
        root: &canonical_root,
        ancestors: vec![canonical_root.clone()],
        found: Vec::new(),
    };
    walk.folder(root, "")?;
    Ok(walk.found)
}

/// One walk: the folders it is inside, and what it found.
struct Walk<'a> {
    /// The skills folder, canonical.
    root: &'a Path,
    /// The canonical folders the walk is inside, to find loops.
    ancestors: Vec<PathBuf>,
    found: Vec<FoundFile>,
}

impl Walk<'_> {
    /// Finds the files of `folder`, whose path inside the skills folder is
    /// `prefix`.
    fn folder(&mut self, folder: &Path, prefix: &str) -> Result<(), SkillLoadError> {
        let mut entries = fs::read_dir(folder)
            .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
            .map_err(io(folder))?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let location = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(SkillLoadError::NotUtf8 { path: location });
            };
            if name.starts_with('.') {
                continue;
            }
            let path = match prefix {
                "" => name,
                _ => format!("{prefix}/{name}"),
            };
            let kind = entry.file_type().map_err(io(&location))?;
            let metadata = if kind.is_symlink() {
                let target = fs::canonicalize(&location).map_err(io(&location))?;
                if !target.starts_with(self.root) {
                    return Err(SkillLoadError::SymlinkEscapes {
                        path: location,
                        target,
                    });
                }
                fs::metadata(&target).map_err(io(&location))?
            } else {
                entry.metadata().map_err(io(&location))?
            };
            if metadata.is_dir() {
                let canonical = fs::canonicalize(&location).map_err(io(&location))?;
                if self.ancestors.contains(&canonical) {
                    return Err(SkillLoadError::SymlinkLoop { path: location });
                }
                self.ancestors.push(canonical);
                self.folder(&location, &path)?;
                self.ancestors.pop();
            } else if metadata.is_file() {
                self.found.push(FoundFile {
                    path,
                    location,
                    size: metadata.len(),
                });
            }
        }
        Ok(())
    }
}

/// Turns an I/O error at `path` into a load error naming it.
pub(super) fn io(path: &Path) -> impl Fn(std::io::Error) -> SkillLoadError + '_ {
    move |source| SkillLoadError::Io {
        path: path.to_owned(),
        source,
    }
}
