use presa::prelude::*;

/// The readme.
#[resource(mime_type = "text/markdown")]
async fn readme() -> String {
    String::new()
}

fn main() {}
