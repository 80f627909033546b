//! [`SkillLoadError`]: why a folder of skills cannot be served, found when
//! it is loaded, before the server starts.

use std::path::PathBuf;

use crate::wire::{FrontmatterError, SKILL_MAX_BYTES, SKILL_MAX_FILES};

/// Why a set of skills cannot be served. Each message names the skill
/// folder or file at fault and says what to change.
///
/// A skill folder is named as you gave it: a path on disk for
/// [`SkillLibrary::from_dir`](super::SkillLibrary::from_dir), a path
/// inside the set for the other constructors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillLoadError {
    /// A file or folder could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file or folder name is not UTF-8, so it cannot be part of a URI.
    #[error(
        "`{}` has a name that is not UTF-8, so it cannot be part of a skill:// URI; rename it",
        path.display()
    )]
    NotUtf8 {
        /// The file or folder, its name shown lossily.
        path: PathBuf,
    },
    /// A symbolic link leads outside the skills folder.
    #[error(
        "`{}` is a symbolic link to `{}`, outside the skills folder; copy the file into the \
         folder, or point the link at a file inside it",
        path.display(),
        target.display()
    )]
    SymlinkEscapes {
        /// The link.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// A symbolic link leads to a folder that contains it, which would
    /// make the skill endless.
    #[error(
        "`{}` is a symbolic link to a folder that contains it; remove the link",
        path.display()
    )]
    SymlinkLoop {
        /// The link.
        path: PathBuf,
    },
    /// A path given in memory is not a relative path of `/`-separated
    /// names.
    #[error(
        "`{path}` is not a skill file path: write it relative to the skills folder, with `/` \
         between names, and no empty, `.` or `..` name"
    )]
    BadPath {
        /// The path as given.
        path: String,
    },
    /// A path given in memory is given twice.
    #[error("`{path}` is given twice; give each file once")]
    DuplicatePath {
        /// The path given more than once.
        path: String,
    },
    /// No folder holds a `SKILL.md`.
    #[error(
        "found no skill in `{origin}`: a skill is a folder holding a file named SKILL.md, in \
         capitals"
    )]
    NoSkills {
        /// The skills folder, or `(files in memory)`.
        origin: String,
    },
    /// The skills folder itself holds a `SKILL.md`.
    #[error(
        "`{origin}` holds a SKILL.md at its top; put each skill in a subfolder named after it, \
         such as `{origin}/my-skill/SKILL.md`"
    )]
    SkillAtTop {
        /// The skills folder, or `(files in memory)`.
        origin: String,
    },
    /// A folder below the top holds files but is not inside a skill.
    #[error(
        "folder `{folder}` holds files but no SKILL.md, and is not inside a skill; name its \
         skill file SKILL.md, in capitals, or move the files into a skill"
    )]
    FilesOutsideSkill {
        /// The folder holding the files, as the user names it.
        folder: String,
    },
    /// The `SKILL.md` is not UTF-8 text.
    #[error("the SKILL.md of skill folder `{skill}` is not UTF-8 text; save it as UTF-8")]
    SkillMdNotText {
        /// The skill folder.
        skill: String,
    },
    /// The `SKILL.md` frontmatter is missing, not YAML, or lacks `name` or
    /// `description`.
    #[error("skill folder `{skill}`: {problem}")]
    Frontmatter {
        /// The skill folder.
        skill: String,
        /// What is wrong with the frontmatter.
        problem: FrontmatterError,
    },
    /// The `name` breaks the Agent Skills naming rules.
    #[error(
        "skill folder `{skill}`: the name `{name}` breaks the naming rules; use 1 to 64 \
         lowercase letters, digits and hyphens, with no hyphen at either end and none doubled"
    )]
    BadName {
        /// The skill folder.
        skill: String,
        /// The `name` of its frontmatter.
        name: String,
    },
    /// The `name` is not the folder's name.
    #[error(
        "skill folder `{skill}`: its SKILL.md says `name: {name}`, but the folder is called \
         `{folder}`; a skill's name must be its folder's name, so rename one of them"
    )]
    NameNotFolder {
        /// The skill folder.
        skill: String,
        /// The `name` of its frontmatter.
        name: String,
        /// The folder's own name.
        folder: String,
    },
    /// The skill has more files than a host must accept.
    #[error(
        "skill folder `{skill}` has {files} files, more than the {SKILL_MAX_FILES} a skill may \
         have (SKILL.md and nested skills count); split it into smaller skills"
    )]
    TooManyFiles {
        /// The skill folder.
        skill: String,
        /// How many files it has.
        files: usize,
    },
    /// The skill's files hold more bytes than a host must accept.
    #[error(
        "skill folder `{skill}` holds {bytes} bytes, more than the {SKILL_MAX_BYTES} (16 MiB) a \
         skill may hold (nested skills count); move large files out of it"
    )]
    TooLarge {
        /// The skill folder.
        skill: String,
        /// How many bytes its files hold.
        bytes: u64,
    },
}
