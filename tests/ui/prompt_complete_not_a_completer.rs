use presa::prelude::*;

fn languages(typed: u32) -> Vec<String> {
    vec![typed.to_string()]
}

/// Asks for a review.
#[prompt]
async fn review(#[param(complete = languages)] language: String) -> String {
    language
}

fn main() {}
