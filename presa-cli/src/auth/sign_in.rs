//! The OAuth sign-in, set in one command's HTTP options next to the bearer
//! token, and `presa logout`, which forgets what a sign-in kept.

use presa::client::HttpOptions;
use presa::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuthClient};

use super::identity::Identity;
use super::token_folder::TokenFolder;
use crate::command_line::Common;
use crate::exit::Failure;
use crate::output::render;
use crate::output::shown::note;

/// How presa signs in, when a server wants OAuth.
pub struct SignIn {
    /// Who presa signs in as.
    pub identity: Identity,
    /// Whether the sign-in may reach private networks
    /// (`--allow-private-networks`).
    pub private_networks: bool,
    /// Whether the tokens are bound to a key of presa's (`--dpop`).
    pub dpop: bool,
}

impl SignIn {
    /// The sign-in the options of `common` ask for.
    pub fn of(common: &Common) -> Result<SignIn, Failure> {
        Ok(SignIn {
            identity: Identity::of(common)?,
            private_networks: common.allow_private_networks,
            dpop: common.dpop,
        })
    }
}

/// The HTTP options for `url`: the bearer `token`, and the OAuth sign-in
/// as `sign_in` says.
pub async fn http_options(
    url: &str,
    token: Option<String>,
    sign_in: SignIn,
) -> Result<HttpOptions, Failure> {
    let mut options = HttpOptions::default();
    if let Some(token) = token {
        options = options.bearer_token(token);
    }
    let authorizer = match sign_in.identity.needs_browser() {
        false => None,
        true => LoopbackAuthorizer::bind()
            .await
            .inspect_err(|e| {
                note!("presa: no loopback port for an OAuth sign-in ({e}); going on without");
            })
            .ok(),
    };
    let folder = TokenFolder::of_user()?;
    let store = FileTokenStore::new(folder.file_for(url));
    let Some(oauth) = sign_in.client(authorizer, store) else {
        return Ok(options);
    };
    folder.make_private()?;
    Ok(options.oauth(oauth))
}

impl SignIn {
    /// The OAuth client of this sign-in, the redirect of a person going
    /// to `authorizer`, keeping its tokens (and its DPoP key) in `store`;
    /// `None` for a person's sign-in with no authorizer.
    fn client(
        self,
        authorizer: Option<LoopbackAuthorizer>,
        store: FileTokenStore,
    ) -> Option<OAuthClient> {
        let mut oauth = self.identity.client(authorizer)?.token_store(store);
        if self.private_networks {
            oauth = oauth.allow_private_networks();
        }
        if self.dpop {
            oauth = oauth.dpop();
        }
        Some(oauth)
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
            let sign_in = SignIn {
                identity: Identity::Presa {
                    metadata_document: None,
                    issuer: None,
                },
                private_networks: allowed,
                dpop: false,
            };
            let shown = format!("{:?}", sign_in.client(Some(authorizer), store));
            assert!(
                shown.contains(&format!("private_networks: {allowed}")),
                "{shown}"
            );
        }
    }
}
