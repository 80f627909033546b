//! The OAuth sign-in, set in one command's HTTP options next to the bearer
//! token, and `presa logout`, which forgets what a sign-in kept.

use presa::client::HttpOptions;
use presa::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuthClient};

use super::identity::Identity;
use super::token_folder::TokenFolder;
use crate::exit::Failure;
use crate::output::render;
use crate::output::shown::note;

/// The HTTP options for `url`: the bearer `token`, and the OAuth sign-in
/// as `identity`, which may reach private networks when
/// `private_networks` (`--allow-private-networks`).
pub async fn http_options(
    url: &str,
    token: Option<String>,
    identity: Identity,
    private_networks: bool,
) -> Result<HttpOptions, Failure> {
    let mut options = HttpOptions::default();
    if let Some(token) = token {
        options = options.bearer_token(token);
    }
    let authorizer = match identity.needs_browser() {
        false => None,
        true => match LoopbackAuthorizer::bind().await {
            Ok(authorizer) => Some(authorizer),
            Err(e) => {
                note!("presa: no loopback port for an OAuth sign-in ({e}); going on without");
                return Ok(options);
            }
        },
    };
    let folder = TokenFolder::of_user()?;
    folder.make_private()?;
    let store = FileTokenStore::new(folder.file_for(url));
    Ok(options.oauth(sign_in(identity, authorizer, store, private_networks)))
}

/// The OAuth client that signs in as `identity`, the redirect of a person
/// going to `authorizer`, and keeps its tokens in `store`.
fn sign_in(
    identity: Identity,
    authorizer: Option<LoopbackAuthorizer>,
    store: FileTokenStore,
    private_networks: bool,
) -> OAuthClient {
    let oauth = identity.client(authorizer).token_store(store);
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
            let presa = Identity::Presa {
                metadata_document: None,
                issuer: None,
            };
            let shown = format!("{:?}", sign_in(presa, Some(authorizer), store, allowed));
            assert!(
                shown.contains(&format!("private_networks: {allowed}")),
                "{shown}"
            );
        }
    }
}
