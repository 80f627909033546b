use presa::prelude::*;
use presa::server::FromContext;

#[tool]
async fn build(target: impl Into<String>, #[param(extract)] who: impl FromContext) -> String {
    let _ = who;
    target.into()
}

fn main() {}
