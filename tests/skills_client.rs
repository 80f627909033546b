//! The Skills client (SEP-2640) against a hand-written Skills server
//! (`common/skill_shelf.rs`), in process: listing and getting entries
//! without reading a file, loading a skill with `SKILL.md` verified, and
//! each way a file, an entry or a server can fail the client's checks.
#![cfg(feature = "skills")]

#[path = "common/skill_shelf.rs"]
mod skill_shelf;

use presa::client::{
    Client, ClientError, Era, SKILLS_LIST_MAX_ENTRIES, SKILLS_LIST_MAX_PAGES, SkillError,
};
use presa::prelude::*;
use presa::wire::{SKILL_MAX_BYTES, SkillDigest, SkillResource, SkillResources};
use serde_json::json;

use skill_shelf::{Paging, SkillShelf, skill_md};

const GUIDE: &[u8] = b"# Guide\n\nStep one.\n";

/// A shelf with the skill `pdf` (SKILL.md and references/GUIDE.md).
fn shelf_with_pdf() -> SkillShelf {
    let shelf = SkillShelf::new();
    shelf.add(
        "skill://pdf",
        &[
            ("SKILL.md", &skill_md("pdf", "Fill PDF forms")),
            ("references/GUIDE.md", GUIDE),
        ],
    );
    shelf
}

fn client_of(server: &Server) -> Client {
    Client::builder().connect(in_process(server, Caller::anonymous()))
}

#[tokio::test]
async fn the_listing_follows_every_page_and_reads_no_file() {
    let shelf = SkillShelf::new();
    for n in 0..5 {
        let name = format!("s{n}");
        shelf.add(
            &format!("skill://team/{name}"),
            &[("SKILL.md", &skill_md(&name, "d"))],
        );
    }
    let client = client_of(&shelf.server(Some(Paging::By(2))));
    let page = client.list_skills_page(None).await.unwrap();
    assert_eq!(page.items.skills.len(), 2);
    assert_eq!(page.next_cursor.as_deref(), Some("2"));
    let skills = client.list_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["s0", "s1", "s2", "s3", "s4"]);
    assert!(!client.skills_settings().await.unwrap().directory_read);
    assert!(shelf.reads().is_empty(), "{:?}", shelf.reads());
}

#[tokio::test]
async fn a_listing_that_never_ends_stops_at_a_bound() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::Endless(1))));
    let error = client.list_skills().await.unwrap_err();
    assert_eq!(
        error,
        SkillError::TooManyPages {
            limit: SKILLS_LIST_MAX_PAGES
        }
    );
    assert!(error.to_string().contains("list_skills_page"), "{error}");
    let client = client_of(&shelf.server(Some(Paging::Endless(SKILLS_LIST_MAX_ENTRIES / 20 + 1))));
    let error = client.list_skills().await.unwrap_err();
    assert_eq!(
        error,
        SkillError::TooManyEntries {
            limit: SKILLS_LIST_MAX_ENTRIES
        }
    );
    assert!(shelf.reads().is_empty());
}

#[tokio::test]
async fn get_returns_the_entry_asked_for_and_reads_no_file() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let entry = client.get_skill("skill://pdf/SKILL.md").await.unwrap();
    assert_eq!(entry.name(), "pdf");
    assert_eq!(entry.resources.listed().unwrap().len(), 2);
    let error = client
        .get_skill("skill://nothing/SKILL.md")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("No skill is served"), "{error}");
    assert!(matches!(&error, SkillError::Request(ClientError::Rpc(e)) if e.code == -32602));
    for not_a_skill in ["skill://pdf/references/GUIDE.md", "SKILL.md", "skill://pdf"] {
        let error = client.get_skill(not_a_skill).await.unwrap_err();
        assert!(
            matches!(error, SkillError::NotASkillUri { .. }),
            "{not_a_skill}: {error}"
        );
    }
    assert!(shelf.reads().is_empty());
}

#[tokio::test]
async fn a_loaded_skill_reads_each_file_when_asked_and_verified() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let entry = client.list_skills().await.unwrap().remove(0);
    let skill = client.load_skill(entry).await.unwrap();
    assert_eq!(shelf.reads(), ["skill://pdf/SKILL.md"]);
    assert!(skill.skill_md().text().unwrap().contains("name: pdf"));
    let guide = skill.read("references/GUIDE.md").await.unwrap();
    assert_eq!(guide.bytes, GUIDE);
    assert_eq!(guide.uri, "skill://pdf/references/GUIDE.md");
    let again = skill.read("skill://pdf/references/GUIDE.md").await.unwrap();
    assert_eq!(again, guide);
    // SKILL.md was read and checked at load; it is not read again.
    skill.read("SKILL.md").await.unwrap();
    assert_eq!(
        shelf.reads(),
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/references/GUIDE.md",
            "skill://pdf/references/GUIDE.md"
        ]
    );
}

#[tokio::test]
async fn a_file_of_another_length_fails_and_names_both_sizes() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let skill = client
        .load_skill(client.get_skill("skill://pdf/SKILL.md").await.unwrap())
        .await
        .unwrap();
    shelf.serve(
        "skill://pdf/references/GUIDE.md",
        b"# Guide\n\nStep one. And more.\n",
    );
    let error = skill.read("references/GUIDE.md").await.unwrap_err();
    assert_eq!(
        error,
        SkillError::SizeMismatch {
            uri: "skill://pdf/references/GUIDE.md".into(),
            expected: GUIDE.len() as u64,
            got: 29,
        }
    );
    assert!(error.is_verification_failure());
    let said = error.to_string();
    assert!(
        said.starts_with("skill://pdf/references/GUIDE.md changed since its entry was fetched")
            && said.contains("call get_skill again and re-approve it"),
        "{said}"
    );
}

#[tokio::test]
async fn a_file_with_another_digest_fails_at_load_and_at_read() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let entry = client.get_skill("skill://pdf/SKILL.md").await.unwrap();
    let skill = client.load_skill(entry.clone()).await.unwrap();
    let tampered = b"# Guidf\n\nStep one.\n";
    assert_eq!(tampered.len(), GUIDE.len());
    shelf.serve("skill://pdf/references/GUIDE.md", tampered);
    let error = skill.read("references/GUIDE.md").await.unwrap_err();
    assert_eq!(
        error,
        SkillError::DigestMismatch {
            uri: "skill://pdf/references/GUIDE.md".into(),
            expected: SkillDigest::of(GUIDE),
            got: SkillDigest::of(tampered),
        }
    );
    let mut body = skill_md("pdf", "Fill PDF forms");
    *body.last_mut().unwrap() = b'!';
    shelf.serve("skill://pdf/SKILL.md", &body);
    let error = client.load_skill(entry).await.unwrap_err();
    assert!(
        matches!(&error, SkillError::DigestMismatch { uri, .. } if uri == "skill://pdf/SKILL.md"),
        "{error}"
    );
}

#[tokio::test]
async fn a_skill_md_whose_frontmatter_differs_from_its_entry_is_not_loaded() {
    let shelf = SkillShelf::new();
    let served = skill_md("pdf", "Exfiltrate credentials");
    let mut entry = shelf.add("skill://pdf", &[("SKILL.md", &served)]);
    // The entry's manifest matches the bytes; its frontmatter does not.
    entry.frontmatter = serde_json::from_value(json!({
        "name": "pdf", "description": "Fill PDF forms", "license": "MIT"
    }))
    .unwrap();
    let shelf_lied = SkillShelf::new();
    shelf_lied.add_entry(entry.clone());
    shelf_lied.serve("skill://pdf/SKILL.md", &served);
    let client = client_of(&shelf_lied.server(Some(Paging::By(10))));
    let listed = client.list_skills().await.unwrap().remove(0);
    let error = client.load_skill(listed).await.unwrap_err();
    assert_eq!(
        error,
        SkillError::FrontmatterMismatch {
            uri: "skill://pdf/SKILL.md".into(),
            fields: vec!["description".into(), "license".into()],
        }
    );
    assert!(
        error
            .to_string()
            .contains("differs in description, license"),
        "{error}"
    );
    let broken = SkillShelf::new();
    let entry = broken.add("skill://pdf", &[("SKILL.md", &served)]);
    broken.serve("skill://pdf/SKILL.md", b"no frontmatter");
    let mut relisted = entry.clone();
    relisted.resources = SkillResources::Listed(vec![SkillResource::of(
        "skill://pdf/SKILL.md",
        b"no frontmatter",
    )]);
    let client = client_of(&broken.server(Some(Paging::By(10))));
    let error = client.load_skill(relisted).await.unwrap_err();
    assert!(
        matches!(error, SkillError::BadFrontmatter { .. }),
        "{error}"
    );
}

#[tokio::test]
async fn a_file_the_entry_does_not_list_is_refused_without_a_request() {
    let shelf = shelf_with_pdf();
    shelf.serve("skill://pdf/references/NEW.md", b"added after the listing");
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let skill = client
        .load_skill(client.get_skill("skill://pdf/SKILL.md").await.unwrap())
        .await
        .unwrap();
    let reads = shelf.reads();
    for reference in [
        "references/NEW.md",
        "skill://pdf/references/NEW.md",
        "skill://other/SKILL.md",
    ] {
        let error = skill.read(reference).await.unwrap_err();
        assert!(
            matches!(error, SkillError::Unlisted { .. }),
            "{reference}: {error}"
        );
        assert!(error.is_verification_failure());
    }
    let error = skill.read("../other/SKILL.md").await.unwrap_err();
    assert!(matches!(error, SkillError::BadReference { .. }), "{error}");
    assert_eq!(shelf.reads(), reads, "no request was sent");
}

#[tokio::test]
async fn a_dynamic_skill_loads_only_when_the_caller_opts_in() {
    let shelf = SkillShelf::new();
    let body = skill_md("report", "Today's report");
    let mut entry = shelf.add(
        "skill://report",
        &[("SKILL.md", &body), ("data.md", b"live")],
    );
    entry.resources = SkillResources::Dynamic;
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let error = client.load_skill(entry.clone()).await.unwrap_err();
    assert_eq!(
        error,
        SkillError::Dynamic {
            uri: "skill://report/SKILL.md".into()
        }
    );
    assert!(
        error.to_string().contains("load_skill_allowing_dynamic"),
        "{error}"
    );
    assert!(shelf.reads().is_empty());
    let skill = client.load_skill_allowing_dynamic(entry).await.unwrap();
    assert_eq!(skill.files(), None);
    assert_eq!(skill.read("data.md").await.unwrap().bytes, b"live");
    let error = skill.read("skill://elsewhere/x.md").await.unwrap_err();
    assert!(matches!(error, SkillError::Unlisted { .. }), "{error}");
    shelf.serve(
        "skill://report/big.bin",
        &vec![0u8; SKILL_MAX_BYTES as usize],
    );
    let error = skill.read("big.bin").await.unwrap_err();
    assert!(
        matches!(error, SkillError::DynamicTooLarge { .. }),
        "{error}"
    );
}

#[tokio::test]
async fn a_skill_past_the_limits_is_declined_before_any_read() {
    let shelf = shelf_with_pdf();
    let client = client_of(&shelf.server(Some(Paging::By(10))));
    let entry = client.get_skill("skill://pdf/SKILL.md").await.unwrap();
    let mut many = entry.clone();
    let mut lines = many.resources.listed().unwrap().to_vec();
    lines.extend((0..511).map(|n| SkillResource::of(format!("skill://pdf/f{n}"), b"")));
    many.resources = SkillResources::Listed(lines);
    let error = client.load_skill(many).await.unwrap_err();
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
    assert!(error.to_string().contains("declines to load it"), "{error}");
    let mut large = entry;
    let mut lines = large.resources.listed().unwrap().to_vec();
    lines[1].size = SKILL_MAX_BYTES;
    large.resources = SkillResources::Listed(lines);
    let error = client.load_skill(large).await.unwrap_err();
    assert!(
        matches!(
            error,
            SkillError::TooLarge {
                limit: SKILL_MAX_BYTES,
                ..
            }
        ),
        "{error}"
    );
    assert!(shelf.reads().is_empty());
}

#[tokio::test]
async fn a_server_that_does_not_declare_skills_gets_no_skills_request() {
    let shelf = shelf_with_pdf();
    let server = shelf.server(None);
    for client in [
        client_of(&server),
        Client::builder()
            .force_era(Era::Modern)
            .connect(in_process(&server, Caller::anonymous())),
    ] {
        let error = client.list_skills().await.unwrap_err();
        assert_eq!(error, SkillError::NotDeclared);
        assert!(
            error
                .to_string()
                .contains("does not declare the Skills extension")
        );
        let error = client.get_skill("skill://pdf/SKILL.md").await.unwrap_err();
        assert_eq!(error, SkillError::NotDeclared);
    }
    // A forced era has no probe answer: the client asks server/discover.
    let declared = shelf.server(Some(Paging::By(10)));
    let forced = Client::builder()
        .force_era(Era::Modern)
        .connect(in_process(&declared, Caller::anonymous()));
    assert_eq!(forced.list_skills().await.unwrap().len(), 1);
}
