use presa::prelude::*;

#[tool]
async fn build(ctx: &mut Context) -> String {
    let _ = ctx;
    String::new()
}

fn main() {}
