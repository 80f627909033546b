//! [`SkillFileResource`]: one file of a skill, served as a resource
//! (SEP-2640, "Reading Skill Content" and "Resource Metadata").
//!
//! Each file is an ordinary fixed resource, registered with the server's
//! own, so a read of it is checked, hidden and layered as any other. A
//! `SKILL.md` is listed by `resources/list`, with the frontmatter's `name`
//! and `description` and `mimeType: text/markdown`. The other files are
//! not listed: a client learns of them from the skill's manifest, or from
//! `resources/directory/read`, when it needs them ("Lazy Retrieval"), and
//! a long list of scripts and templates would only crowd a resource
//! picker. Any of them is read by its URI.
//!
//! A file whose bytes are UTF-8 is sent as text, any other as a base64
//! blob, with the MIME type its name suggests. Both carry exactly the
//! bytes the manifest's digest covers.

use std::sync::Arc;

use async_trait::async_trait;

use super::library::SkillIndex;
use crate::server::handlers::resource::{
    ReadCache, ReadRequest, ReadResult, ResourceDefinition, ResourceHandler,
};
use crate::server::input::context::Context;
use crate::server::request::error::ToolError;
use crate::wire::{CacheScope, ResourceContents};

/// The resource of the file at `uri` of a library.
pub(super) struct SkillFileResource {
    index: Arc<SkillIndex>,
    uri: String,
    cache: ReadCache,
}

impl SkillFileResource {
    /// The file at `uri` of `index`, whose reads may be cached for `ttl`.
    pub fn new(index: Arc<SkillIndex>, uri: String, ttl: std::time::Duration) -> Self {
        SkillFileResource {
            index,
            uri,
            cache: ReadCache::new(ttl, CacheScope::Public),
        }
    }
}

#[async_trait]
impl ResourceHandler for SkillFileResource {
    fn definition(&self) -> ResourceDefinition {
        ResourceDefinition::Fixed(self.index.files[&self.uri].listing.clone())
    }

    fn cache(&self) -> ReadCache {
        self.cache
    }

    fn listed(&self) -> bool {
        self.index.files[&self.uri].skill_md
    }

    async fn read(&self, _ctx: Context, request: ReadRequest) -> ReadResult {
        let file = self
            .index
            .files
            .get(&request.uri)
            .ok_or_else(|| ToolError::internal("a skill file is registered but not loaded"))?;
        let contents = match std::str::from_utf8(&file.bytes) {
            Ok(text) if file.text => ResourceContents::text(&request.uri, text),
            _ => ResourceContents::bytes(&request.uri, &file.bytes),
        };
        let mime_type = file.listing.mime_type.as_deref().unwrap_or_default();
        Ok(request.result(vec![contents.with_mime_type(mime_type)]))
    }
}
