use presa::prelude::*;

fn names(_typed: &str, _ctx: &CompletionContext) -> Vec<String> {
    Vec::new()
}

/// Greets someone.
#[tool]
async fn greet(#[param(complete = names)] name: String) -> String {
    name
}

fn main() {}
