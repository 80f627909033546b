//! One signed-in connection to one MCP endpoint: the token its requests
//! carry, and what a `401` or `403` from the endpoint makes it do.
//!
//! The rules, in order:
//!
//! 1. requests carry the current access token, the stored one at first;
//!    one due for refresh ([`REFRESH_MARGIN`] before it expires, or half
//!    its life for a short-lived one) is refreshed first, when there is a
//!    refresh token (once: a refresh that fails leaves the token to its
//!    `401`);
//! 2. a challenge is answered once however many requests meet it: the
//!    first to ask signs in, the others wait for it, then find the token
//!    changed since they were sent and retry with the new one;
//! 3. a `401` refreshes the token when there is a refresh token, and signs
//!    in again otherwise (or when refreshing fails); discovery runs again
//!    each time, so a resource that moved to another authorization server
//!    is followed, with a new registration there (a client bound to its
//!    issuer, as `binding` says, is refused instead);
//! 4. a `403` with `insufficient_scope` signs in again asking for the
//!    scopes asked for so far and those challenged; the link retries a
//!    request at most [`OAuthClient::step_ups`] times;
//! 5. scopes first asked for are the challenge's, else the resource
//!    metadata's `scopes_supported`, else none; a user's sign-in adds
//!    `offline_access` when the authorization server lists it, with
//!    `prompt=consent`, without which an OpenID provider drops it (OpenID
//!    Connect Core section 11). A machine client asks for no refresh
//!    token: it can get a new token at any time (RFC 6749 section 4.4.3).

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use secrecy::{ExposeSecret, SecretString};

use super::authorizer::Authorizer;
use super::config::{Flow, OAuthClient};
use super::discovery::{Challenge, Discovered, discover_for};
use super::error::{OAuthError, Step};
use super::registration::{Registration, register};
use super::store::SignedIn;
use super::token::{
    ClientAuth, ClientKey, Dpop, Endpoint, Grant, ID_JAG_TYPE, Issued, Party, Pkce, request,
};
use crate::oauth::destinations::Destinations;
use crate::oauth::fetch::HttpFetch;
use crate::util::{random_id, read, write};

/// How long before its expiry a token is refreshed.
pub(crate) const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The token a request was sent with: which one, so that a challenge
/// answered meanwhile is not answered again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent(u64);

/// The current token and its number.
#[derive(Default)]
struct Current {
    token: Option<Arc<SecretString>>,
    number: u64,
    /// When it is due for refresh (seconds since the Unix epoch).
    refresh_at: Option<u64>,
    /// Whether it may be refreshed before it expires (rule 1).
    refreshable: bool,
}

impl Current {
    /// Whether it should be refreshed before it is sent.
    fn expiring(&self) -> bool {
        self.refreshable && self.refresh_at.is_some_and(|at| unix_now() >= at)
    }
}

/// The OAuth side of one HTTP link.
pub(crate) struct OAuthSession {
    config: OAuthClient,
    endpoint: String,
    fetch: HttpFetch,
    current: RwLock<Current>,
    /// Held while signing in or refreshing (rule 2), with what is known.
    signing_in: tokio::sync::Mutex<Option<SignedIn>>,
    loaded: tokio::sync::OnceCell<()>,
    /// The key tokens are bound to, with DPoP: a fresh one, until the
    /// store gives back the key of the tokens it keeps.
    dpop: RwLock<Option<Arc<Dpop>>>,
}

impl OAuthSession {
    /// The session of `config` for the MCP endpoint `endpoint`.
    pub fn new(config: OAuthClient, endpoint: String) -> Result<Self, OAuthError> {
        // Every URL it fetches was named by the endpoint's server.
        let destinations = Destinations::of_endpoint(&endpoint, config.private_networks);
        let fetch = HttpFetch::restricted(destinations)
            .map_err(|e| OAuthError::new(Step::Discovery, format!("no HTTP client: {e}")))?;
        let dpop = if config.dpop {
            Some(Dpop::new()?)
        } else {
            None
        };
        Ok(OAuthSession {
            dpop: RwLock::new(dpop.map(Arc::new)),
            config,
            endpoint,
            fetch,
            current: RwLock::default(),
            signing_in: tokio::sync::Mutex::new(None),
            loaded: tokio::sync::OnceCell::new(),
        })
    }

    /// The credential headers of a `method` request to `url`
    /// (`Authorization`, and with DPoP its proof), and which token they
    /// carry (rule 1).
    pub async fn credentials(
        &self,
        method: &str,
        url: &str,
    ) -> Result<(Vec<(&'static str, String)>, Sent), OAuthError> {
        self.load().await;
        self.refresh_if_expiring().await;
        let (token, sent) = {
            let current = read(&self.current);
            (current.token.clone(), Sent(current.number))
        };
        let Some(token) = token else {
            return Ok((Vec::new(), sent));
        };
        let token = token.expose_secret();
        let headers = match self.dpop().as_deref() {
            Some(dpop) => vec![
                ("authorization", format!("DPoP {token}")),
                (
                    "dpop",
                    dpop.proof(Party::Resource, method, url, Some(token))?,
                ),
            ],
            None => vec![("authorization", format!("Bearer {token}"))],
        };
        Ok((headers, sent))
    }

    /// Takes the resource's DPoP nonce; whether it is new, so that the
    /// request that met it is sent again (never signing in again for it).
    pub fn resource_nonce(&self, nonce: &str) -> bool {
        self.dpop()
            .is_some_and(|dpop| dpop.learn_nonce(Party::Resource, nonce))
    }

    /// The DPoP key of this session, with DPoP.
    fn dpop(&self) -> Option<Arc<Dpop>> {
        read(&self.dpop).clone()
    }

    /// Answers the `status` and `challenge` a request sent with `sent` met
    /// (rules 2 to 5); afterwards the request may be sent again.
    pub async fn answer(
        &self,
        status: u16,
        challenge: Option<&Challenge>,
        sent: Sent,
    ) -> Result<(), OAuthError> {
        let mut held = self.signing_in.lock().await;
        if self.number() != sent.0 {
            return Ok(());
        }
        let step_up = status == 403;
        if !step_up
            && let Some(signed_in) = held.as_ref()
            && let Some(refreshed) = self.refresh(signed_in).await
        {
            self.adopt(&mut held, refreshed).await;
            return Ok(());
        }
        let step = if step_up {
            Step::StepUp
        } else {
            Step::Authorization
        };
        let signed_in = self
            .sign_in(held.as_ref(), challenge, step_up)
            .await
            .map_err(|e| {
                if step_up {
                    OAuthError::new(step, e.to_string())
                } else {
                    e
                }
            })?;
        self.adopt(&mut held, signed_in).await;
        Ok(())
    }

    /// How many times one request may step up.
    pub fn step_ups(&self) -> u32 {
        self.config.step_ups
    }

    fn number(&self) -> u64 {
        read(&self.current).number
    }

    /// Refreshes a token about to expire (rule 1), once for all the
    /// requests that find it so.
    async fn refresh_if_expiring(&self) {
        let number = {
            let current = read(&self.current);
            if !current.expiring() {
                return;
            }
            current.number
        };
        let mut held = self.signing_in.lock().await;
        if self.number() != number {
            return;
        }
        let refreshed = match held.as_ref() {
            Some(signed_in) => self.refresh(signed_in).await,
            None => None,
        };
        match refreshed {
            Some(refreshed) => self.adopt(&mut held, refreshed).await,
            None => {
                let mut current = write(&self.current);
                current.refreshable = false;
            }
        }
    }

    /// Reads the store once, before the first request.
    async fn load(&self) {
        self.loaded
            .get_or_init(|| async {
                match self.config.store.load(&self.endpoint).await {
                    Ok(Some(signed_in)) if !self.takes_key_of(&signed_in) => {}
                    Ok(Some(signed_in)) => {
                        let mut held = self.signing_in.lock().await;
                        self.publish(&signed_in);
                        *held = Some(signed_in);
                    }
                    Ok(None) => {}
                    Err(error) => tracing::warn!(%error, "the token store could not be read"),
                }
            })
            .await;
    }

    /// With DPoP, takes back the key that the kept `signed_in`'s tokens
    /// are bound to. False when the key cannot be read: those tokens are
    /// of no use then, and the client signs in again with its fresh key.
    fn takes_key_of(&self, signed_in: &SignedIn) -> bool {
        if !self.config.dpop {
            return true;
        }
        let Some(kept) = &signed_in.dpop_key else {
            return true;
        };
        match Dpop::from_pkcs8(kept) {
            Ok(key) => {
                *write(&self.dpop) = Some(Arc::new(key));
                true
            }
            Err(error) => {
                tracing::warn!(%error, "the token store's DPoP key is unusable; signing in again");
                false
            }
        }
    }

    /// Makes `signed_in` current, and keeps it in the store with the DPoP
    /// key its tokens are bound to.
    async fn adopt(&self, held: &mut Option<SignedIn>, mut signed_in: SignedIn) {
        signed_in.dpop_key = self.dpop().map(|dpop| dpop.pkcs8());
        self.publish(&signed_in);
        if let Err(error) = self.config.store.save(&self.endpoint, &signed_in).await {
            tracing::warn!(%error, "the token store could not keep the new token");
        }
        *held = Some(signed_in);
    }

    fn publish(&self, signed_in: &SignedIn) {
        let mut current = write(&self.current);
        current.token = signed_in.access_token.clone().map(Arc::new);
        current.number += 1;
        current.refresh_at = signed_in.refresh_at;
        current.refreshable = signed_in.refresh_token.is_some();
    }

    /// A refreshed `signed_in`, when it has a refresh token that works.
    async fn refresh(&self, signed_in: &SignedIn) -> Option<SignedIn> {
        let refresh_token = signed_in.refresh_token.as_ref()?;
        let user = matches!(self.config.flow, Flow::User(_));
        let bound = self.config.issuer.as_deref();
        let discovered = discover_for(&self.fetch, &self.endpoint, None, user, bound)
            .await
            .ok()?;
        if discovered.server.issuer != signed_in.issuer {
            return None;
        }
        let key = self.key_of(&signed_in.client_id);
        let client = ClientAuth {
            client_id: &signed_in.client_id,
            client_secret: signed_in.client_secret.as_ref(),
            key: key.as_ref(),
            method: &signed_in.auth_method,
            issuer: &signed_in.issuer,
        };
        let grant = Grant::Refresh {
            refresh_token: refresh_token.expose_secret(),
        };
        let dpop = self.dpop();
        let to = Endpoint {
            url: discovered.token_endpoint(),
            resource: &discovered.resource,
            scope: None,
            dpop: dpop.as_deref(),
            step: Step::Refresh,
            issues: None,
        };
        let issued = request(&self.fetch, &to, grant, &client).await;
        match issued {
            Ok(issued) => Some(signed_in_with(signed_in.clone(), issued)),
            Err(error) => {
                tracing::debug!(%error, "refreshing failed; signing in again");
                None
            }
        }
    }

    /// Signs in (rules 3 to 5): a user by the authorization code grant, a
    /// machine client by the client credentials grant.
    async fn sign_in(
        &self,
        previous: Option<&SignedIn>,
        challenge: Option<&Challenge>,
        step_up: bool,
    ) -> Result<SignedIn, OAuthError> {
        let authorizer = match &self.config.flow {
            Flow::User(authorizer) => Some(authorizer),
            Flow::Machine | Flow::Workload(_) | Flow::Enterprise(_) => None,
        };
        let bound = self.config.issuer.as_deref();
        let signs_users_in = authorizer.is_some();
        let discovered = discover_for(
            &self.fetch,
            &self.endpoint,
            challenge,
            signs_users_in,
            bound,
        )
        .await?;
        let registration = match previous.filter(|p| p.issuer == discovered.server.issuer) {
            Some(previous) => Registration {
                client_id: previous.client_id.clone(),
                client_secret: previous.client_secret.clone(),
                key: self.key_of(&previous.client_id),
                auth_method: previous.auth_method.clone(),
            },
            None if matches!(self.config.flow, Flow::Workload(_))
                && self.config.pre_registered.is_none() =>
            {
                // The assertion names the workload; nothing to register.
                Registration {
                    client_id: String::new(),
                    client_secret: None,
                    key: None,
                    auth_method: "none".into(),
                }
            }
            None => {
                let redirect_uri = authorizer.map_or("", |a| a.redirect_uri());
                register(&self.fetch, &self.config, &discovered.server, redirect_uri).await?
            }
        };
        let scopes = scopes(
            &discovered,
            previous,
            challenge,
            step_up,
            authorizer.is_some(),
        );
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let client = ClientAuth {
            client_id: &registration.client_id,
            client_secret: registration.client_secret.as_ref(),
            key: registration.key.as_ref(),
            method: &registration.auth_method,
            issuer: &discovered.server.issuer,
        };
        let code = match authorizer {
            Some(authorizer) => Some(
                self.authorize(
                    authorizer.as_ref(),
                    &discovered,
                    &registration,
                    scope.as_deref(),
                )
                .await?,
            ),
            None => None,
        };
        let assertion = match &self.config.flow {
            Flow::Workload(source) => Some(source().map_err(|e| {
                OAuthError::new(
                    Step::Token,
                    format!("the workload's assertion could not be read: {e}"),
                )
            })?),
            Flow::Enterprise(provider) => Some(self.id_jag(provider, &discovered).await?),
            _ => None,
        };
        let grant = match (&code, authorizer, &assertion) {
            (Some(code), Some(authorizer), _) => Grant::AuthorizationCode {
                code: code.code.expose_secret(),
                redirect_uri: authorizer.redirect_uri(),
                verifier: code.pkce.verifier(),
            },
            (_, _, Some(assertion)) => Grant::JwtBearer { assertion },
            _ => Grant::ClientCredentials,
        };
        let dpop = self.dpop();
        let to = Endpoint {
            url: discovered.token_endpoint(),
            resource: &discovered.resource,
            scope: scope.as_deref(),
            dpop: dpop.as_deref(),
            step: Step::Token,
            issues: None,
        };
        let issued = request(&self.fetch, &to, grant, &client).await?;
        let signed_in = SignedIn {
            issuer: discovered.server.issuer.clone(),
            client_id: registration.client_id,
            client_secret: registration.client_secret,
            auth_method: registration.auth_method,
            access_token: None,
            refresh_token: None,
            expires_at: None,
            refresh_at: None,
            scopes,
            dpop_key: None,
        };
        Ok(signed_in_with(signed_in, issued))
    }

    /// An ID-JAG for the resource's authorization server, from the
    /// enterprise identity provider, for the user's ID token.
    async fn id_jag(
        &self,
        provider: &super::config::IdentityProvider,
        discovered: &Discovered,
    ) -> Result<String, OAuthError> {
        let id_token = (provider.id_token)().map_err(|e| {
            OAuthError::new(
                Step::Token,
                format!("the user's ID token could not be read: {e}"),
            )
        })?;
        let to = Endpoint {
            url: &provider.token_endpoint,
            resource: &discovered.resource,
            scope: None,
            dpop: None,
            step: Step::Token,
            issues: Some(ID_JAG_TYPE),
        };
        let client = ClientAuth {
            client_id: &provider.client_id,
            client_secret: None,
            key: None,
            method: "none",
            issuer: "",
        };
        let grant = Grant::IdJagExchange {
            id_token: &id_token,
            audience: &discovered.server.issuer,
        };
        // The user configured this endpoint: no server named it.
        let configured = HttpFetch::new()
            .map_err(|e| OAuthError::new(Step::Token, format!("no HTTP client: {e}")))?;
        let issued = request(&configured, &to, grant, &client).await?;
        Ok(issued.access_token.expose_secret().to_owned())
    }

    /// The configured `private_key_jwt` key of client `client_id`.
    fn key_of(&self, client_id: &str) -> Option<ClientKey> {
        let registered = self.config.pre_registered.as_ref()?;
        (registered.client_id == client_id)
            .then(|| registered.key.clone())
            .flatten()
    }

    /// The user-agent step: the authorization request, and the checks of
    /// its response (RFC 9207 first, then `state`, then `error`).
    async fn authorize(
        &self,
        authorizer: &dyn Authorizer,
        discovered: &Discovered,
        registration: &Registration,
        scope: Option<&str>,
    ) -> Result<Code, OAuthError> {
        let failed = |reason: String| OAuthError::new(Step::Authorization, reason);
        let pkce = Pkce::new();
        let state = random_id::<16>();
        let mut url = url::Url::parse(discovered.authorization_endpoint())
            .map_err(|e| failed(format!("the authorization endpoint is not a URL: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &registration.client_id)
                .append_pair("redirect_uri", authorizer.redirect_uri())
                .append_pair("state", &state)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &discovered.resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
                if scope.split(' ').any(|s| s == OFFLINE_ACCESS) {
                    query.append_pair("prompt", "consent");
                }
            }
        }
        let redirected = authorizer
            .authorize(url.as_str())
            .await
            .map_err(|e| failed(format!("the user-agent step failed: {e}")))?;
        let redirected = url::Url::parse(&redirected)
            .map_err(|e| failed(format!("the redirect is not a URL: {e}")))?;
        let param = |name: &str| {
            redirected
                .query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        let issuer = &discovered.server.issuer;
        match param("iss") {
            Some(iss) if &iss != issuer => {
                return Err(failed(format!(
                    "the authorization response names issuer `{iss}`, not `{issuer}` (RFC 9207): it is ignored"
                )));
            }
            None if discovered
                .server
                .authorization_response_iss_parameter_supported =>
            {
                return Err(failed(format!(
                    "the authorization response lacks `iss`, which `{issuer}` says it sends (RFC 9207): it is ignored"
                )));
            }
            _ => {}
        }
        if param("state").as_deref() != Some(state.as_str()) {
            return Err(failed(
                "the authorization response's `state` is not the request's".into(),
            ));
        }
        if let Some(error) = param("error") {
            let description = param("error_description").unwrap_or_default();
            return Err(failed(format!(
                "the authorization server refused: {error} {description}"
            )));
        }
        let code =
            param("code").ok_or_else(|| failed("the authorization response has no code".into()))?;
        Ok(Code {
            code: SecretString::from(code),
            pkce,
        })
    }
}

/// An authorization code, and the PKCE pair it was asked with.
struct Code {
    code: SecretString,
    pkce: Pkce,
}

/// The scope that asks for a refresh token.
const OFFLINE_ACCESS: &str = "offline_access";

/// The scopes to ask for (rules 4 and 5); `for_user` for a user's
/// sign-in, which may ask for a refresh token.
fn scopes(
    discovered: &Discovered,
    previous: Option<&SignedIn>,
    challenge: Option<&Challenge>,
    step_up: bool,
    for_user: bool,
) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    if step_up && let Some(previous) = previous {
        previous
            .scopes
            .iter()
            .for_each(|s| push_new(&mut scopes, s));
    }
    let challenged: Vec<&str> = challenge.map(|c| c.scopes().collect()).unwrap_or_default();
    if !challenged.is_empty() {
        challenged
            .into_iter()
            .for_each(|s| push_new(&mut scopes, s));
    } else if !step_up {
        let listed = discovered.resource_scopes.iter().flatten();
        listed.for_each(|s| push_new(&mut scopes, s));
    }
    let offers_offline = discovered
        .server
        .scopes_supported
        .as_ref()
        .is_some_and(|s| s.iter().any(|s| s == OFFLINE_ACCESS));
    // Asking for a refresh token alone would turn "no scope" into one.
    if for_user && offers_offline && !scopes.is_empty() {
        push_new(&mut scopes, OFFLINE_ACCESS);
    }
    scopes
}

/// Adds `scope` to `scopes` unless it is there.
fn push_new(scopes: &mut Vec<String>, scope: &str) {
    if !scopes.iter().any(|s| s == scope) {
        scopes.push(scope.to_owned());
    }
}

/// `signed_in` with the tokens of `issued`; a refresh that issues no new
/// refresh token keeps the old one, and the client's credentials stay.
fn signed_in_with(mut signed_in: SignedIn, issued: Issued) -> SignedIn {
    let now = unix_now();
    signed_in.access_token = Some(issued.access_token);
    if let Some(refresh_token) = issued.refresh_token {
        signed_in.refresh_token = Some(refresh_token);
    }
    signed_in.expires_at = issued.expires_in.map(|s| now.saturating_add(s));
    signed_in.refresh_at = issued.expires_in.map(|life| {
        let ahead = REFRESH_MARGIN.as_secs().min(life / 2);
        now.saturating_add(life - ahead)
    });
    signed_in
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A discovery whose resource lists `resource_scopes`, at an
    /// authorization server offering `offline_access`.
    fn discovered(resource_scopes: &[&str]) -> Discovered {
        let server = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example",
            "token_endpoint": "https://as.example/token",
            "scopes_supported": ["openid", "offline_access", "files:read"],
        }))
        .unwrap();
        Discovered {
            resource: "https://mcp.example/mcp".into(),
            resource_scopes: Some(resource_scopes.iter().map(|s| s.to_string()).collect()),
            server,
        }
    }

    fn challenge(scope: &str) -> Challenge {
        Challenge::find([format!(r#"Bearer scope="{scope}""#).as_str()]).unwrap()
    }

    #[test]
    fn a_user_asks_for_the_challenges_scopes_and_a_refresh_token() {
        let found = discovered(&["files:read", "files:write"]);
        let asked = scopes(&found, None, Some(&challenge("files:read")), false, true);
        assert_eq!(asked, ["files:read", "offline_access"]);
        // No challenge scope: the resource's.
        let asked = scopes(&found, None, None, false, true);
        assert_eq!(asked, ["files:read", "files:write", "offline_access"]);
        // Nothing to ask for: no refresh token alone either.
        let asked = scopes(&discovered(&[]), None, None, false, true);
        assert!(asked.is_empty(), "{asked:?}");
    }

    #[test]
    fn a_machine_client_asks_for_no_refresh_token() {
        let found = discovered(&["files:read"]);
        assert_eq!(scopes(&found, None, None, false, false), ["files:read"]);
    }

    #[test]
    fn a_step_up_keeps_the_scopes_asked_for_before() {
        let found = discovered(&["files:read"]);
        let previous: SignedIn = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example", "client_id": "c", "auth_method": "none",
            "scopes": ["files:read", "offline_access"],
        }))
        .unwrap();
        let write = challenge("files:write");
        let asked = scopes(&found, Some(&previous), Some(&write), true, true);
        assert_eq!(asked, ["files:read", "offline_access", "files:write"]);
    }
}
