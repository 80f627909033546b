use presa::prelude::*;

#[tool]
async fn build(#[param(arg = true)] target: String) -> String {
    target
}

fn main() {}
