use presa::prelude::*;

#[tool(name = "build target")]
async fn build(target: String) -> String {
    target
}

fn main() {}
