//! Authentication to HTTP servers: a `--token` given on the line, or an
//! OAuth sign-in when the server asks for one.
//!
//! The sign-in takes the redirect on a loopback port, printing the URL to
//! open, and keeps what it got (registration, tokens) in a file of its
//! own per server under the user's config directory
//! (`presa/tokens/`, or under `PRESA_CONFIG_DIR` when set), so that the
//! next command is signed in already; `presa logout SERVER` deletes that
//! file. A token given with `--token` is sent first, and never kept.

use std::path::PathBuf;

use presa::client::HttpOptions;
use presa::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuthClient};

use crate::exit::Failure;
use crate::shown::note;

/// The environment variable that moves the config directory.
const CONFIG_DIR: &str = "PRESA_CONFIG_DIR";

/// The HTTP options for `url`: the bearer `token`, and the OAuth sign-in.
pub async fn http_options(url: &str, token: Option<String>) -> Result<HttpOptions, Failure> {
    let mut options = HttpOptions::default();
    if let Some(token) = token {
        options = options.bearer_token(token);
    }
    let store = token_file(url)?;
    match LoopbackAuthorizer::bind().await {
        Ok(authorizer) => {
            if let Some(dir) = store.parent() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    Failure::protocol(format!("cannot create {}: {e}", dir.display()))
                })?;
            }
            let oauth = OAuthClient::new(authorizer)
                .client_name("presa")
                .token_store(FileTokenStore::new(store));
            Ok(options.oauth(oauth))
        }
        Err(e) => {
            note!("presa: no loopback port for an OAuth sign-in ({e}); going on without");
            Ok(options)
        }
    }
}

/// `presa logout`: forgets what the sign-in to `url` kept. Says so when
/// there was nothing to forget.
pub fn logout(url: &str) -> Result<(), Failure> {
    let file = token_file(url)?;
    match std::fs::remove_file(&file) {
        Ok(()) => {
            note!("signed out of {url}");
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            note!("no sign-in to {url} was kept");
            Ok(())
        }
        Err(e) => Err(Failure::protocol(format!(
            "cannot delete {}: {e}",
            file.display()
        ))),
    }
}

/// The file that keeps the sign-in to `url`: its name is the URL with
/// every character but letters and digits made `_`.
fn token_file(url: &str) -> Result<PathBuf, Failure> {
    let dir = match std::env::var_os(CONFIG_DIR) {
        Some(dir) => PathBuf::from(dir),
        None => dirs::config_dir()
            .ok_or_else(|| Failure::protocol("this system has no config directory for tokens"))?
            .join("presa"),
    };
    let name: String = url
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Ok(dir.join("tokens").join(format!("{name}.json")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_has_a_file_of_its_own() {
        let a = token_file("https://a.example/mcp").unwrap();
        let b = token_file("https://b.example/mcp").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.file_name().unwrap(), "https___a_example_mcp.json");
    }
}
