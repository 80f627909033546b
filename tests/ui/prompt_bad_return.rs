use presa::prelude::*;

/// Counts something.
#[prompt]
async fn count(word: String) -> Result<usize, ToolError> {
    Ok(word.len())
}

fn main() {}
