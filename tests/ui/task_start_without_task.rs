use presa::prelude::*;

#[tool(task_start = "explicit")]
async fn deploy(ctx: Context) -> String {
    ctx.start_task().await;
    "deployed".into()
}

fn main() {}
