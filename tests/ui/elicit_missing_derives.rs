use presa::prelude::*;

#[derive(Elicit)]
struct Confirm {
    ok: bool,
}

fn main() {}
