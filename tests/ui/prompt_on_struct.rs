use presa::prelude::*;

#[prompt]
struct Review;

fn main() {}
