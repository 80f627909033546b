//! Loading a skill and reading its files (SEP-2640, "The Acting Window
//! and the Held Entry", "Frontmatter Verification" and "Lazy Retrieval").
//!
//! [`Client::load_skill`] is the skill-loading path: it takes the entry
//! the user approved, reads `SKILL.md`, and returns a [`LoadedSkill`] that
//! holds the entry for as long as you act on the skill. The rules, in
//! order:
//!
//! 1. the entry is checked first (see `verify`): an invalid entry, or one
//!    past the spec's limits, is declined before any request is sent;
//! 2. a `"dynamic"` entry is refused unless the caller opts in with
//!    [`Client::load_skill_allowing_dynamic`], since nothing it serves can
//!    be verified;
//! 3. `SKILL.md` is read with `resources/read` and checked against its
//!    line, size then digest; then its frontmatter is parsed and compared
//!    field by field with the entry's, and any difference fails the load;
//! 4. each other file is read only when you ask for it, and only if the
//!    held entry lists it: an unlisted file is refused with no request
//!    sent, and a file read is checked as `SKILL.md` was;
//! 5. for a dynamic skill, a read must stay inside the skill's folder,
//!    and the reads together stop at the spec's 16 MiB.
//!
//! A failed check returns no content: the bytes are dropped. The cure for
//! a changed skill is to refresh the entry with [`Client::get_skill`],
//! which revokes an earlier approval, and to load it again.
//!
//! Loading is not trust: digests come from the same server as the
//! content, so a match proves the two agree, not that either is safe.
//! Treat the content as untrusted input, tagged with the server it came
//! from.

use std::sync::atomic::{AtomicU64, Ordering};

use super::error::SkillError;
use super::verify::{check_bytes, check_entry, contents_bytes, is_inside, resolve};
use crate::client::api::Client;
use crate::wire::{
    SKILL_MAX_BYTES, Skill, SkillFrontmatter, SkillResource, SkillResources, skill_root_uri,
};

/// A file of a skill, as read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// The MIME type the server gave, if any.
    pub mime_type: Option<String>,
    /// The file's raw bytes. For a listed skill, they match the entry's
    /// size and digest.
    pub bytes: Vec<u8>,
}

impl SkillFile {
    /// The bytes as UTF-8 text; `None` for a binary file.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// A skill the client has loaded: the entry it holds, and the checked
/// `SKILL.md`. Its other files are read on demand with
/// [`read`](LoadedSkill::read). Drop it when the skill leaves the model's
/// context.
pub struct LoadedSkill {
    client: Client,
    entry: Skill,
    skill_md: SkillFile,
    /// The bytes read so far, for a dynamic skill's limit (rule 5).
    retrieved: AtomicU64,
}

impl std::fmt::Debug for LoadedSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedSkill")
            .field("entry", &self.entry)
            .field("skill_md", &self.skill_md.uri)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Loads the skill `entry` describes: checks the entry, reads its
    /// `SKILL.md`, verifies its size, digest and frontmatter, and returns
    /// the loaded skill. A `"dynamic"` entry is
    /// [`SkillError::Dynamic`]: see
    /// [`load_skill_allowing_dynamic`](Self::load_skill_allowing_dynamic).
    ///
    /// ```no_run
    /// # async fn example(client: presa_runtime::client::Client) -> Result<(), presa_runtime::client::SkillError> {
    /// let entry = client.get_skill("skill://git-workflow/SKILL.md").await?;
    /// // Show the entry to the user and get their approval here.
    /// let skill = client.load_skill(entry).await?;
    /// println!("{}", skill.skill_md().text().unwrap_or_default());
    /// let guide = skill.read("references/GUIDE.md").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn load_skill(&self, entry: Skill) -> Result<LoadedSkill, SkillError> {
        if entry.resources == SkillResources::Dynamic {
            check_entry(&entry)?;
            return Err(SkillError::Dynamic { uri: entry.uri });
        }
        self.load_skill_allowing_dynamic(entry).await
    }

    /// [`load_skill`](Self::load_skill), but a `"dynamic"` entry loads
    /// too. Its files have no digests, so only its frontmatter is checked,
    /// and its reads stop at 16 MiB in all. Use it only when the user
    /// accepts content that cannot be verified.
    pub async fn load_skill_allowing_dynamic(
        &self,
        entry: Skill,
    ) -> Result<LoadedSkill, SkillError> {
        check_entry(&entry)?;
        let mut skill = LoadedSkill {
            client: self.clone(),
            skill_md: SkillFile {
                uri: entry.uri.clone(),
                mime_type: None,
                bytes: Vec::new(),
            },
            entry,
            retrieved: AtomicU64::new(0),
        };
        let skill_md = skill.fetch(skill.entry.uri.clone()).await?;
        let text = skill_md.text().ok_or_else(|| SkillError::BadFrontmatter {
            uri: skill_md.uri.clone(),
            error: crate::wire::FrontmatterError::Yaml("SKILL.md is not UTF-8 text".into()),
        })?;
        let fetched =
            SkillFrontmatter::from_skill_md(text).map_err(|error| SkillError::BadFrontmatter {
                uri: skill_md.uri.clone(),
                error,
            })?;
        let fields = skill.entry.frontmatter.differences(&fetched);
        if !fields.is_empty() {
            return Err(SkillError::FrontmatterMismatch {
                uri: skill_md.uri,
                fields,
            });
        }
        skill.skill_md = skill_md;
        Ok(skill)
    }
}

impl LoadedSkill {
    /// The entry the skill was loaded from: the one every read is checked
    /// against.
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The skill's `SKILL.md`, as read and checked at load.
    pub fn skill_md(&self) -> &SkillFile {
        &self.skill_md
    }

    /// The files the entry lists, `SKILL.md` included; `None` for a
    /// dynamic skill.
    pub fn files(&self) -> Option<&[SkillResource]> {
        self.entry.resources.listed()
    }

    /// Reads one file of the skill and checks it (rules 4 and 5).
    /// `reference` is a path relative to the skill's folder, such as
    /// `references/GUIDE.md`, or the file's full URI. A file the entry
    /// does not list is [`SkillError::Unlisted`], and no request is sent.
    pub async fn read(&self, reference: &str) -> Result<SkillFile, SkillError> {
        let uri = resolve(&self.entry, reference)?;
        if uri == self.entry.uri {
            return Ok(self.skill_md.clone());
        }
        self.fetch(uri).await
    }

    /// Reads `uri` and checks it against the held entry.
    async fn fetch(&self, uri: String) -> Result<SkillFile, SkillError> {
        let line = match &self.entry.resources {
            SkillResources::Listed(_) => {
                let line = self.entry.resource(&uri).ok_or(SkillError::Unlisted {
                    skill: self.entry.uri.clone(),
                    uri: uri.clone(),
                })?;
                Some(line)
            }
            SkillResources::Dynamic => {
                let inside = skill_root_uri(&self.entry.uri)
                    .is_some_and(|root| is_inside(root, &uri) || uri == self.entry.uri);
                if !inside {
                    return Err(SkillError::Unlisted {
                        skill: self.entry.uri.clone(),
                        uri,
                    });
                }
                None
            }
        };
        let read = self.client.read_resource(&uri).await?;
        let (bytes, mime_type) = contents_bytes(&uri, read)?;
        match line {
            Some(line) => check_bytes(line, &bytes)?,
            None => {
                let size = bytes.len() as u64;
                let before = self.retrieved.fetch_add(size, Ordering::Relaxed);
                if before.saturating_add(size) > SKILL_MAX_BYTES {
                    return Err(SkillError::DynamicTooLarge {
                        skill: self.entry.uri.clone(),
                        uri,
                        limit: SKILL_MAX_BYTES,
                    });
                }
            }
        }
        Ok(SkillFile {
            uri,
            mime_type,
            bytes,
        })
    }
}
