use presa::prelude::*;

#[derive(schemars::JsonSchema)]
struct Target {
    name: String,
}

#[tool]
async fn build(target: Target) -> String {
    target.name
}

fn main() {}
