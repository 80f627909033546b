use presa::prelude::*;

#[tool]
async fn build(ctx: Context, again: &Context) -> String {
    let _ = (ctx, again);
    String::new()
}

fn main() {}
