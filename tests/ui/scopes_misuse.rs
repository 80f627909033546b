use presa::prelude::*;

/// Scopes as one string with a space.
#[tool(scopes = ["jobs:build jobs:read"])]
async fn spaced() -> String {
    String::new()
}

/// No scope at all.
#[tool(scopes = [])]
async fn empty_list() -> String {
    String::new()
}

/// A scope twice, and one that is not a string.
#[prompt(scopes = ["jobs:read", "jobs:read", jobs])]
async fn repeated() -> String {
    String::new()
}

/// A string instead of a list.
#[resource(uri = "jobs://all", scopes = "jobs:read")]
async fn not_a_list() -> String {
    String::new()
}

/// An empty scope.
#[tool(scopes = [""])]
async fn blank() -> String {
    String::new()
}

fn main() {}
