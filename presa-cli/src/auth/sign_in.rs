//! The OAuth sign-in, set in one command's HTTP options next to the bearer
//! token, and `presa logout`, which forgets what a sign-in kept.

use presa::client::HttpOptions;
use presa::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuthClient};

use super::token_folder::TokenFolder;
use crate::exit::Failure;
use crate::output::render;
use crate::output::shown::note;

/// The HTTP options for `url`: the bearer `token`, and the OAuth sign-in,
/// which may reach private networks when `private_networks`
/// (`--allow-private-networks`).
pub async fn http_options(
    url: &str,
    token: Option<String>,
    private_networks: bool,
) -> Result<HttpOptions, Failure> {
    let mut options = HttpOptions::default();
    if let Some(token) = token {
        options = options.bearer_token(token);
    }
    let folder = TokenFolder::of_user()?;
    match LoopbackAuthorizer::bind().await {
        Ok(authorizer) => {
            folder.make_private()?;
            let store = FileTokenStore::new(folder.file_for(url));
            Ok(options.oauth(sign_in(authorizer, store, private_networks)))
        }
        Err(e) => {
            note!("presa: no loopback port for an OAuth sign-in ({e}); going on without");
            Ok(options)
        }
    }
}

/// The OAuth client of a sign-in whose redirect `authorizer` takes and
/// whose tokens `store` keeps.
fn sign_in(
    authorizer: LoopbackAuthorizer,
    store: FileTokenStore,
    private_networks: bool,
) -> OAuthClient {
    let oauth = OAuthClient::new(authorizer)
        .client_name("presa")
        .token_store(store);
    match private_networks {
        true => oauth.allow_private_networks(),
        false => oauth,
    }
}

/// `presa logout`: forgets what the sign-in to `url` kept. Says so when
/// there was nothing to forget. With `json`, prints `{"url": URL, "signed_out": BOOL}` on stdout, where
/// `signed_out` says whether a sign-in was kept and is now gone.
pub fn logout(url: &str, json: bool) -> Result<(), Failure> {
    let forgot = TokenFolder::of_user()?.forget(url)?;
    if json {
        render::json(&serde_json::json!({ "url": url, "signed_out": forgot }));
    } else if forgot {
        note!("signed out of {url}");
    } else {
        note!("no sign-in to {url} was kept");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn private_networks_are_reached_only_when_the_flag_says_so() {
        for allowed in [false, true] {
            let authorizer = LoopbackAuthorizer::bind().await.unwrap();
            let store = FileTokenStore::new("unused.json");
            let shown = format!("{:?}", sign_in(authorizer, store, allowed));
            assert!(
                shown.contains(&format!("private_networks: {allowed}")),
                "{shown}"
            );
        }
    }
}
