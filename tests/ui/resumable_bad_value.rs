use presa::prelude::*;

#[tool(task = "optional", resumable = "yes")]
async fn deploy() -> String {
    "deployed".into()
}

fn main() {}
