use presa::prelude::*;

/// The readme.
#[resource(uri = "file:///README.md", ttl_ms = "1m", cache_scope = "shared")]
async fn readme() -> String {
    String::new()
}

fn main() {}
