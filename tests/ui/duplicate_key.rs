use presa::prelude::*;

#[tool(name = "a", name = "b")]
async fn build(target: String) -> String {
    target
}

fn main() {}
