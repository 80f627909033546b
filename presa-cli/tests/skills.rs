//! `presa skills` and `presa skill` as processes, against a hand-written
//! Skills server (the workspace's `tests/common/skill_shelf.rs`) served
//! over Streamable HTTP in the test's own process. Each test serves a
//! shelf of its own, since some change what a file serves.

// The tests here serve no task, so they read no `Served::server`.
#[allow(dead_code)]
mod common;

#[path = "../../tests/common/skill_shelf.rs"]
mod skill_shelf;

use std::path::PathBuf;
use std::process::Output;

use common::{Served, presa};
use presa::wire::{SkillDigest, SkillResource, SkillResources};
use serde_json::Value;

use skill_shelf::{Paging, SkillShelf, skill_md};

const GUIDE: &[u8] = b"# Guide\n\nStep one.\n";

/// A shelf with `pdf` (two files), two skills named `refunds`, and the
/// dynamic `daily`.
fn shelf() -> SkillShelf {
    let shelf = SkillShelf::new();
    shelf.add(
        "skill://pdf",
        &[
            ("SKILL.md", &skill_md("pdf", "Fill PDF forms")),
            ("references/GUIDE.md", GUIDE),
        ],
    );
    for team in ["billing", "support"] {
        let body = skill_md("refunds", &format!("Refunds, the {team} way"));
        shelf.add(
            &format!("skill://acme/{team}/refunds"),
            &[("SKILL.md", &body)],
        );
    }
    let body = skill_md("daily", "Live");
    let mut daily = SkillShelf::new().add("skill://daily", &[("SKILL.md", &body)]);
    daily.resources = SkillResources::Dynamic;
    shelf.add_entry(daily);
    shelf.serve("skill://daily/SKILL.md", &body);
    shelf
}

fn serve(shelf: &SkillShelf) -> Served {
    Served::new(shelf.server(Some(Paging::By(2))))
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh, empty folder of the test's own.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("skills-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn skills_shows_a_table_and_reads_no_file() {
    let shelf = shelf();
    let served = serve(&shelf);
    let output = presa(&["skills", &served.url]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let table = stdout(&output);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{table}");
    let pdf = lines
        .iter()
        .find(|l| l.starts_with("pdf "))
        .expect("a pdf row");
    let size = format!(
        "{} B",
        skill_md("pdf", "Fill PDF forms").len() + GUIDE.len()
    );
    for cell in [
        " 2 ",
        size.as_str(),
        "skill://pdf/SKILL.md",
        "Fill PDF forms",
    ] {
        assert!(pdf.contains(cell), "{cell}: {pdf}");
    }
    assert!(
        table.contains("skill://acme/billing/refunds/SKILL.md"),
        "{table}"
    );
    assert!(
        table.contains("skill://acme/support/refunds/SKILL.md"),
        "{table}"
    );
    let daily = lines.iter().find(|l| l.starts_with("daily")).unwrap();
    assert!(daily.contains("dynamic"), "{daily}");
    let output = presa(&["skills", &served.url, "--json"]);
    let listed: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(listed.as_array().unwrap().len(), 4, "{listed}");
    assert_eq!(
        listed[0]["resources"][1]["uri"],
        "skill://pdf/references/GUIDE.md"
    );
    assert!(shelf.reads().is_empty(), "{:?}", shelf.reads());
}

#[test]
fn skill_shows_the_entry_and_the_checked_skill_md() {
    let shelf = shelf();
    let served = serve(&shelf);
    let output = presa(&["skill", &served.url, "pdf"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let shown = stdout(&output);
    let digest = SkillDigest::of(GUIDE).to_string();
    for said in [
        "pdf  skill://pdf/SKILL.md",
        "description: Fill PDF forms",
        &digest,
        "Read references/GUIDE.md.",
    ] {
        assert!(shown.contains(said), "{said}: {shown}");
    }
    assert_eq!(shelf.reads(), ["skill://pdf/SKILL.md"]);
    let output = presa(&[
        "skill",
        &served.url,
        "skill://acme/support/refunds/SKILL.md",
        "--json",
    ]);
    let shown: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(
        shown["skill"]["frontmatter"]["description"],
        "Refunds, the support way"
    );
    assert!(
        shown["skillMd"]
            .as_str()
            .unwrap()
            .starts_with("---\nname: refunds")
    );
}

#[test]
fn a_name_two_skills_share_is_refused_with_both_uris() {
    let served = serve(&shelf());
    let output = presa(&["skill", &served.url, "refunds"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("2 skills are named `refunds`")
            && said.contains("skill://acme/billing/refunds/SKILL.md")
            && said.contains("skill://acme/support/refunds/SKILL.md"),
        "{said}"
    );
    let output = presa(&["skill", &served.url, "nothing"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no skill named `nothing`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_dynamic_skill_is_shown_only_when_allowed() {
    let served = serve(&shelf());
    let output = presa(&["skill", &served.url, "daily"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--allow-dynamic"),
        "{}",
        stderr(&output)
    );
    let output = presa(&["skill", &served.url, "daily", "--allow-dynamic"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("files: dynamic"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn save_writes_every_file_and_keeps_an_existing_folder_without_force() {
    let served = serve(&shelf());
    let dir = folder("save");
    let dir_arg = dir.to_str().unwrap();
    let output = presa(&["skill", &served.url, "pdf", "--save", dir_arg]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let saved = dir.join("pdf");
    assert_eq!(
        std::fs::read(saved.join("SKILL.md")).unwrap(),
        skill_md("pdf", "Fill PDF forms")
    );
    assert_eq!(
        std::fs::read(saved.join("references").join("GUIDE.md")).unwrap(),
        GUIDE
    );
    std::fs::write(saved.join("mine.txt"), "keep me").unwrap();
    let output = presa(&["skill", &served.url, "pdf", "--save", dir_arg]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("already exists; pass --force"),
        "{}",
        stderr(&output)
    );
    assert!(saved.join("mine.txt").exists());
    let output = presa(&["skill", &served.url, "pdf", "--save", dir_arg, "--force"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!saved.join("mine.txt").exists());
    assert_eq!(
        std::fs::read(saved.join("references").join("GUIDE.md")).unwrap(),
        GUIDE
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only the skill's folder: {leftovers:?}");
}

#[test]
fn save_refuses_a_path_that_would_leave_the_folder() {
    let shelf = SkillShelf::new();
    let body = skill_md("evil", "Writes outside");
    let mut entry = shelf.add("skill://evil", &[("SKILL.md", &body)]);
    let escaping = "skill://evil/a\\..\\..\\..\\escaped.txt";
    shelf.serve(escaping, b"outside");
    let SkillResources::Listed(files) = &mut entry.resources else {
        unreachable!()
    };
    files.push(SkillResource::of(escaping, b"outside"));
    let dotted = shelf.add(
        "skill://dotted",
        &[("SKILL.md", &skill_md("dotted", "Dots"))],
    );
    let mut dotted = dotted;
    let SkillResources::Listed(files) = &mut dotted.resources else {
        unreachable!()
    };
    files.push(SkillResource::of(
        "skill://dotted/../escaped.txt",
        b"outside",
    ));
    let lying = SkillShelf::new();
    lying.add_entry(entry);
    lying.add_entry(dotted);
    lying.serve("skill://evil/SKILL.md", &body);
    lying.serve(escaping, b"outside");
    lying.serve("skill://dotted/SKILL.md", &skill_md("dotted", "Dots"));
    let served = serve(&lying);
    let dir = folder("escape").join("inner");
    let dir_arg = dir.to_str().unwrap();
    let output = presa(&["skill", &served.url, "evil", "--save", dir_arg]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("presa saves nothing"),
        "{}",
        stderr(&output)
    );
    let output = presa(&["skill", &served.url, "dotted", "--save", dir_arg]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("outside the skill's folder"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.exists(), "nothing was written");
    assert!(!dir.parent().unwrap().join("escaped.txt").exists());
}

#[test]
fn a_file_that_does_not_match_its_digest_is_not_shown_or_saved() {
    let shelf = shelf();
    let served = serve(&shelf);
    let dir = folder("digest");
    shelf.serve("skill://pdf/references/GUIDE.md", b"# Guidf\n\nStep one.\n");
    let output = presa(&["skill", &served.url, "pdf", "--save", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("skill://pdf/references/GUIDE.md does not match the skill's entry")
            && said.contains(&SkillDigest::of(GUIDE).to_string()),
        "{said}"
    );
    assert!(!dir.join("pdf").exists());
    let mut body = skill_md("pdf", "Fill PDF forms");
    *body.last_mut().unwrap() = b'!';
    shelf.serve("skill://pdf/SKILL.md", &body);
    let output = presa(&["skill", &served.url, "pdf"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        !stdout(&output).contains("Read references"),
        "{}",
        stdout(&output)
    );
}
