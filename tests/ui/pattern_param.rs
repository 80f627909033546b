use presa::prelude::*;

#[tool]
async fn build((a, b): (String, String)) -> String {
    a + &b
}

fn main() {}
