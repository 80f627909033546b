use presa::prelude::*;

/// The caller's name; meant as an extractor, but `FromContext` is not
/// implemented for it.
struct Subject(String);

#[tool]
async fn whoami(#[param(extract)] Subject(who): Subject) -> String {
    who
}

fn main() {}
