use presa::prelude::*;

/// Summarises some lines.
#[prompt]
async fn summary(lines: Vec<String>) -> String {
    lines.join("\n")
}

fn main() {}
