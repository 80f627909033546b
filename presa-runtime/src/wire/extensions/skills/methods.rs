//! The methods of the Skills extension (SEP-2640, "Listing Skills",
//! "Getting a Skill" and "Reading Directories"), and the setting a server
//! advertises for it.
//!
//! `skills/list` pages through entries like the core list methods, and
//! `skills/get` returns one entry by its `SKILL.md` URI. Both are cacheable
//! results, so both carry `ttlMs` and `cacheScope`. `resources/directory/read`
//! lists a folder's direct children, and a server offers it only when it
//! advertises `directoryRead: true`.

use serde::{Deserialize, Serialize};

use super::entry::Skill;
use crate::wire::protocol::{
    CacheScope, ListResult, MethodSpec, RequestMeta, ResultMeta, ResultType,
};
use crate::wire::values::Resource;

/// The extension identifier.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// `skills/list`: one page of skill entries.
pub const SKILLS_LIST: MethodSpec = MethodSpec {
    name: "skills/list",
    name_param: None,
};

/// `skills/get`: the entry of one skill, by the URI of its `SKILL.md`.
pub const SKILLS_GET: MethodSpec = MethodSpec {
    name: "skills/get",
    name_param: None,
};

/// `resources/directory/read`: the direct children of a folder resource.
pub const RESOURCES_DIRECTORY_READ: MethodSpec = MethodSpec {
    name: "resources/directory/read",
    name_param: None,
};

/// The MIME type of a folder resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The MIME type of a `SKILL.md` resource.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";

/// The `_meta` key prefix this extension reserves on skill resources.
pub const SKILLS_META_PREFIX: &str = "io.modelcontextprotocol.skills/";

/// What a server declares under `capabilities.extensions` for Skills.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillsSettings {
    /// The server answers `resources/directory/read`.
    #[serde(
        rename = "directoryRead",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub directory_read: bool,
}

/// The answer to `skills/list`.
pub type ListSkillsResult = ListResult<SkillsPage>;

/// The entries of one `skills/list` page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillsPage {
    /// The entries, in a stable order. A skill is never split across pages.
    pub skills: Vec<Skill>,
}

/// Params of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// The answer to `skills/get`: one entry, with no cursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// The entry.
    pub skill: Skill,
    /// How long the client may treat the entry as current.
    #[serde(
        rename = "ttlMs",
        default,
        deserialize_with = "crate::wire::protocol::result::lenient_ttl"
    )]
    pub ttl_ms: u64,
    /// Who may share the cached entry.
    #[serde(
        rename = "cacheScope",
        default = "crate::wire::protocol::result::public"
    )]
    pub cache_scope: CacheScope,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Params of `resources/directory/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryParams {
    /// The folder resource, with no trailing `/`.
    pub uri: String,
    /// Where to continue; from a previous `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// The answer to `resources/directory/read`: one page of a folder's direct
/// children. Subfolders have the MIME type [`DIRECTORY_MIME_TYPE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// The children on this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last page.
    #[serde(
        rename = "nextCursor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_setting_is_an_empty_object_unless_directories_are_read() {
        assert_eq!(
            serde_json::to_value(SkillsSettings::default()).unwrap(),
            json!({})
        );
        let on = SkillsSettings {
            directory_read: true,
        };
        assert_eq!(
            serde_json::to_value(on).unwrap(),
            json!({"directoryRead": true})
        );
        assert_eq!(
            serde_json::from_value::<SkillsSettings>(json!({})).unwrap(),
            SkillsSettings::default()
        );
    }

    #[test]
    fn the_spec_example_of_skills_get_reads() {
        let digest = super::super::SkillDigest::of(b"x").to_string();
        let result: GetSkillResult = serde_json::from_value(json!({
            "resultType": "complete",
            "skill": {
                "uri": "skill://pdf-processing/SKILL.md",
                "frontmatter": {"name": "pdf-processing", "description": "PDFs",
                                "metadata": {"version": "2.1.0"}},
                "resources": [{"uri": "skill://pdf-processing/SKILL.md", "digest": digest, "size": 1}]
            },
            "ttlMs": 300000,
            "cacheScope": "public"
        }))
        .unwrap();
        assert_eq!(result.skill.name(), "pdf-processing");
        assert_eq!(result.ttl_ms, 300_000);
    }
}
