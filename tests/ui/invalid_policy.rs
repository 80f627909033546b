use presa::prelude::*;

#[tool(task = "sometimes")]
async fn build(target: String) -> String {
    target
}

fn main() {}
