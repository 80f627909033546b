//! Finding `redis-server` on `PATH`: the one answer that the build script
//! (which has the Redis tests reported ignored without one) and the tests
//! (which start it) both go by.

use std::path::PathBuf;

/// The `redis-server` that running it by name would start, if any.
pub fn redis_server() -> Option<PathBuf> {
    let name = format!("redis-server{}", std::env::consts::EXE_SUFFIX);
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(&name))
        .find(|file| file.is_file())
}
