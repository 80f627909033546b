use presa::prelude::*;

/// A URI that is not a `ui://` URI.
#[tool(ui = "https://example.com/dashboard")]
async fn web() -> String {
    String::new()
}

/// The scheme alone names no view.
#[tool(ui = "ui://")]
async fn bare() -> String {
    String::new()
}

/// A visibility that is not one of the words.
#[tool(ui = "ui://jobs/dashboard", visibility = "user")]
async fn unknown() -> String {
    String::new()
}

/// A visibility without a view.
#[tool(visibility = "app")]
async fn orphan() -> String {
    String::new()
}

/// `ui` takes a string.
#[tool(ui = jobs::DASHBOARD)]
async fn path() -> String {
    String::new()
}

fn main() {}
