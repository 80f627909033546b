//! The checks a client makes against a skill's entry, without the network
//! (SEP-2640, "Resources", "Limits" and "Integrity and Verification"). The
//! rules, in order:
//!
//! 1. an entry is loadable only if its `uri` is a `SKILL.md` URI whose
//!    last folder is the frontmatter's `name`, and, when it lists files,
//!    it lists its own `SKILL.md`, each file once, all inside the skill's
//!    folder;
//! 2. a listed entry may have at most [`SKILL_MAX_FILES`] files and
//!    [`SKILL_MAX_BYTES`] bytes, both counted from the entry before any
//!    file is read, so the client declines and says why;
//! 3. a path is resolved against the skill's folder as a file system
//!    would, and a path that climbs out of it names no file of the skill;
//! 4. a file's bytes are checked against its line: the length first, so a
//!    wrong length fails without hashing, then the SHA-256 digest;
//! 5. the bytes of a `resources/read` answer are those of its one
//!    contents whose `uri` is the file's: text as UTF-8, a blob decoded
//!    from base64.

use std::collections::HashSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::error::SkillError;
use crate::wire::{
    ReadResourceResult, ResourceBody, SKILL_MAX_BYTES, SKILL_MAX_FILES, Skill, SkillDigest,
    SkillResource, SkillResources, skill_name_in_uri, skill_root_uri,
};

/// Rules 1 and 2: whether the client may load `entry`.
pub(crate) fn check_entry(entry: &Skill) -> Result<(), SkillError> {
    let invalid = |reason: String| SkillError::InvalidEntry {
        uri: entry.uri.clone(),
        reason,
    };
    let (Some(root), Some(name)) = (skill_root_uri(&entry.uri), skill_name_in_uri(&entry.uri))
    else {
        return Err(invalid("its uri does not end in /SKILL.md".into()));
    };
    if name != entry.name() {
        return Err(invalid(format!(
            "its uri names the skill `{name}`, but its frontmatter names it `{}`",
            entry.name()
        )));
    }
    let SkillResources::Listed(files) = &entry.resources else {
        return Ok(());
    };
    if files.len() > SKILL_MAX_FILES {
        return Err(SkillError::TooManyFiles {
            uri: entry.uri.clone(),
            count: files.len(),
            limit: SKILL_MAX_FILES,
        });
    }
    let total = entry.resources.total_size().unwrap_or_default();
    if total > SKILL_MAX_BYTES {
        return Err(SkillError::TooLarge {
            uri: entry.uri.clone(),
            total,
            limit: SKILL_MAX_BYTES,
        });
    }
    let mut seen = HashSet::new();
    for file in files {
        if !seen.insert(file.uri.as_str()) {
            return Err(invalid(format!("it lists {} twice", file.uri)));
        }
        if !is_inside(root, &file.uri) {
            return Err(invalid(format!(
                "it lists {}, which is outside the skill's folder {root}",
                file.uri
            )));
        }
    }
    if !seen.contains(entry.uri.as_str()) {
        return Err(invalid(
            "its resources do not list its own SKILL.md, so SKILL.md cannot be verified".into(),
        ));
    }
    Ok(())
}

/// Whether `uri` is a file inside the folder `root`, with no `.` or `..`
/// segment that could make it mean another place.
pub(crate) fn is_inside(root: &str, uri: &str) -> bool {
    uri.strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|path| {
            path.split('/')
                .all(|segment| !matches!(segment, "" | "." | ".."))
        })
}

/// Rule 3: the URI that `reference` names in the skill `entry`: a URI is
/// kept as it is, a path is resolved against the skill's folder.
pub(crate) fn resolve(entry: &Skill, reference: &str) -> Result<String, SkillError> {
    let refuse = |reason| SkillError::BadReference {
        skill: entry.uri.clone(),
        reference: reference.to_owned(),
        reason,
    };
    if reference.contains("://") {
        return Ok(reference.to_owned());
    }
    let root = skill_root_uri(&entry.uri).ok_or(refuse("the skill's uri has no folder"))?;
    if reference.starts_with('/') || reference.contains('\\') {
        return Err(refuse(
            "a path inside a skill is relative and uses `/`, such as references/GUIDE.md",
        ));
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in reference.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments
                    .pop()
                    .ok_or(refuse("the path climbs out of the skill's folder"))?;
            }
            name => segments.push(name),
        }
    }
    if segments.is_empty() {
        return Err(refuse("the path names the skill's folder, not a file"));
    }
    Ok(format!("{root}/{}", segments.join("/")))
}

/// Rule 4: `bytes` are what `line` describes, or the mismatch.
pub(crate) fn check_bytes(line: &SkillResource, bytes: &[u8]) -> Result<(), SkillError> {
    let got = bytes.len() as u64;
    if got != line.size {
        return Err(SkillError::SizeMismatch {
            uri: line.uri.clone(),
            expected: line.size,
            got,
        });
    }
    let digest = SkillDigest::of(bytes);
    if digest != line.digest {
        return Err(SkillError::DigestMismatch {
            uri: line.uri.clone(),
            expected: line.digest,
            got: digest,
        });
    }
    Ok(())
}

/// Rule 5: the raw bytes of the file at `uri` in `read`, and its MIME type.
pub(crate) fn contents_bytes(
    uri: &str,
    read: ReadResourceResult,
) -> Result<(Vec<u8>, Option<String>), SkillError> {
    let unusable = |reason: String| SkillError::Contents {
        uri: uri.to_owned(),
        reason,
    };
    let mut matching = read.contents.into_iter().filter(|c| c.uri == uri);
    let contents = matching
        .next()
        .ok_or_else(|| unusable("it carries no contents for this uri".into()))?;
    if matching.next().is_some() {
        return Err(unusable(
            "it carries more than one contents for this uri".into(),
        ));
    }
    let bytes = match contents.body {
        ResourceBody::Text { text } => text.into_bytes(),
        ResourceBody::Blob { blob } => STANDARD
            .decode(blob)
            .map_err(|error| unusable(format!("its blob is not valid base64: {error}")))?,
    };
    Ok((bytes, contents.mime_type))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::{ResourceContents, SkillFrontmatter};

    fn entry(uri: &str, name: &str, files: Vec<SkillResource>) -> Skill {
        let frontmatter = json!({"name": name, "description": "d"});
        Skill {
            uri: uri.into(),
            frontmatter: serde_json::from_value::<SkillFrontmatter>(frontmatter).unwrap(),
            resources: SkillResources::Listed(files),
        }
    }

    fn line(uri: &str, size: u64) -> SkillResource {
        SkillResource {
            size,
            ..SkillResource::of(uri, b"")
        }
    }

    #[test]
    fn an_entry_must_name_itself_list_itself_and_stay_in_its_folder() {
        let good = entry(
            "skill://a/b/SKILL.md",
            "b",
            vec![line("skill://a/b/SKILL.md", 1)],
        );
        assert_eq!(check_entry(&good), Ok(()));
        let cases = [
            (
                entry("skill://a/b/SKILL.md", "c", vec![]),
                "names the skill `b`",
            ),
            (
                entry("skill://a/b/README.md", "b", vec![]),
                "does not end in /SKILL.md",
            ),
            (
                entry("skill://b/SKILL.md", "b", vec![line("skill://b/x", 1)]),
                "do not list its own SKILL.md",
            ),
            (
                entry(
                    "skill://b/SKILL.md",
                    "b",
                    vec![line("skill://b/SKILL.md", 1), line("skill://c/x", 1)],
                ),
                "outside the skill's folder",
            ),
            (
                entry(
                    "skill://b/SKILL.md",
                    "b",
                    vec![line("skill://b/SKILL.md", 1), line("skill://b/../c/x", 1)],
                ),
                "outside the skill's folder",
            ),
            (
                entry(
                    "skill://b/SKILL.md",
                    "b",
                    vec![line("skill://b/SKILL.md", 1), line("skill://b/SKILL.md", 1)],
                ),
                "twice",
            ),
        ];
        for (entry, said) in cases {
            let error = check_entry(&entry).unwrap_err();
            assert!(
                matches!(error, SkillError::InvalidEntry { .. })
                    && error.to_string().contains(said),
                "{said}: {error}"
            );
        }
    }

    #[test]
    fn the_limits_are_counted_from_the_entry() {
        let mut files = vec![line("skill://b/SKILL.md", 1)];
        files.extend((1..SKILL_MAX_FILES).map(|n| line(&format!("skill://b/f{n}"), 1)));
        assert_eq!(
            check_entry(&entry("skill://b/SKILL.md", "b", files.clone())),
            Ok(())
        );
        files.push(line("skill://b/one-more", 1));
        let error = check_entry(&entry("skill://b/SKILL.md", "b", files)).unwrap_err();
        assert!(
            matches!(
                error,
                SkillError::TooManyFiles {
                    count: 513,
                    limit: 512,
                    ..
                }
            ),
            "{error}"
        );
        let exact = vec![line("skill://b/SKILL.md", SKILL_MAX_BYTES)];
        assert_eq!(
            check_entry(&entry("skill://b/SKILL.md", "b", exact)),
            Ok(())
        );
        let over = vec![
            line("skill://b/SKILL.md", SKILL_MAX_BYTES),
            line("skill://b/x", 1),
        ];
        let error = check_entry(&entry("skill://b/SKILL.md", "b", over)).unwrap_err();
        assert!(error.to_string().contains("16777217 bytes"), "{error}");
    }

    #[test]
    fn a_path_resolves_inside_the_folder_or_not_at_all() {
        let skill = entry("skill://acme/refunds/SKILL.md", "refunds", vec![]);
        let resolved = |path| resolve(&skill, path);
        assert_eq!(
            resolved("references/GUIDE.md").unwrap(),
            "skill://acme/refunds/references/GUIDE.md"
        );
        assert_eq!(
            resolved("./a/../b.md").unwrap(),
            "skill://acme/refunds/b.md"
        );
        assert_eq!(resolved("skill://x/y").unwrap(), "skill://x/y");
        for bad in ["../other/SKILL.md", "/etc/passwd", "a\\b", "a/..", ""] {
            let error = resolved(bad).unwrap_err();
            assert!(
                matches!(error, SkillError::BadReference { .. }),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn the_length_is_checked_before_the_digest() {
        let good = SkillResource::of("skill://b/x", b"body");
        assert_eq!(check_bytes(&good, b"body"), Ok(()));
        let error = check_bytes(&good, b"body!").unwrap_err();
        assert_eq!(
            error,
            SkillError::SizeMismatch {
                uri: "skill://b/x".into(),
                expected: 4,
                got: 5
            }
        );
        let error = check_bytes(&good, b"bodx").unwrap_err();
        assert!(
            matches!(error, SkillError::DigestMismatch { .. }),
            "{error}"
        );
        let said = error.to_string();
        assert!(
            said.contains(&good.digest.to_string())
                && said.contains(&SkillDigest::of(b"bodx").to_string())
                && said.contains("call get_skill again and re-approve it"),
            "{said}"
        );
    }

    #[test]
    fn the_bytes_are_those_of_the_one_contents_for_the_uri() {
        let read = |contents| ReadResourceResult::new(contents);
        let (bytes, _) = contents_bytes(
            "skill://b/x",
            read(vec![ResourceContents::bytes("skill://b/x", &[0, 255])]),
        )
        .unwrap();
        assert_eq!(bytes, [0, 255]);
        let (bytes, _) = contents_bytes(
            "skill://b/x",
            read(vec![ResourceContents::text("skill://b/x", "é")]),
        )
        .unwrap();
        assert_eq!(bytes, "é".as_bytes());
        for contents in [
            vec![],
            vec![ResourceContents::text("skill://b/y", "a")],
            vec![
                ResourceContents::text("skill://b/x", "a"),
                ResourceContents::text("skill://b/x", "a"),
            ],
            vec![ResourceContents::blob("skill://b/x", "%%")],
        ] {
            let error = contents_bytes("skill://b/x", read(contents)).unwrap_err();
            assert!(matches!(error, SkillError::Contents { .. }), "{error}");
        }
    }
}
