use presa::prelude::*;

/// Says nothing.
#[prompt]
async fn silent(word: String) {
    let _ = word;
}

fn main() {}
