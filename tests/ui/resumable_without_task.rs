use presa::prelude::*;

#[tool(resumable)]
async fn deploy() -> String {
    "deployed".into()
}

fn main() {}
