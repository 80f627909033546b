use presa::prelude::*;

fn names(_typed: &str, _ctx: &CompletionContext) -> Vec<String> {
    Vec::new()
}

/// Greets the caller.
#[prompt]
async fn greet(#[param(extract, complete = names)] ctx: Context, name: String) -> String {
    let _ = ctx;
    name
}

fn main() {}
