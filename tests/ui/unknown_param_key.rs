use presa::prelude::*;

#[tool]
async fn build(#[param(desc = "What to build")] target: String) -> String {
    target
}

fn main() {}
