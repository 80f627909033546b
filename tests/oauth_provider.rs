//! presa's OAuth client against a real, certified authorization server:
//! oidc-provider (`scripts/oauth/provider.mjs`) in front of the
//! `oauth_server` example, both started by `scripts/oauth_e2e.sh`, which
//! runs this file (`cargo test --test oauth_provider`); plain `cargo test`
//! does not, since it needs those servers.
//!
//! - A user signs in by the authorization code grant. The user-agent step
//!   is oidc-provider's development login and consent pages, driven over
//!   HTTP as a browser would, cookies and all. The client registers
//!   itself (RFC 7591), since nothing is configured for it.
//! - The user's access tokens live seconds: the client refreshes, and the
//!   user is not asked again.
//! - `build` needs `jobs:build`, more than the sign-in scope: the client
//!   steps up, the user consents once more, and the build runs as a task.
//! - A machine client does the same by the client credentials grant.
//!
//! Environment (the script sets it): `E2E_RESOURCE`, the example's MCP
//! endpoint; `E2E_ISSUER`, the provider's issuer; `E2E_CLIENT_ID` and
//! `E2E_CLIENT_SECRET`, the machine client registered there.
#![cfg(all(feature = "oauth-client", feature = "http-client"))]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use presa::client::oauth::{
    Authorizer, AuthorizerError, MemoryTokenStore, OAuthClient, SignedIn, TokenStore,
    TokenStoreError, async_trait,
};
use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientTransport, HttpOptions};
use presa::prelude::*;
use reqwest::Url;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::{Value, json};

/// The redirect URI registered: never listened on, since the redirect is
/// read, not followed.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// Pages a sign-in may go through before it is a loop.
const MAX_STEPS: usize = 12;

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: this test runs against oidc-provider and the oauth_server \
             example, which scripts/oauth_e2e.sh starts"
        )
    })
}

/// A user at oidc-provider's development interactions, in a user-agent
/// that keeps cookies: any login signs in, and consent grants what was
/// asked. Clones are the same user-agent.
#[derive(Clone)]
struct DevInteractions {
    http: reqwest::Client,
    login: &'static str,
    cookies: Arc<Mutex<HashMap<String, String>>>,
    sign_ins: Arc<AtomicUsize>,
}

impl DevInteractions {
    fn new(login: &'static str) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        DevInteractions {
            http,
            login,
            cookies: Arc::default(),
            sign_ins: Arc::default(),
        }
    }

    /// How many times the user was sent to the authorization server.
    fn sign_ins(&self) -> usize {
        self.sign_ins.load(Ordering::SeqCst)
    }

    fn cookie_header(&self) -> String {
        let cookies = self.cookies.lock().unwrap();
        let pairs: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join("; ")
    }

    /// Keeps the cookies `reply` sets; one set empty is cleared.
    fn keep_cookies(&self, reply: &reqwest::Response) {
        let mut cookies = self.cookies.lock().unwrap();
        for set in reply.headers().get_all(SET_COOKIE) {
            let pair = set.to_str().unwrap_or("").split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() {
                    cookies.remove(name.trim());
                } else {
                    cookies.insert(name.trim().to_owned(), value.to_owned());
                }
            }
        }
    }

    /// The form a page asks to be submitted: the login or the consent.
    fn answer_to(&self, page: &str) -> Result<String, AuthorizerError> {
        if page.contains(r#"name="prompt" value="login""#) {
            Ok(format!(
                "prompt=login&login={}&password=anything",
                self.login
            ))
        } else if page.contains(r#"name="prompt" value="consent""#) {
            Ok("prompt=consent".into())
        } else {
            Err(format!("a page that is neither login nor consent: {page}").into())
        }
    }
}

#[async_trait]
impl Authorizer for DevInteractions {
    fn redirect_uri(&self) -> &str {
        REDIRECT_URI
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, AuthorizerError> {
        self.sign_ins.fetch_add(1, Ordering::SeqCst);
        let mut url = Url::parse(authorization_url)?;
        let mut form: Option<String> = None;
        for _ in 0..MAX_STEPS {
            let request = match form.take() {
                Some(body) => self
                    .http
                    .post(url.clone())
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body),
                None => self.http.get(url.clone()),
            };
            let reply = request.header(COOKIE, self.cookie_header()).send().await?;
            self.keep_cookies(&reply);
            if reply.status().is_redirection() {
                let location = reply
                    .headers()
                    .get(LOCATION)
                    .ok_or("a redirect to nowhere")?;
                url = url.join(location.to_str()?)?;
                if url.as_str().starts_with(REDIRECT_URI) {
                    return Ok(url.into());
                }
            } else if reply.status().is_success() {
                form = Some(self.answer_to(&reply.text().await?)?);
            } else {
                let status = reply.status();
                return Err(format!("{url} answered {status}: {}", reply.text().await?).into());
            }
        }
        Err(format!("no redirect back after {MAX_STEPS} pages").into())
    }
}

/// A memory store that also keeps every entry it was given, to see the
/// tokens change. Clones share their entries.
#[derive(Clone, Default)]
struct Recording {
    store: Arc<MemoryTokenStore>,
    saved: Arc<Mutex<Vec<Value>>>,
}

impl Recording {
    /// The last entry saved, in its serialized form, which holds the
    /// tokens.
    fn last(&self) -> Value {
        let saved = self.saved.lock().unwrap();
        saved.last().cloned().expect("nothing saved")
    }
}

#[async_trait]
impl TokenStore for Recording {
    async fn load(&self, resource: &str) -> Result<Option<SignedIn>, TokenStoreError> {
        self.store.load(resource).await
    }

    async fn save(&self, resource: &str, signed_in: &SignedIn) -> Result<(), TokenStoreError> {
        let entry = serde_json::to_value(signed_in)?;
        self.saved.lock().unwrap().push(entry);
        self.store.save(resource, signed_in).await
    }
}

/// A client of the example that confirms builds and runs them as tasks.
fn client(oauth: OAuthClient) -> Client {
    let options = HttpOptions::default().oauth(oauth);
    let transport = ClientTransport::http_with(env("E2E_RESOURCE"), options).unwrap();
    Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
        .connect(transport)
}

async fn whoami(client: &Client) -> String {
    let answer = client.call_tool("whoami", json!({})).await.unwrap();
    answer.text().unwrap().to_owned()
}

/// Calls `build` for `target`, which must answer with a task, and follows
/// the task to its result.
async fn build_as_task(client: &Client, target: &str) -> String {
    let created = client
        .call_tool("build", json!({"target": target}))
        .await
        .unwrap();
    let task = created.task().expect("build runs as a task");
    let options = AwaitOptions::default().timeout(Duration::from_secs(30));
    let result = client.await_task(task, options).await.unwrap();
    result.text().unwrap().to_owned()
}

/// Waits, in real time, until the Unix time `at` has passed: the
/// authorization server's clock is the real one.
async fn wait_until_unix(at: u64) {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let due = Duration::from_secs(at + 1).saturating_sub(now);
    tokio::time::sleep(due).await;
}

#[tokio::test]
async fn a_user_signs_in_refreshes_and_steps_up_to_run_a_task() {
    let user = DevInteractions::new("alice");
    let store = Recording::default();
    let oauth = OAuthClient::new(user.clone()).token_store(store.clone());
    let client = client(oauth);

    // The 401's scope is what the client asks for, and the user grants.
    assert_eq!(whoami(&client).await, "alice jobs:read");
    assert_eq!(user.sign_ins(), 1);
    let first = store.last();
    assert_eq!(first["auth_method"], "none", "a public client, registered");
    assert!(
        first["refresh_token"].is_string(),
        "offline_access: {first}"
    );

    // Past the token's refresh time, the next call refreshes it first.
    wait_until_unix(first["refresh_at"].as_u64().unwrap()).await;
    assert_eq!(whoami(&client).await, "alice jobs:read");
    let refreshed = store.last();
    assert_ne!(refreshed["access_token"], first["access_token"]);
    assert_eq!(refreshed["client_id"], first["client_id"]);
    assert_eq!(user.sign_ins(), 1, "a refresh asks nothing of the user");

    // `build` needs more: the client steps up, keeping what it had.
    assert_eq!(build_as_task(&client, "docs").await, "built docs");
    assert_eq!(user.sign_ins(), 2);
    assert_eq!(whoami(&client).await, "alice jobs:build jobs:read");
    assert_eq!(store.last()["client_id"], first["client_id"]);
}

#[tokio::test]
async fn a_machine_client_gets_tokens_by_client_credentials_and_steps_up_to_run_a_task() {
    let client_id = env("E2E_CLIENT_ID");
    let oauth = OAuthClient::client_credentials(client_id.clone())
        .client_secret(env("E2E_CLIENT_SECRET"))
        .registered_with(env("E2E_ISSUER"));
    let client = client(oauth);
    assert_eq!(whoami(&client).await, format!("{client_id} jobs:read"));
    assert_eq!(build_as_task(&client, "all").await, "built all");
    assert_eq!(
        whoami(&client).await,
        format!("{client_id} jobs:build jobs:read")
    );
}
