use presa::prelude::*;

/// A user's profile.
#[resource(uri = "users://{id}/profile")]
async fn profile(id: u32, name: String) -> String {
    format!("{id} {name}")
}

/// The readme.
#[resource(uri = "file:///README.md")]
async fn readme(lang: String) -> String {
    lang
}

fn main() {}
