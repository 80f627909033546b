use presa::prelude::*;

#[derive(serde::Deserialize, Elicit)]
enum Color {
    Red,
    Green,
}

fn main() {}
