use presa::prelude::*;

/// A layer written as a string.
#[tool(layer = "timeout")]
async fn quoted() -> String {
    String::new()
}

/// A layer option without a value.
#[prompt(layer)]
async fn bare() -> String {
    String::new()
}

/// Something that is not a tower layer.
#[resource(uri = "notes://all", layer = 30)]
async fn notes() -> String {
    String::new()
}

fn main() {}
