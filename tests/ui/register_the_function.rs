use presa::prelude::*;

/// Asks for a review.
#[prompt]
async fn code_review(code: String) -> String {
    code
}

/// The readme.
#[resource(uri = "file:///README.md")]
async fn readme() -> &'static str {
    "# Readme"
}

fn main() {
    let _ = Server::builder("s", "1")
        .prompt(code_review)
        .resource(readme)
        .build();
}
