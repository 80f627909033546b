use presa::prelude::*;

fn decide(_args: &BuildArgs) -> TaskPolicy {
    TaskPolicy::Optional
}

#[tool(task = decide)]
async fn build(target: String) -> String {
    target
}

fn main() {}
