//! The Skills methods of [`Client`] (SEP-2640, "Capability Negotiation",
//! "Listing Skills" and "Getting a Skill"). The rules, in order:
//!
//! 1. the client sends `skills/list` or `skills/get` only to a server that
//!    declared the extension: it reads the declaration from the answer to
//!    its `server/discover` probe, and asks `server/discover` again only
//!    when the era settled without one (a forced era);
//! 2. [`Client::list_skills`] follows `nextCursor` to the last page, but
//!    no further than [`SKILLS_LIST_MAX_PAGES`] pages and
//!    [`SKILLS_LIST_MAX_ENTRIES`] entries, so a hostile server cannot grow
//!    the client's memory without bound; a cursor seen twice is an error,
//!    not a loop;
//! 3. [`Client::get_skill`] takes only a `SKILL.md` URI, and the entry it
//!    returns must be the one asked for;
//! 4. none of these reads a file: a skill's files are fetched when it is
//!    loaded ([`Client::load_skill`]), never ahead of need ("Lazy
//!    Retrieval").

use std::collections::HashSet;
use std::sync::Arc;

use super::error::SkillError;
use crate::client::api::Client;
use crate::client::connection::ServerEra;
use crate::client::error::ClientError;
use crate::wire::{
    GetSkillParams, GetSkillResult, ListSkillsResult, PaginatedParams, SKILLS_EXTENSION,
    SKILLS_GET, SKILLS_LIST, Skill, SkillsSettings, skill_root_uri,
};

/// The most pages [`Client::list_skills`] follows.
pub const SKILLS_LIST_MAX_PAGES: usize = 100;

/// The most entries [`Client::list_skills`] keeps. An entry may list up to
/// 512 files, so this bounds the listing to a few hundred megabytes at
/// worst, and far less in practice.
pub const SKILLS_LIST_MAX_ENTRIES: usize = 10_000;

impl Client {
    /// What the server declared for the Skills extension (rule 1), or
    /// [`SkillError::NotDeclared`].
    pub async fn skills_settings(&self) -> Result<SkillsSettings, SkillError> {
        let capabilities = match self.server_era().await? {
            ServerEra::Modern {
                discovered: Some(capabilities),
                ..
            } => capabilities,
            _ => Arc::new(self.discover().await?.capabilities),
        };
        let declared = capabilities
            .extensions
            .as_ref()
            .and_then(|extensions| extensions.get(SKILLS_EXTENSION))
            .ok_or(SkillError::NotDeclared)?;
        serde_json::from_value(declared.clone()).map_err(|error| {
            SkillError::Request(ClientError::InvalidResponse(format!(
                "the server declares the Skills extension with settings that are not an \
                 object of known settings: {error}"
            )))
        })
    }

    /// One page of `skills/list`, from `cursor` (`None` for the first).
    /// Reads no file.
    pub async fn list_skills_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListSkillsResult, SkillError> {
        self.skills_settings().await?;
        let params = PaginatedParams { cursor, meta: None };
        Ok(self.request_complete(SKILLS_LIST, &params).await?)
    }

    /// Every skill the server lists, following `nextCursor` to the last
    /// page (rule 2). Reads no file. A listing may be partial, so a skill
    /// missing here may still be served: get it by URI with
    /// [`get_skill`](Self::get_skill).
    pub async fn list_skills(&self) -> Result<Vec<Skill>, SkillError> {
        let mut skills = Vec::new();
        let mut seen = HashSet::new();
        let mut cursor = None;
        for _ in 0..SKILLS_LIST_MAX_PAGES {
            let page = self.list_skills_page(cursor).await?;
            if skills.len() + page.items.skills.len() > SKILLS_LIST_MAX_ENTRIES {
                return Err(SkillError::TooManyEntries {
                    limit: SKILLS_LIST_MAX_ENTRIES,
                });
            }
            skills.extend(page.items.skills);
            match page.next_cursor {
                None => return Ok(skills),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(SkillError::Request(ClientError::InvalidResponse(format!(
                        "skills/list returned the cursor {next:?} twice"
                    ))));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(SkillError::TooManyPages {
            limit: SKILLS_LIST_MAX_PAGES,
        })
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`
    /// (rule 3). Reads no file. Call it again to refresh an entry whose
    /// files failed verification.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, SkillError> {
        if skill_root_uri(uri).is_none_or(|root| !root.contains("://")) {
            return Err(SkillError::NotASkillUri {
                uri: uri.to_owned(),
            });
        }
        self.skills_settings().await?;
        let params = GetSkillParams {
            uri: uri.to_owned(),
            meta: None,
        };
        let result: GetSkillResult = self.request_complete(SKILLS_GET, &params).await?;
        if result.skill.uri != uri {
            return Err(SkillError::Request(ClientError::InvalidResponse(format!(
                "skills/get for {uri} returned the entry of {}",
                result.skill.uri
            ))));
        }
        Ok(result.skill)
    }
}
