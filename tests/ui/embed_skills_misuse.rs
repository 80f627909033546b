/// The folder must be a string literal, not a path to a constant.
fn from_a_path() {
    let _ = presa::embed_skills!(SKILLS);
}

/// One folder only.
fn two_folders() {
    let _ = presa::embed_skills!("skills", "more");
}

fn main() {}
