use presa::prelude::*;

struct UserId(u32);

/// A user's profile.
#[resource(uri = "users://{id}")]
async fn profile(id: UserId) -> String {
    id.0.to_string()
}

fn main() {}
