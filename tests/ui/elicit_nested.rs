use presa::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Address {
    city: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Signup {
    name: String,
    address: Address,
    tags: Vec<String>,
}

fn main() {}
