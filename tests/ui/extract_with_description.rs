use presa::prelude::*;

#[tool]
async fn build(#[param(extract, description = "The caller")] ctx: Context) -> String {
    let _ = ctx;
    String::new()
}

fn main() {}
