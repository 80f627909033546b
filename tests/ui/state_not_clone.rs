use presa::prelude::*;

struct Db;

#[tool]
async fn build(State(_db): State<Db>) -> String {
    String::new()
}

fn main() {}
