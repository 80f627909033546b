//! [`SkillLibrary`]: a set of skills, loaded once and checked against the
//! spec's rules before the server serves any of it.
//!
//! A skills folder holds skills (SEP-2640, "Skill Format"): each folder
//! with a `SKILL.md` is one, at any depth. The folders above a skill are
//! its prefix (`acme/billing/refunds` is skill `refunds` with prefix
//! `acme/billing`, "Resource Mapping"), and a skill may hold another
//! ("Nested Skills"): the enclosing skill's manifest then lists the nested
//! skill's files too. Files at the top of the folder (a `README.md`)
//! belong to no skill and are not served.
//!
//! Loading checks, in order, and the first rule broken is the error:
//!
//! 1. the paths: no `SKILL.md` at the top, no files in a folder that is
//!    neither a skill nor inside one, at least one skill;
//! 2. the limits of each skill ("Limits"): at most
//!    [`SKILL_MAX_FILES`] files and [`SKILL_MAX_BYTES`] bytes, nested
//!    skills included, checked on the sizes on disk before any byte is
//!    read, and again on the bytes read;
//! 3. each `SKILL.md`: UTF-8 text, with frontmatter that has a `name` and
//!    a `description` ("Skill Format"), a `name` that follows the naming
//!    rules and is the folder's own name ("Resource Mapping").
//!
//! Each file is then a resource at `skill://<skill-path>/<file-path>`,
//! each name percent-encoded where a URI needs it, and each folder a
//! directory resource ("Directory Resources"), prefixes included.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::disk::{io, walk};
use super::error::SkillLoadError;
use crate::wire::{
    DIRECTORY_MIME_TYPE, Resource, SKILL_MAX_BYTES, SKILL_MAX_FILES, SKILL_MD, SKILL_MD_MIME_TYPE,
    Skill, SkillFrontmatter, SkillResource, SkillResources, skill_name_is_valid,
};

/// What a `skill://` URI writes as is: RFC 3986's unreserved characters.
/// Everything else in a name is percent-encoded.
const ENCODED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The URI scheme of every skill this library serves.
const SCHEME: &str = "skill://";

/// How long a client may treat a listing, an entry or a file as current,
/// unless [`SkillLibrary::with_ttl`] says otherwise: 5 minutes.
pub const DEFAULT_SKILL_TTL: Duration = Duration::from_secs(300);

/// A set of skills, loaded and checked, ready to serve with
/// [`ServerBuilder::skills`](crate::server::ServerBuilder::skills).
///
/// Build one from a folder on disk ([`from_dir`](Self::from_dir)), from
/// files embedded in the binary (`presa::embed_skills!`), or from files
/// in memory ([`from_files`](Self::from_files)). Each checks every skill
/// as the module docs say and returns the first problem, naming its
/// folder. The content never changes after: restart the server to serve
/// a new version. Cloning is cheap.
#[derive(Clone)]
pub struct SkillLibrary {
    pub(super) index: Arc<SkillIndex>,
    pub(super) ttl: Duration,
}

/// What a library serves, found by URI.
pub(super) struct SkillIndex {
    /// The entries, sorted by URI.
    pub skills: Vec<Skill>,
    /// The position in `skills` of each entry, by its URI.
    pub positions: HashMap<String, usize>,
    /// Every file, by its URI.
    pub files: BTreeMap<String, SkillFile>,
    /// The direct children of every folder, by the folder's URI, sorted by
    /// URI.
    pub directories: HashMap<String, Vec<Resource>>,
}

/// One file of a library.
pub(super) struct SkillFile {
    /// Its listing: URI, name, MIME type and size, and for a `SKILL.md`
    /// the frontmatter's `name` and `description`.
    pub listing: Resource,
    /// Its raw bytes.
    pub bytes: Bytes,
    /// Whether the bytes are UTF-8, and so sent as text.
    pub text: bool,
    /// Whether it is a `SKILL.md`, listed by `resources/list`.
    pub skill_md: bool,
}

impl SkillLibrary {
    /// Loads every skill below folder `root`. Names starting with `.`
    /// (`.git`, `.DS_Store`) are skipped; a symbolic link is followed
    /// when it leads inside `root`, and is an error when it leads outside.
    pub fn from_dir(root: impl AsRef<Path>) -> Result<SkillLibrary, SkillLoadError> {
        let root = root.as_ref();
        let origin = Origin::Dir(root);
        let found = walk(root)?;
        let sizes = found
            .iter()
            .map(|file| (file.path.clone(), file.size))
            .collect();
        let plan = Plan::new(sizes, &origin)?;
        let mut files = BTreeMap::new();
        for file in found {
            if plan.serves(&file.path) {
                let bytes = fs::read(&file.location).map_err(io(&file.location))?;
                files.insert(file.path, Bytes::from(bytes));
            }
        }
        plan.finish(files, &origin)
    }

    /// Loads the skills of `files`, each a path inside a skills folder
    /// (`/` between names, as in `pdf-processing/SKILL.md`) and its
    /// bytes. The same rules as [`from_dir`](Self::from_dir) apply.
    pub fn from_files<P, B>(
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<SkillLibrary, SkillLoadError>
    where
        P: Into<String>,
        B: Into<Bytes>,
    {
        let mut by_path = BTreeMap::new();
        for (path, bytes) in files {
            let path = path.into();
            if path
                .split('/')
                .any(|name| name.is_empty() || name == "." || name == ".." || name.contains('\\'))
            {
                return Err(SkillLoadError::BadPath { path });
            }
            if by_path.contains_key(&path) {
                return Err(SkillLoadError::DuplicatePath { path });
            }
            by_path.insert(path, bytes.into());
        }
        let origin = Origin::Memory;
        let sizes = by_path
            .iter()
            .map(|(path, bytes): (&String, &Bytes)| (path.clone(), bytes.len() as u64))
            .collect();
        let plan = Plan::new(sizes, &origin)?;
        by_path.retain(|path, _| plan.serves(path));
        plan.finish(by_path, &origin)
    }

    /// Loads skills embedded in the binary: what `presa::embed_skills!`
    /// expands to, with the files of its folder. The bytes are not copied.
    pub fn from_embedded(
        files: &'static [(&'static str, &'static [u8])],
    ) -> Result<SkillLibrary, SkillLoadError> {
        SkillLibrary::from_files(
            files
                .iter()
                .map(|&(path, bytes)| (path, Bytes::from_static(bytes))),
        )
    }

    /// Sets how long a client may treat a listing, an entry or a file as
    /// current: the `ttlMs` of `skills/list`, `skills/get` and the reads of
    /// skill files (default [`DEFAULT_SKILL_TTL`]). Their `cacheScope` is
    /// `public`: a skill is the same for every caller.
    pub fn with_ttl(mut self, ttl: Duration) -> SkillLibrary {
        self.ttl = ttl;
        self
    }

    /// The entry of every skill, sorted by URI.
    pub fn skills(&self) -> &[Skill] {
        &self.index.skills
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub fn skill(&self, uri: &str) -> Option<&Skill> {
        let position = *self.index.positions.get(uri)?;
        self.index.skills.get(position)
    }

    /// The bytes of the file at `uri`.
    pub fn file(&self, uri: &str) -> Option<&[u8]> {
        self.index.files.get(uri).map(|file| &file.bytes[..])
    }
}

impl fmt::Debug for SkillLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let uris: Vec<&str> = self.skills().iter().map(|s| s.uri.as_str()).collect();
        f.debug_struct("SkillLibrary")
            .field("skills", &uris)
            .field("files", &self.index.files.len())
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// Where the files came from, to name a skill folder in a message as the
/// user knows it.
enum Origin<'a> {
    Dir(&'a Path),
    Memory,
}

impl Origin<'_> {
    /// How a message names the folder at `path` inside the skills folder.
    fn name(&self, path: &str) -> String {
        match self {
            Origin::Dir(root) if path.is_empty() => root.display().to_string(),
            Origin::Dir(root) => root.join(path).display().to_string(),
            Origin::Memory if path.is_empty() => "(files in memory)".to_owned(),
            Origin::Memory => path.to_owned(),
        }
    }
}

/// The skills a set of files makes, found from their paths and sizes
/// alone: rules 1 and 2 of the module docs.
struct Plan {
    /// The skill folders, by path.
    skills: BTreeSet<String>,
}

impl Plan {
    /// The plan for files of `sizes`, by path.
    fn new(sizes: BTreeMap<String, u64>, origin: &Origin<'_>) -> Result<Plan, SkillLoadError> {
        let skills: BTreeSet<String> = sizes
            .keys()
            .filter_map(|path| match path.strip_suffix(SKILL_MD) {
                Some("") => Some(Err(SkillLoadError::SkillAtTop {
                    origin: origin.name(""),
                })),
                Some(folder) => folder.strip_suffix('/').map(|f| Ok(f.to_owned())),
                None => None,
            })
            .collect::<Result<_, _>>()?;
        if skills.is_empty() {
            return Err(SkillLoadError::NoSkills {
                origin: origin.name(""),
            });
        }
        let plan = Plan { skills };
        for path in sizes.keys() {
            if let Some((folder, _)) = path.rsplit_once('/')
                && plan.skill_of(path).is_none()
            {
                return Err(SkillLoadError::FilesOutsideSkill {
                    folder: origin.name(folder),
                });
            }
        }
        plan.check_limits(&sizes, origin)?;
        Ok(plan)
    }

    /// The innermost skill folder `path` is in.
    fn skill_of(&self, path: &str) -> Option<&str> {
        let mut folder = path;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            if self.skills.contains(parent) {
                return Some(self.skills.get(parent)?.as_str());
            }
            folder = parent;
        }
        None
    }

    /// Whether the file at `path` is served: whether it is in a skill.
    fn serves(&self, path: &str) -> bool {
        self.skill_of(path).is_some()
    }

    /// The paths of `files` in skill folder `skill`, nested skills'
    /// included.
    fn files_of<'a, T>(
        skill: &str,
        files: &'a BTreeMap<String, T>,
    ) -> impl Iterator<Item = (&'a String, &'a T)> {
        let start = format!("{skill}/");
        files
            .range(start.clone()..)
            .take_while(move |(path, _)| path.starts_with(&start))
    }

    /// Rule 2: the files and bytes of each skill.
    fn check_limits(
        &self,
        sizes: &BTreeMap<String, u64>,
        origin: &Origin<'_>,
    ) -> Result<(), SkillLoadError> {
        for skill in &self.skills {
            let (mut files, mut bytes) = (0usize, 0u64);
            for (_, size) in Plan::files_of(skill, sizes) {
                files += 1;
                bytes = bytes.saturating_add(*size);
            }
            if files > SKILL_MAX_FILES {
                return Err(SkillLoadError::TooManyFiles {
                    skill: origin.name(skill),
                    files,
                });
            }
            if bytes > SKILL_MAX_BYTES {
                return Err(SkillLoadError::TooLarge {
                    skill: origin.name(skill),
                    bytes,
                });
            }
        }
        Ok(())
    }

    /// Rules 2 (again, on the bytes read) and 3, then the index.
    fn finish(
        self,
        files: BTreeMap<String, Bytes>,
        origin: &Origin<'_>,
    ) -> Result<SkillLibrary, SkillLoadError> {
        let sizes = files
            .iter()
            .map(|(path, bytes)| (path.clone(), bytes.len() as u64))
            .collect();
        self.check_limits(&sizes, origin)?;
        let mut frontmatters = BTreeMap::new();
        for skill in &self.skills {
            let frontmatter = checked_frontmatter(skill, &files, origin)?;
            frontmatters.insert(skill.clone(), frontmatter);
        }
        let mut index = SkillIndex {
            skills: Vec::new(),
            positions: HashMap::new(),
            files: BTreeMap::new(),
            directories: HashMap::new(),
        };
        for (path, bytes) in &files {
            let uri = uri_of(path);
            let skill_md = frontmatters.get(path.strip_suffix("/SKILL.md").unwrap_or(""));
            index
                .files
                .insert(uri.clone(), SkillFile::new(uri, path, bytes, skill_md));
        }
        for (skill, frontmatter) in frontmatters {
            let manifest = Plan::files_of(&skill, &files)
                .map(|(path, bytes)| SkillResource::of(uri_of(path), bytes))
                .collect();
            index.skills.push(Skill {
                uri: uri_of(&format!("{skill}/{SKILL_MD}")),
                frontmatter,
                resources: SkillResources::Listed(manifest),
            });
        }
        index.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        index.positions = (index.skills.iter().enumerate())
            .map(|(position, skill)| (skill.uri.clone(), position))
            .collect();
        index.directories = directories(&index.files, files.keys());
        Ok(SkillLibrary {
            index: Arc::new(index),
            ttl: DEFAULT_SKILL_TTL,
        })
    }
}

/// Rule 3: the frontmatter of the `SKILL.md` of skill folder `skill`.
fn checked_frontmatter(
    skill: &str,
    files: &BTreeMap<String, Bytes>,
    origin: &Origin<'_>,
) -> Result<SkillFrontmatter, SkillLoadError> {
    let named = || origin.name(skill);
    let bytes = &files[&format!("{skill}/{SKILL_MD}")];
    let text = std::str::from_utf8(bytes)
        .map_err(|_| SkillLoadError::SkillMdNotText { skill: named() })?;
    let frontmatter =
        SkillFrontmatter::from_skill_md(text).map_err(|problem| SkillLoadError::Frontmatter {
            skill: named(),
            problem,
        })?;
    let name = frontmatter.name();
    if !skill_name_is_valid(name) {
        return Err(SkillLoadError::BadName {
            skill: named(),
            name: name.to_owned(),
        });
    }
    let folder = skill.rsplit('/').next().unwrap_or(skill);
    if name != folder {
        return Err(SkillLoadError::NameNotFolder {
            skill: named(),
            name: name.to_owned(),
            folder: folder.to_owned(),
        });
    }
    Ok(frontmatter)
}

impl SkillFile {
    /// The file at `path`, served at `uri`; `frontmatter` when it is the
    /// `SKILL.md` of a skill.
    fn new(
        uri: String,
        path: &str,
        bytes: &Bytes,
        frontmatter: Option<&SkillFrontmatter>,
    ) -> SkillFile {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        let text = std::str::from_utf8(bytes).is_ok();
        let mut listing = Resource::new(uri, file_name);
        listing.size = Some(bytes.len() as u64);
        listing.mime_type = Some(match frontmatter {
            Some(_) => SKILL_MD_MIME_TYPE.to_owned(),
            None => mime_type(file_name, text).to_owned(),
        });
        if let Some(frontmatter) = frontmatter {
            listing.name = frontmatter.name().to_owned();
            listing.description = Some(frontmatter.description().to_owned());
        }
        SkillFile {
            listing,
            bytes: bytes.clone(),
            text,
            skill_md: frontmatter.is_some(),
        }
    }
}

/// The MIME type of a file called `name`: from its extension, else plain
/// text or bytes.
fn mime_type(name: &str, text: bool) -> &'static str {
    match mime_guess::from_path(name).first_raw() {
        Some(mime_type) => mime_type,
        None if text => "text/plain",
        None => "application/octet-stream",
    }
}

/// The URI of the file or folder at `path`.
fn uri_of(path: &str) -> String {
    let mut uri = String::from(SCHEME);
    for (i, name) in path.split('/').enumerate() {
        if i > 0 {
            uri.push('/');
        }
        uri.extend(utf8_percent_encode(name, ENCODED));
    }
    uri
}

/// The direct children of every folder that holds a served file, by the
/// folder's URI: files with their listing, subfolders as directory
/// resources.
fn directories<'a>(
    files: &BTreeMap<String, SkillFile>,
    paths: impl Iterator<Item = &'a String>,
) -> HashMap<String, Vec<Resource>> {
    let mut children: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
    for path in paths {
        let file = &files[&uri_of(path)];
        let mut child = file.listing.clone();
        let mut at = path.as_str();
        while let Some((folder, _)) = at.rsplit_once('/') {
            children
                .entry(uri_of(folder))
                .or_default()
                .entry(child.uri.clone())
                .or_insert(child);
            let mut directory = Resource::new(uri_of(folder), name_of(folder));
            directory.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            child = directory;
            at = folder;
        }
    }
    children
        .into_iter()
        .map(|(uri, entries)| (uri, entries.into_values().collect()))
        .collect()
}

/// The last name of `path`.
fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
