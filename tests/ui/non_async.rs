use presa::prelude::*;

/// Builds a target.
#[tool]
fn build(target: String) -> String {
    target
}

fn main() {}
