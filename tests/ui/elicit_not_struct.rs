use presa::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm(bool);

#[derive(Elicit)]
union Answer {
    yes: u8,
    no: u16,
}

fn main() {}
