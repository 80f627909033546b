use presa::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Form<T> {
    value: T,
}

fn main() {}
