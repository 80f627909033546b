use presa::prelude::*;

#[tool]
async fn route(
    #[param(header = "Region Name")] region: String,
    #[param(header = "Zone")] zone: String,
    #[param(header = "zone")] backup_zone: String,
    #[param(extract, header = "Who")] ctx: Context,
) -> String {
    let _ = ctx;
    format!("{region} {zone} {backup_zone}")
}

fn main() {}
