use presa::prelude::*;

#[tool]
async fn build<T: serde::de::DeserializeOwned>(target: T) -> String {
    let _ = target;
    String::new()
}

fn main() {}
