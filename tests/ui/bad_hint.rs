use presa::prelude::*;

/// Looks things up.
#[tool(read_only = "yes", idempotent(true))]
async fn lookup(key: String) -> String {
    key
}

fn main() {}
