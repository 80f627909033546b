use presa::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
enum Choice {
    Yes,
    Other(String),
}

fn main() {}
