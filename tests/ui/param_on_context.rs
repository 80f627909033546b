use presa::prelude::*;

#[tool]
async fn build(#[param(description = "The context")] ctx: Context) -> String {
    let _ = ctx;
    String::new()
}

fn main() {}
