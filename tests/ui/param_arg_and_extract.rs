use presa::prelude::*;

#[tool]
async fn build(#[param(arg, extract)] target: String) -> String {
    target
}

fn main() {}
