use presa::prelude::*;

#[tool(foo = "bar", task = "sync")]
async fn build(target: String) -> String {
    target
}

fn main() {}
