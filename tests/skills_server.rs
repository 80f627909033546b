//! The Skills extension, server side (SEP-2640): skills loaded from a
//! folder, from memory and from files embedded at compile time; their
//! entries, files and folders over the in-process and stdio wires; and the
//! error at start for each rule a skill can break.
#![cfg(feature = "skills")]

use crate::common;

use std::path::{Path, PathBuf};

use common::{RawPeer, WIRES, error_code, meta};
use presa::server::Server;
use presa::server::skills::{SkillLibrary, SkillLoadError};
use presa::wire::{FrontmatterError, SkillDigest};
use serde_json::{Value, json};

const FIXTURES: &str = "tests/fixtures/skills";

fn fixture_library() -> SkillLibrary {
    SkillLibrary::from_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURES)).unwrap()
}

fn server(page_size: usize) -> Server {
    Server::builder("skills", "1")
        .page_size(page_size)
        .skills(fixture_library())
        .build()
}

fn params(mut fields: Value) -> Value {
    fields["_meta"] = meta(json!({}));
    fields
}

/// Every entry of a paged list of `method`, following the cursors, and
/// how many pages it took.
async fn all_pages(
    peer: &mut RawPeer,
    method: &str,
    mut fields: Value,
    key: &str,
) -> (Vec<Value>, usize) {
    let mut entries = Vec::new();
    for page in 1.. {
        let response = peer
            .request(page as i64, method, params(fields.clone()))
            .await;
        let result = &response["result"];
        assert_eq!(result["resultType"], "complete", "{response}");
        entries.extend(result[key].as_array().unwrap().iter().cloned());
        match result.get("nextCursor") {
            Some(cursor) => fields["cursor"] = cursor.clone(),
            None => return (entries, page),
        }
    }
    unreachable!()
}

/// The bytes of fixture file `path`.
fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(FIXTURES)
            .join(path),
    )
    .unwrap()
}

fn line(uri_path: &str) -> Value {
    let bytes = fixture(uri_path);
    json!({
        "uri": format!("skill://{uri_path}"),
        "digest": SkillDigest::of(&bytes).to_string(),
        "size": bytes.len(),
    })
}

#[tokio::test]
async fn discover_advertises_the_extension_with_directory_reads_and_resources() {
    let server = server(100);
    let mut peer = RawPeer::over(&server, WIRES[0]);
    let discover = peer.request(1, "server/discover", params(json!({}))).await;
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(capabilities["resources"].is_object(), "{capabilities}");
}

#[tokio::test]
async fn skills_list_pages_through_complete_entries_with_verbatim_frontmatter() {
    let server = server(2);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let first = peer.request(1, "skills/list", params(json!({}))).await;
        assert_eq!(first["result"]["ttlMs"], 300_000, "{first}");
        assert_eq!(first["result"]["cacheScope"], "public");
        assert!(first["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
        let (skills, pages) = all_pages(&mut peer, "skills/list", json!({}), "skills").await;
        assert_eq!(pages, 2, "{wire:?}");
        let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://git-workflow/SKILL.md",
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/forms/SKILL.md",
            ]
        );
        assert_eq!(
            skills[2]["frontmatter"],
            json!({"name": "pdf-processing",
                   "description": "Extract, fill, and assemble PDF documents",
                   "license": "Apache-2.0", "metadata": {"version": "2.1.0"}})
        );
        // The enclosing skill lists the nested skill's files too, and the
        // nested skill only its own.
        assert_eq!(
            skills[2]["resources"],
            json!([
                line("pdf-processing/SKILL.md"),
                line("pdf-processing/assets/logo.png"),
                line("pdf-processing/forms/SKILL.md"),
                line("pdf-processing/scripts/extract.py"),
                line("pdf-processing/templates/invoice.md"),
                line("pdf-processing/templates/regional/eu-invoice.md"),
            ])
        );
        assert_eq!(
            skills[3]["resources"],
            json!([line("pdf-processing/forms/SKILL.md")])
        );
    }
}

#[tokio::test]
async fn skills_get_returns_the_listed_entry_and_refuses_an_unknown_uri() {
    let server = server(100);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let (skills, _) = all_pages(&mut peer, "skills/list", json!({}), "skills").await;
        for (id, skill) in (10..).zip(&skills) {
            let got = peer
                .request(id, "skills/get", params(json!({"uri": skill["uri"]})))
                .await;
            let result = &got["result"];
            assert_eq!(&result["skill"], skill, "{wire:?}");
            assert_eq!(
                (result["ttlMs"].as_u64(), result["cacheScope"].as_str()),
                (Some(300_000), Some("public"))
            );
            assert!(result.get("nextCursor").is_none(), "{got}");
        }
        for unknown in [
            "skill://acme/billing/chargebacks/SKILL.md",
            "skill://pdf-processing/templates/invoice.md",
            "skill://pdf-processing",
        ] {
            let refused = peer
                .request(1, "skills/get", params(json!({"uri": unknown})))
                .await;
            assert_eq!(error_code(&refused), -32602);
            assert_eq!(
                refused["error"]["message"],
                format!("No skill is served at {unknown}")
            );
        }
        let no_uri = peer.request(2, "skills/get", params(json!({}))).await;
        assert_eq!(error_code(&no_uri), -32602, "{no_uri}");
        let bad_cursor = peer
            .request(3, "skills/list", params(json!({"cursor": "nope"})))
            .await;
        assert_eq!(error_code(&bad_cursor), -32602, "{bad_cursor}");
    }
}

#[tokio::test]
async fn every_file_reads_as_its_manifest_says_and_only_skill_md_is_listed() {
    let server = server(100);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let (resources, _) = all_pages(&mut peer, "resources/list", json!({}), "resources").await;
        assert_eq!(
            resources[0],
            json!({"uri": "skill://acme/billing/refunds/SKILL.md", "name": "refunds",
                   "description": "Process customer refund requests per company policy",
                   "mimeType": "text/markdown",
                   "size": fixture("acme/billing/refunds/SKILL.md").len()})
        );
        let listed: Vec<&str> = resources
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            listed.len(),
            4,
            "only the SKILL.md files are listed: {listed:?}"
        );
        assert!(listed.iter().all(|uri| uri.ends_with("/SKILL.md")));

        let skill_md = peer
            .request(
                1,
                "resources/read",
                params(json!({"uri": "skill://pdf-processing/SKILL.md"})),
            )
            .await;
        let contents = &skill_md["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/markdown");
        assert_eq!(
            contents["text"].as_str().unwrap().as_bytes(),
            fixture("pdf-processing/SKILL.md")
        );
        assert_eq!(skill_md["result"]["cacheScope"], "public");
        assert_eq!(skill_md["result"]["ttlMs"], 300_000);

        let script = peer
            .request(
                2,
                "resources/read",
                params(json!({"uri": "skill://pdf-processing/scripts/extract.py"})),
            )
            .await;
        let contents = &script["result"]["contents"][0];
        // No MIME type is registered for `.py`: text falls back to plain.
        assert_eq!(contents["mimeType"], "text/plain", "{script}");
        assert_eq!(
            contents["text"].as_str().unwrap().as_bytes(),
            fixture("pdf-processing/scripts/extract.py")
        );

        let logo = peer
            .request(
                3,
                "resources/read",
                params(json!({"uri": "skill://pdf-processing/assets/logo.png"})),
            )
            .await;
        let contents = &logo["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "image/png");
        use base64::Engine;
        let blob = base64::engine::general_purpose::STANDARD
            .decode(contents["blob"].as_str().unwrap())
            .unwrap();
        assert_eq!(blob, fixture("pdf-processing/assets/logo.png"));

        // The top folder's README belongs to no skill.
        let readme = peer
            .request(
                4,
                "resources/read",
                params(json!({"uri": "skill://README.md"})),
            )
            .await;
        assert_eq!(error_code(&readme), -32602, "{readme}");
    }
}

#[tokio::test]
async fn a_directory_read_lists_direct_children_in_pages() {
    let server = server(2);
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let (children, pages) = all_pages(
            &mut peer,
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing"}),
            "resources",
        )
        .await;
        assert_eq!(pages, 3, "{wire:?}");
        let summary: Vec<(&str, &str)> = children
            .iter()
            .map(|c| (c["uri"].as_str().unwrap(), c["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            summary,
            [
                ("skill://pdf-processing/SKILL.md", "text/markdown"),
                ("skill://pdf-processing/assets", "inode/directory"),
                ("skill://pdf-processing/forms", "inode/directory"),
                ("skill://pdf-processing/scripts", "inode/directory"),
                ("skill://pdf-processing/templates", "inode/directory"),
            ]
        );
        assert_eq!(children[1]["name"], "assets");
        let (templates, _) = all_pages(
            &mut peer,
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/templates"}),
            "resources",
        )
        .await;
        assert_eq!(templates[0]["name"], "invoice.md");
        assert_eq!(templates[0]["mimeType"], "text/markdown");
        assert_eq!(
            templates[1]["uri"],
            "skill://pdf-processing/templates/regional"
        );
        // A prefix above a skill is a folder too.
        let (acme, _) = all_pages(
            &mut peer,
            "resources/directory/read",
            json!({"uri": "skill://acme"}),
            "resources",
        )
        .await;
        assert_eq!(
            acme,
            [
                json!({"uri": "skill://acme/billing", "name": "billing", "mimeType": "inode/directory"})
            ]
        );

        let file = peer
            .request(
                1,
                "resources/directory/read",
                params(json!({"uri": "skill://pdf-processing/SKILL.md"})),
            )
            .await;
        assert_eq!(error_code(&file), -32602);
        assert_eq!(
            file["error"]["message"],
            "skill://pdf-processing/SKILL.md is not a directory resource"
        );
        for unknown in ["skill://nowhere", "skill://pdf-processing/", "file:///etc"] {
            let refused = peer
                .request(
                    2,
                    "resources/directory/read",
                    params(json!({"uri": unknown})),
                )
                .await;
            assert_eq!(error_code(&refused), -32602, "{refused}");
            assert_eq!(
                refused["error"]["message"],
                format!("No directory resource is served at {unknown}")
            );
        }
    }
}

#[tokio::test]
async fn a_legacy_session_reads_skill_files_as_ordinary_resources() {
    let server = server(100);
    let channel = common::connect(&server, presa::server::Caller::anonymous(), WIRES[0]);
    let (mut peer, initialized) = RawPeer::legacy(channel, "2025-11-25", json!({})).await;
    let capabilities = &initialized["result"]["capabilities"];
    assert!(capabilities["resources"].is_object(), "{initialized}");
    assert!(capabilities.get("extensions").is_none(), "{initialized}");
    let read = peer
        .request(
            1,
            "resources/read",
            json!({"uri": "skill://git-workflow/SKILL.md"}),
        )
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .as_bytes(),
        fixture("git-workflow/SKILL.md")
    );
    let list = peer.request(2, "skills/list", json!({})).await;
    assert_eq!(error_code(&list), -32601, "{list}");
}

#[test]
fn embedded_skills_are_the_folder_s_skills() {
    let embedded = presa::embed_skills!("tests/fixtures/skills").unwrap();
    assert_eq!(embedded.skills(), fixture_library().skills());
    assert_eq!(
        embedded.file("skill://pdf-processing/assets/logo.png"),
        Some(&fixture("pdf-processing/assets/logo.png")[..])
    );
}

#[test]
#[should_panic(expected = "extension `io.modelcontextprotocol/skills` is registered twice")]
fn one_server_serves_one_library() {
    let library =
        SkillLibrary::from_files([("a/SKILL.md", "---\nname: a\ndescription: d\n---\n")]).unwrap();
    let _ = Server::builder("s", "1")
        .skills(library.clone())
        .extension(presa::server::extension::Advertised::new(
            "io.modelcontextprotocol/skills",
            json!({}),
        ))
        .build();
}

// --- the errors at start ---------------------------------------------------

const GOOD: &str = "---\nname: a\ndescription: Does a\n---\n# A\n";

fn load(files: &[(&str, &[u8])]) -> Result<SkillLibrary, SkillLoadError> {
    SkillLibrary::from_files(files.iter().map(|&(path, bytes)| (path, bytes.to_vec())))
}

fn refusal(files: &[(&str, &[u8])]) -> (SkillLoadError, String) {
    let error = load(files).expect_err("the files break a rule");
    let message = error.to_string();
    (error, message)
}

#[test]
fn a_skill_md_without_frontmatter_is_refused_naming_its_folder() {
    let (error, message) = refusal(&[("a/SKILL.md", b"# A\nNo frontmatter.\n")]);
    assert!(
        matches!(
            error,
            SkillLoadError::Frontmatter {
                problem: FrontmatterError::Missing,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        message,
        "skill folder `a`: SKILL.md must start with YAML frontmatter between two `---` lines, and this one does not"
    );
}

#[test]
fn a_frontmatter_that_is_not_yaml_is_refused() {
    let (error, message) = refusal(&[("a/SKILL.md", b"---\nname: [a\n---\n")]);
    assert!(
        matches!(
            error,
            SkillLoadError::Frontmatter {
                problem: FrontmatterError::Yaml(_),
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        message.starts_with("skill folder `a`: the SKILL.md frontmatter is not valid YAML"),
        "{message}"
    );
}

#[test]
fn a_missing_name_or_description_is_refused() {
    let (error, message) = refusal(&[("a/SKILL.md", b"---\ndescription: Does a\n---\n")]);
    assert!(
        matches!(
            error,
            SkillLoadError::Frontmatter {
                problem: FrontmatterError::MissingField("name"),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        message,
        "skill folder `a`: the SKILL.md frontmatter must have a non-empty `name` string"
    );
    let (error, _) = refusal(&[("a/SKILL.md", b"---\nname: a\n---\n")]);
    assert!(
        matches!(
            error,
            SkillLoadError::Frontmatter {
                problem: FrontmatterError::MissingField("description"),
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_name_that_breaks_the_naming_rules_is_refused() {
    let (error, message) = refusal(&[(
        "Bad--Name/SKILL.md",
        b"---\nname: Bad--Name\ndescription: d\n---\n",
    )]);
    assert!(matches!(error, SkillLoadError::BadName { .. }), "{error:?}");
    assert_eq!(
        message,
        "skill folder `Bad--Name`: the name `Bad--Name` breaks the naming rules; use 1 to 64 \
         lowercase letters, digits and hyphens, with no hyphen at either end and none doubled"
    );
}

#[test]
fn a_name_that_is_not_the_folder_s_is_refused() {
    let (error, message) = refusal(&[("team/a/SKILL.md", b"---\nname: b\ndescription: d\n---\n")]);
    assert!(
        matches!(error, SkillLoadError::NameNotFolder { .. }),
        "{error:?}"
    );
    assert_eq!(
        message,
        "skill folder `team/a`: its SKILL.md says `name: b`, but the folder is called `a`; a \
         skill's name must be its folder's name, so rename one of them"
    );
}

#[test]
fn more_than_512_files_are_refused_nested_skills_counting() {
    let names: Vec<String> = (0..511).map(|i| format!("a/f{i}.txt")).collect();
    let mut files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    files.push(("a/SKILL.md", GOOD.as_bytes()));
    assert!(
        load(&files).is_ok(),
        "512 files, SKILL.md included, are allowed"
    );
    files.push(("a/one-more.txt", b"x"));
    let (error, message) = refusal(&files);
    assert!(
        matches!(error, SkillLoadError::TooManyFiles { files: 513, .. }),
        "{error:?}"
    );
    assert_eq!(
        message,
        "skill folder `a` has 513 files, more than the 512 a skill may have (SKILL.md and nested \
         skills count); split it into smaller skills"
    );
    // 300 files each side of a nesting: the inner skill is fine, the outer
    // one is not.
    let names: Vec<String> = (0..600)
        .map(|i| {
            if i < 300 {
                format!("a/f{i}.txt")
            } else {
                format!("a/b/f{i}.txt")
            }
        })
        .collect();
    let mut files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    files.push(("a/SKILL.md", GOOD.as_bytes()));
    files.push(("a/b/SKILL.md", b"---\nname: b\ndescription: d\n---\n"));
    let (error, _) = refusal(&files);
    assert!(
        matches!(&error, SkillLoadError::TooManyFiles { skill, files: 602 } if skill == "a"),
        "{error:?}"
    );
}

#[test]
fn more_than_16_mib_are_refused() {
    let limit = 16 * 1024 * 1024;
    let fill = vec![b'x'; limit - GOOD.len()];
    assert!(
        load(&[("a/SKILL.md", GOOD.as_bytes()), ("a/big.txt", &fill)]).is_ok(),
        "16 MiB exactly is allowed"
    );
    let fill = vec![b'x'; limit - GOOD.len() + 1];
    let (error, message) = refusal(&[("a/SKILL.md", GOOD.as_bytes()), ("a/big.txt", &fill)]);
    assert!(
        matches!(error, SkillLoadError::TooLarge { bytes, .. } if bytes == limit as u64 + 1),
        "{error:?}"
    );
    assert!(
        message
            .starts_with("skill folder `a` holds 16777217 bytes, more than the 16777216 (16 MiB)"),
        "{message}"
    );
}

#[test]
fn the_layout_of_the_folder_is_checked() {
    let (error, message) = refusal(&[("SKILL.md", GOOD.as_bytes())]);
    assert!(
        matches!(error, SkillLoadError::SkillAtTop { .. }),
        "{error:?}"
    );
    assert!(
        message.contains("put each skill in a subfolder named after it"),
        "{message}"
    );
    let (error, message) = refusal(&[
        ("a/SKILL.md", GOOD.as_bytes()),
        ("notes/skill.md", GOOD.as_bytes()),
    ]);
    assert!(
        matches!(error, SkillLoadError::FilesOutsideSkill { .. }),
        "{error:?}"
    );
    assert_eq!(
        message,
        "folder `notes` holds files but no SKILL.md, and is not inside a skill; name its skill \
         file SKILL.md, in capitals, or move the files into a skill"
    );
    let (error, _) = refusal(&[("README.md", b"hello")]);
    assert!(
        matches!(error, SkillLoadError::NoSkills { .. }),
        "{error:?}"
    );
    let (error, _) = refusal(&[("a/SKILL.md", b"---\nname: a\ndescription: \xff\n---\n")]);
    assert!(
        matches!(error, SkillLoadError::SkillMdNotText { .. }),
        "{error:?}"
    );
    for bad in [
        "../a/SKILL.md",
        "a//SKILL.md",
        "/a/SKILL.md",
        "a/./SKILL.md",
        "a\\b/SKILL.md",
    ] {
        let (error, _) = refusal(&[(bad, GOOD.as_bytes())]);
        assert!(
            matches!(error, SkillLoadError::BadPath { .. }),
            "{bad}: {error:?}"
        );
    }
    let (error, _) = refusal(&[
        ("a/SKILL.md", GOOD.as_bytes()),
        ("a/SKILL.md", GOOD.as_bytes()),
    ]);
    assert!(
        matches!(error, SkillLoadError::DuplicatePath { .. }),
        "{error:?}"
    );
    // A file at the top belongs to no skill, and is left out.
    let library = load(&[("README.md", b"hi"), ("a/SKILL.md", GOOD.as_bytes())]).unwrap();
    assert_eq!(library.file("skill://README.md"), None);
}

#[test]
fn names_a_uri_cannot_hold_are_percent_encoded() {
    let library = load(&[("a/SKILL.md", GOOD.as_bytes()), ("a/my notes/#1.md", b"x")]).unwrap();
    let uris: Vec<&str> = match &library.skills()[0].resources {
        presa::wire::SkillResources::Listed(files) => {
            files.iter().map(|f| f.uri.as_str()).collect()
        }
        presa::wire::SkillResources::Dynamic => unreachable!(),
    };
    assert_eq!(uris, ["skill://a/SKILL.md", "skill://a/my%20notes/%231.md"]);
}

// --- the errors only a folder on disk can have -----------------------------

/// A folder of its own under the system's temporary folder, removed when
/// dropped.
struct TempFolder(PathBuf);

impl TempFolder {
    fn new(name: &str) -> TempFolder {
        let path = std::env::temp_dir().join(format!("presa-skills-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempFolder(path)
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_missing_folder_is_refused_naming_it() {
    let folder = TempFolder::new("missing");
    let missing = folder.0.join("nowhere");
    let error = SkillLibrary::from_dir(&missing).unwrap_err();
    assert!(matches!(error, SkillLoadError::Io { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot read `{}`", missing.display())),
        "{error}"
    );
}

#[test]
fn a_disk_error_names_the_skill_folder_by_its_path() {
    let folder = TempFolder::new("named");
    folder.write("skills/a/SKILL.md", "---\nname: b\ndescription: d\n---\n");
    folder.write("skills/.git/HEAD", "ignored");
    let error = SkillLibrary::from_dir(folder.0.join("skills")).unwrap_err();
    let skill = folder.0.join("skills").join("a");
    assert!(
        error.to_string().starts_with(&format!(
            "skill folder `{}`: its SKILL.md says",
            skill.display()
        )),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_may_lead_inside_the_folder_but_not_outside() {
    use std::os::unix::fs::symlink;
    let folder = TempFolder::new("links");
    folder.write("skills/a/SKILL.md", GOOD);
    folder.write("secret.txt", "do not publish");
    symlink(
        folder.0.join("skills/a/SKILL.md"),
        folder.0.join("skills/a/copy.md"),
    )
    .unwrap();
    let library = SkillLibrary::from_dir(folder.0.join("skills")).unwrap();
    assert_eq!(library.file("skill://a/copy.md"), Some(GOOD.as_bytes()));

    symlink(
        folder.0.join("secret.txt"),
        folder.0.join("skills/a/secret.txt"),
    )
    .unwrap();
    let error = SkillLibrary::from_dir(folder.0.join("skills")).unwrap_err();
    assert!(
        matches!(error, SkillLoadError::SymlinkEscapes { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("outside the skills folder"),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_to_a_folder_that_contains_it_is_refused() {
    let folder = TempFolder::new("loop");
    folder.write("skills/a/SKILL.md", GOOD);
    std::os::unix::fs::symlink(folder.0.join("skills/a"), folder.0.join("skills/a/again")).unwrap();
    let error = SkillLibrary::from_dir(folder.0.join("skills")).unwrap_err();
    assert!(
        matches!(error, SkillLoadError::SymlinkLoop { .. }),
        "{error:?}"
    );
}

// Linux file systems take any bytes in a name; macOS's and Windows' take
// only Unicode.
#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let folder = TempFolder::new("utf8");
    folder.write("skills/a/SKILL.md", GOOD);
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff.md");
    std::fs::write(folder.0.join("skills/a").join(name), "x").unwrap();
    let error = SkillLibrary::from_dir(folder.0.join("skills")).unwrap_err();
    assert!(matches!(error, SkillLoadError::NotUtf8 { .. }), "{error:?}");
    assert!(error.to_string().contains("is not UTF-8"), "{error}");
}
