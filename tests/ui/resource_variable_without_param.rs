use presa::prelude::*;

/// A tab of a user's profile.
#[resource(uri = "users://{id}/{tab}")]
async fn profile_tab(id: u32) -> String {
    id.to_string()
}

fn main() {}
