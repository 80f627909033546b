use presa::prelude::*;

/// The readme.
#[resource(uri = "file:///README.md")]
fn readme() -> String {
    String::new()
}

fn main() {}
