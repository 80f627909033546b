use presa::prelude::*;

/// The size of a file.
#[resource(uri = "sizes://{path}")]
async fn size(path: String) -> u64 {
    path.len() as u64
}

fn main() {}
