use presa::prelude::*;

#[derive(serde::Deserialize)]
struct Target {
    name: String,
}

#[tool]
async fn build(target: Target) -> String {
    target.name
}

fn main() {}
