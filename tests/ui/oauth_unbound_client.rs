use presa::client::HttpOptions;
use presa::client::oauth::OAuthClient;

fn main() {
    // A secret, and no word of the authorization server it belongs to.
    let oauth = OAuthClient::client_credentials("reporting-job").client_secret("s3cret");
    let _ = HttpOptions::default().oauth(oauth);
}
