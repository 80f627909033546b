use presa::prelude::*;

/// Greets someone.
#[prompt(name = "greet", task = "optional", titel = "Greet")]
async fn greet(name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
