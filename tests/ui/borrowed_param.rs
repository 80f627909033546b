use presa::prelude::*;

#[tool]
async fn build(target: &str, tags: Vec<&'static str>) -> String {
    format!("{target} {tags:?}")
}

fn main() {}
