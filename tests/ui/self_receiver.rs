use presa::prelude::*;

struct Builder;

impl Builder {
    #[tool]
    async fn build(&self, target: String) -> String {
        target
    }
}

fn main() {}
