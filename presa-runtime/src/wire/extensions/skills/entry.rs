//! The skill entry (SEP-2640, "Skill Entries"): the one shape `skills/list`
//! and `skills/get` both return.
//!
//! An entry is a complete manifest. It names the skill's `SKILL.md`, carries
//! its frontmatter, and lists every file with its size and SHA-256 digest,
//! or says `"dynamic"` when the content has no stable digests. The types
//! here make the spec's rules hold by construction where they can:
//!
//! 1. a [`SkillDigest`] is always `sha256:` and 64 lowercase hex digits;
//! 2. [`SkillResources`] is either the list or `"dynamic"`, never absent;
//! 3. a [`SkillFrontmatter`](super::SkillFrontmatter) always has a string
//!    `name` and `description`.
//!
//! Reading an entry that breaks one of these rules fails, so a client never
//! holds an entry it must not load.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::frontmatter::SkillFrontmatter;

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files a skill may list (SEP-2640, "Limits"), `SKILL.md`
/// included. Every host must accept this many.
pub const SKILL_MAX_FILES: usize = 512;

/// The most bytes a skill's files may add up to (SEP-2640, "Limits"):
/// 16 MiB.
pub const SKILL_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The SHA-256 digest of a file's raw bytes, written `sha256:{hex}` on the
/// wire with 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SkillDigest([u8; 32]);

impl SkillDigest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> SkillDigest {
        use sha2::{Digest, Sha256};
        SkillDigest(Sha256::digest(bytes).into())
    }

    /// The 32 bytes of the digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Reads `sha256:{hex}`. Anything else (another algorithm, upper-case
    /// hex, the wrong length) is `None`.
    pub fn parse(text: &str) -> Option<SkillDigest> {
        let hex = text.strip_prefix("sha256:")?;
        if hex.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
            *byte = (lower_hex_value(pair[0])? << 4) | lower_hex_value(pair[1])?;
        }
        Some(SkillDigest(bytes))
    }
}

fn lower_hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for SkillDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sha256:")?;
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for SkillDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for SkillDigest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SkillDigest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        SkillDigest::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format_args!(
                "`{text}` is not a skill digest: it must be `sha256:` and 64 lowercase hex digits"
            ))
        })
    }
}

/// One file of a skill (the spec's `SkillResource`): where to read it, and
/// the size and digest its bytes must have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI, read with `resources/read`.
    pub uri: String,
    /// The SHA-256 digest of the file's raw bytes.
    pub digest: SkillDigest,
    /// The length of the file's raw bytes.
    pub size: u64,
}

impl SkillResource {
    /// The manifest line for `bytes` served at `uri`.
    pub fn of(uri: impl Into<String>, bytes: &[u8]) -> SkillResource {
        SkillResource {
            uri: uri.into(),
            digest: SkillDigest::of(bytes),
            size: bytes.len() as u64,
        }
    }

    /// Whether `bytes` are what this line describes: the same length, then
    /// the same digest. A length that differs fails without hashing.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.size && SkillDigest::of(bytes) == self.digest
    }
}

/// A skill's files: the complete list, or `"dynamic"` for content generated
/// so that no stable digest exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillResources {
    /// Every file of the skill, each once, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// The content is generated; the entry offers no integrity.
    Dynamic,
}

impl SkillResources {
    /// The listed files; `None` for a dynamic skill.
    pub fn listed(&self) -> Option<&[SkillResource]> {
        match self {
            SkillResources::Listed(files) => Some(files),
            SkillResources::Dynamic => None,
        }
    }

    /// The sum of the listed files' sizes; `None` for a dynamic skill.
    pub fn total_size(&self) -> Option<u64> {
        self.listed().map(|files| {
            files
                .iter()
                .fold(0u64, |sum, file| sum.saturating_add(file.size))
        })
    }
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Listed(files) => files.serialize(serializer),
            SkillResources::Dynamic => serializer.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Listed(Vec<SkillResource>),
            Word(String),
        }
        match Wire::deserialize(deserializer) {
            Ok(Wire::Listed(files)) => Ok(SkillResources::Listed(files)),
            Ok(Wire::Word(word)) if word == "dynamic" => Ok(SkillResources::Dynamic),
            Ok(Wire::Word(word)) => Err(serde::de::Error::custom(format_args!(
                "a skill's `resources` must be a list of files or \"dynamic\", not \"{word}\""
            ))),
            Err(_) => Err(serde::de::Error::custom(
                "a skill's `resources` must be a list of files (each with `uri`, a `sha256:` \
                 `digest` and `size`) or \"dynamic\"",
            )),
        }
    }
}

/// The entry for one skill, as `skills/list` and `skills/get` return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, field for field.
    pub frontmatter: SkillFrontmatter,
    /// The skill's files, or `"dynamic"`.
    pub resources: SkillResources,
}

impl Skill {
    /// The skill's name: its frontmatter's `name`.
    pub fn name(&self) -> &str {
        self.frontmatter.name()
    }

    /// The URI of the skill's root folder: [`uri`](Skill::uri) without its
    /// `/SKILL.md`. `None` when the URI does not end in `/SKILL.md`.
    pub fn root_uri(&self) -> Option<&str> {
        skill_root_uri(&self.uri)
    }

    /// The manifest line for the file at `uri`, if the entry lists it.
    pub fn resource(&self, uri: &str) -> Option<&SkillResource> {
        self.resources.listed()?.iter().find(|file| file.uri == uri)
    }
}

/// The root folder of the skill whose `SKILL.md` is at `uri`: the URI
/// without `/SKILL.md`. `None` when `uri` does not end in `/SKILL.md`.
pub fn skill_root_uri(uri: &str) -> Option<&str> {
    uri.strip_suffix(SKILL_MD)?.strip_suffix('/')
}

/// The skill name a `SKILL.md` URI carries: the path segment before
/// `/SKILL.md`. `None` when the URI has no such segment.
pub fn skill_name_in_uri(uri: &str) -> Option<&str> {
    let root = skill_root_uri(uri)?;
    let (_, path) = root.split_once("://")?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64
/// characters, lowercase letters, digits and hyphens, with no hyphen at
/// either end and no two in a row.
pub fn skill_name_is_valid(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_digest_round_trips_and_refuses_anything_but_lowercase_sha256() {
        let digest = SkillDigest::of(b"hello");
        let text = digest.to_string();
        assert_eq!(
            text,
            "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(SkillDigest::parse(&text), Some(digest));
        assert_eq!(SkillDigest::parse(&text.to_uppercase()), None);
        assert_eq!(SkillDigest::parse("sha512:00"), None);
        assert_eq!(SkillDigest::parse(&text[..70]), None);
        let error = serde_json::from_value::<SkillDigest>(json!("md5:abc")).unwrap_err();
        assert!(
            error.to_string().contains("64 lowercase hex digits"),
            "{error}"
        );
    }

    #[test]
    fn resources_are_a_list_or_dynamic_and_nothing_else() {
        let listed: SkillResources = serde_json::from_value(json!([
            {"uri": "skill://a/SKILL.md", "digest": SkillDigest::of(b"x").to_string(), "size": 1}
        ]))
        .unwrap();
        assert_eq!(listed.total_size(), Some(1));
        let dynamic: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic, SkillResources::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let error = serde_json::from_value::<SkillResources>(json!("static")).unwrap_err();
        assert!(error.to_string().contains("not \"static\""), "{error}");
        let error = serde_json::from_value::<SkillResources>(json!(7)).unwrap_err();
        assert!(error.to_string().contains("list of files"), "{error}");
        let error = serde_json::from_value::<Skill>(json!({
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "d"}
        }))
        .unwrap_err();
        assert!(error.to_string().contains("resources"), "{error}");
    }

    #[test]
    fn a_file_matches_its_line_by_size_then_digest() {
        let line = SkillResource::of("skill://a/SKILL.md", b"body");
        assert!(line.matches(b"body"));
        assert!(!line.matches(b"bodx"));
        assert!(!line.matches(b"body "));
    }

    #[test]
    fn the_name_and_root_come_from_the_uri() {
        assert_eq!(
            skill_name_in_uri("skill://acme/billing/refunds/SKILL.md"),
            Some("refunds")
        );
        assert_eq!(
            skill_name_in_uri("skill://git-workflow/SKILL.md"),
            Some("git-workflow")
        );
        assert_eq!(skill_name_in_uri("skill://git-workflow/README.md"), None);
        assert_eq!(skill_name_in_uri("skill:///SKILL.md"), None);
        assert_eq!(skill_root_uri("skill://a/b/SKILL.md"), Some("skill://a/b"));
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "git-workflow", "pdf2", &"x".repeat(64)] {
            assert!(skill_name_is_valid(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"x".repeat(65)] {
            assert!(!skill_name_is_valid(bad), "{bad}");
        }
    }
}
