use presa::prelude::*;

#[tool(task = "optional", task_start = "explicit", resumable)]
async fn deploy(ctx: Context) -> String {
    ctx.start_task().await;
    "deployed".into()
}

fn main() {}
