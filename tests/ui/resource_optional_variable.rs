use presa::prelude::*;

/// A user's profile.
#[resource(uri = "users://{id}/profile")]
async fn profile(id: Option<u32>) -> String {
    format!("{id:?}")
}

fn main() {}
