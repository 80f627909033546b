use presa::prelude::*;

/// Search results.
#[resource(uri = "search://results{?q}")]
async fn search(q: String) -> String {
    q
}

fn main() {}
