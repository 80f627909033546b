use presa::prelude::*;

mod mine {
    /// Where a text is shown; a JSON argument of the tool.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Context {
        pub locale: String,
    }
}

#[tool]
async fn translate(context: mine::Context, text: String) -> String {
    format!("{text} [{}]", context.locale)
}

fn main() {}
