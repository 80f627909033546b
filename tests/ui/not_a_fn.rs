use presa::prelude::*;

#[tool]
struct Build {
    target: String,
}

fn main() {}
