use presa::prelude::*;

#[tool]
async fn build(target: String) -> Result<u32, ToolError> {
    Ok(target.len() as u32)
}

fn main() {}
