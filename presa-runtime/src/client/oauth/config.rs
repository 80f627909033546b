//! [`OAuthClient`]: how a client signs in, configured in one place and
//! given to [`HttpOptions::oauth`](crate::client::HttpOptions::oauth).
//!
//! Credentials belong to one authorization server. An MCP server names
//! its authorization server itself, so a hostile one could name the
//! attacker's, who would replay what it received at the real one. So:
//!
//! 1. a client that holds a credential is an [`UnboundOAuthClient`] until
//!    [`registered_with`](UnboundOAuthClient::registered_with) names the
//!    issuer its credentials were registered with. Only then is it an
//!    [`OAuthClient`], the only type that
//!    [`HttpOptions::oauth`](crate::client::HttpOptions::oauth) takes
//!    ([`BoundOAuthClient`]). The credentials are a client secret, a
//!    `private_key_jwt` key, a workload's assertion (`jwt_bearer`) and an
//!    enterprise sign-in;
//! 2. a public client id, or none at all, needs no binding: it proves
//!    nothing an attacker could replay;
//! 3. at discovery, a bound client signs in at its issuer or nowhere (see
//!    `binding`).
//!
//! Why a type and not a check at the first sign-in: the binding is part
//! of the credentials, as their value is, and a client built without it
//! does not compile, with a message that says to call `registered_with`.
//! A check would surface only when a server first answers `401`.
//!
//! Assertions whose audience is the issuer (`private_key_jwt`, and the
//! ID-JAG an enterprise's identity provider issues) could not be replayed
//! elsewhere even unbound. They are bound all the same: a client secret
//! may sit beside them, and the identity provider is asked for an ID-JAG
//! for the bound issuer only, never for one a resource chose.

use std::fmt;
use std::sync::Arc;

use secrecy::SecretString;

use super::authorizer::Authorizer;
use super::store::{MemoryTokenStore, TokenStore};
use super::token::ClientKey;

/// How many times one request steps up to more scopes before its
/// `insufficient_scope` is final.
const DEFAULT_STEP_UPS: u32 = 2;

/// A client id registered with an authorization server beforehand, and
/// what proves it (the issuer is [`OAuthClient::issuer`]'s).
#[derive(Clone)]
pub(crate) struct PreRegistered {
    pub client_id: String,
    pub client_secret: Option<SecretString>,
    /// The key it authenticates with by `private_key_jwt`, if it does.
    pub key: Option<ClientKey>,
}

/// Whom the client gets tokens for.
#[derive(Clone)]
pub(crate) enum Flow {
    /// A user, by the authorization code grant, the authorizer taking the
    /// user-agent step.
    User(Arc<dyn Authorizer>),
    /// Itself, by the client credentials grant.
    Machine,
    /// A workload, by the JWT-bearer grant (RFC 7523 section 2.1) with
    /// the assertion its platform gives it.
    Workload(Arc<AssertionSource>),
    /// A user of an enterprise identity provider, by exchanging their ID
    /// token there for an ID-JAG (the MCP enterprise-managed
    /// authorization extension), then the JWT-bearer grant with it.
    Enterprise(Arc<IdentityProvider>),
}

/// The enterprise identity provider of [`OAuthClient::enterprise`]: where
/// the user's ID token is exchanged, and for what client.
pub struct IdentityProvider {
    /// The provider's token endpoint.
    pub token_endpoint: String,
    /// This application's client id at the provider.
    pub client_id: String,
    /// The user's ID token from the provider, read for each sign-in.
    pub id_token: Box<AssertionSource>,
}

impl fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// Where a workload's identity assertion comes from, read afresh for each
/// token request (platforms rotate them).
pub(crate) type AssertionSource =
    dyn Fn() -> Result<String, super::authorizer::AuthorizerError> + Send + Sync;

/// How a client signs in to the OAuth-protected MCP servers it calls:
/// its registration, the user-agent step, and where tokens are kept.
///
/// A client that holds a credential (a client secret, a private key, a
/// workload's assertion, an enterprise sign-in) is built as an
/// [`UnboundOAuthClient`] first. It becomes an `OAuthClient` only once
/// [`registered_with`](UnboundOAuthClient::registered_with) names the
/// authorization server its credentials belong to, so the credentials
/// never go to a server that a resource names instead; see
/// [`UnboundOAuthClient`] for why.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use presa_runtime::client::oauth::{LoopbackAuthorizer, OAuthClient};
/// use presa_runtime::client::{ClientTransport, HttpOptions};
///
/// let oauth = OAuthClient::new(LoopbackAuthorizer::bind().await?).client_name("my tool");
/// let transport = ClientTransport::http_with(
///     "https://mcp.example.com/mcp",
///     HttpOptions::default().oauth(oauth),
/// )?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuthClient {
    pub(crate) flow: Flow,
    pub(crate) store: Arc<dyn TokenStore>,
    /// The authorization server (its issuer) the client signs in at, and
    /// only there. Set whenever the client holds a credential: only
    /// [`UnboundOAuthClient::registered_with`] makes such a client.
    pub(crate) issuer: Option<String>,
    pub(crate) pre_registered: Option<PreRegistered>,
    pub(crate) metadata_document: Option<String>,
    pub(crate) client_name: String,
    pub(crate) step_ups: u32,
    pub(crate) dpop: bool,
    pub(crate) private_networks: bool,
}

impl OAuthClient {
    /// A client of `flow` with everything else at its default: tokens in
    /// memory, no registration configured, two step-ups, no DPoP.
    fn with_flow(flow: Flow) -> Self {
        OAuthClient {
            flow,
            store: Arc::new(MemoryTokenStore::default()),
            issuer: None,
            pre_registered: None,
            metadata_document: None,
            client_name: "presa client".into(),
            step_ups: DEFAULT_STEP_UPS,
            dpop: false,
            private_networks: false,
        }
    }

    /// Signs in users with the authorization code grant, `authorizer`
    /// taking the user-agent step. For a client acting on its own behalf,
    /// see [`client_credentials`](Self::client_credentials). Without more configuration the client
    /// registers itself dynamically (RFC 7591) where the authorization
    /// server allows it, and keeps tokens in memory.
    pub fn new(authorizer: impl Authorizer) -> Self {
        Self::with_flow(Flow::User(Arc::new(authorizer)))
    }

    /// Gets tokens for the client itself, by the client credentials grant
    /// (RFC 6749 section 4.4; the MCP extension for machine clients), as
    /// `client_id`, registered beforehand, authenticating with
    /// [`client_secret`](UnboundOAuthClient::client_secret) or
    /// [`private_key_jwt`](UnboundOAuthClient::private_key_jwt), at the
    /// authorization server that
    /// [`registered_with`](UnboundOAuthClient::registered_with) names.
    pub fn client_credentials(client_id: impl Into<String>) -> UnboundOAuthClient {
        UnboundOAuthClient::new(Self::with_flow(Flow::Machine).client_id(client_id))
    }

    /// Gets tokens for a workload by the JWT-bearer grant (RFC 7523; the
    /// MCP workload identity extension): `assertion` gives the identity
    /// token the platform issued (a Kubernetes service account token, a
    /// cloud identity token), read afresh for each token request, and
    /// sent only to the authorization server that
    /// [`registered_with`](UnboundOAuthClient::registered_with) names. A
    /// client id is sent only when
    /// [`client_id`](UnboundOAuthClient::client_id) gives one. A refused
    /// assertion is not retried, nor another grant tried.
    pub fn jwt_bearer(
        assertion: impl Fn() -> Result<String, super::authorizer::AuthorizerError>
        + Send
        + Sync
        + 'static,
    ) -> UnboundOAuthClient {
        UnboundOAuthClient::new(Self::with_flow(Flow::Workload(Arc::new(assertion))))
    }

    /// Signs in a user of an enterprise identity provider without a
    /// browser (RFC 8693 token exchange for an Identity Assertion JWT
    /// Authorization Grant, then RFC 7523): `provider` exchanges the
    /// user's ID token for an assertion for the authorization server that
    /// [`registered_with`](UnboundOAuthClient::registered_with) names,
    /// which this client, `client_id` there (with
    /// [`client_secret`](UnboundOAuthClient::client_secret)), trades for a
    /// token. The provider is asked for no assertion for any other server.
    pub fn enterprise(
        provider: IdentityProvider,
        client_id: impl Into<String>,
    ) -> UnboundOAuthClient {
        UnboundOAuthClient::new(
            Self::with_flow(Flow::Enterprise(Arc::new(provider))).client_id(client_id),
        )
    }

    /// Authenticates the pre-registered [`client_id`](Self::client_id) by
    /// `private_key_jwt`: an assertion signed with `key`, for the
    /// authorization server's issuer, in place of a secret. A key is a
    /// credential: name its authorization server with
    /// [`registered_with`](UnboundOAuthClient::registered_with).
    pub fn private_key_jwt(self, key: ClientKey) -> UnboundOAuthClient {
        UnboundOAuthClient::new(self).private_key_jwt(key)
    }

    /// Uses the client id `client_id`, registered beforehand, instead of
    /// registering: a public client unless
    /// [`client_secret`](Self::client_secret) or
    /// [`private_key_jwt`](Self::private_key_jwt) is given too. A public
    /// client id proves nothing, so it needs no binding; bind it with
    /// [`registered_with`](Self::registered_with) all the same to sign
    /// users in only there.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        let registered = self.pre_registered.get_or_insert(PreRegistered {
            client_id: String::new(),
            client_secret: None,
            key: None,
        });
        registered.client_id = client_id.into();
        self
    }

    /// The secret of the pre-registered [`client_id`](Self::client_id).
    /// A secret is a credential: name its authorization server with
    /// [`registered_with`](UnboundOAuthClient::registered_with).
    pub fn client_secret(self, secret: impl Into<String>) -> UnboundOAuthClient {
        UnboundOAuthClient::new(self).client_secret(secret)
    }

    /// Signs in only at the authorization server whose issuer is
    /// `issuer`, exactly as its metadata names it (RFC 8414): a resource
    /// that names another is refused before anything is sent to it.
    pub fn registered_with(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The HTTPS URL of this client's Client ID Metadata Document, used as
    /// its client id where the authorization server supports them.
    pub fn client_metadata_document(mut self, url: impl Into<String>) -> Self {
        self.metadata_document = Some(url.into());
        self
    }

    /// The name this client registers under (and users see on consent
    /// screens).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Where tokens and registrations are kept: in memory unless told.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Binds tokens to a key of the client's (DPoP, RFC 9449): a P-256
    /// key signs a proof for every token request and every request to the
    /// server, which sends tokens as `Authorization: DPoP …`. For
    /// authorization servers that support it
    /// (`dpop_signing_alg_values_supported`): a token endpoint that issues
    /// a bearer token instead is refused. Each connection makes a fresh
    /// key, unless the token store gives back the key of the tokens it
    /// keeps: the store keeps the key with them.
    pub fn dpop(mut self) -> Self {
        self.dpop = true;
        self
    }

    /// Lets the servers this client signs in to name URLs on private
    /// networks (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16,
    /// 100.64.0.0/10, fc00::/7): for an intranet deployment, where the
    /// MCP server, its metadata or its authorization server are there.
    ///
    /// Without it, a URL that a server names (its resource metadata, its
    /// authorization server, that server's endpoints) must be https to a
    /// public address, or lead to loopback when the MCP server itself is
    /// on loopback; the client refuses any other before sending anything.
    /// Link-local addresses, where cloud metadata services answer, stay
    /// refused even with this setting.
    pub fn allow_private_networks(mut self) -> Self {
        self.private_networks = true;
        self
    }

    /// How many times one request may step up to more scopes (2 unless
    /// told; 0 never steps up).
    pub fn step_ups(mut self, times: u32) -> Self {
        self.step_ups = times;
        self
    }
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redirect_uri = match &self.flow {
            Flow::User(authorizer) => Some(authorizer.redirect_uri()),
            Flow::Machine | Flow::Workload(_) | Flow::Enterprise(_) => None,
        };
        f.debug_struct("OAuthClient")
            .field("redirect_uri", &redirect_uri)
            .field(
                "client_id",
                &self.pre_registered.as_ref().map(|r| r.client_id.as_str()),
            )
            .field("registered_with", &self.issuer)
            .field("metadata_document", &self.metadata_document)
            .field("client_name", &self.client_name)
            .field("step_ups", &self.step_ups)
            .field("dpop", &self.dpop)
            .field("private_networks", &self.private_networks)
            .finish_non_exhaustive()
    }
}

/// An [`OAuthClient`] that holds credentials (a client secret, a
/// `private_key_jwt` key, a workload's assertion, an enterprise
/// sign-in) but does not yet say which authorization server they belong
/// to. [`registered_with`](Self::registered_with) says so, and gives the
/// `OAuthClient`:
///
/// ```
/// use presa_runtime::client::oauth::OAuthClient;
///
/// let oauth = OAuthClient::client_credentials("reporting-job")
///     .client_secret("s3cret")
///     .registered_with("https://auth.example.com");
/// # let _: OAuthClient = oauth;
/// ```
///
/// The client then sends its credentials to that issuer only: a resource
/// whose metadata names another authorization server is refused before
/// anything is sent there. The other settings (`token_store`, `dpop`, …)
/// are [`OAuthClient`]'s, after `registered_with`.
#[derive(Clone)]
#[must_use = "an unbound client signs nobody in: call `.registered_with(issuer)`"]
pub struct UnboundOAuthClient(OAuthClient);

impl UnboundOAuthClient {
    fn new(client: OAuthClient) -> Self {
        UnboundOAuthClient(client)
    }

    /// Uses the client id `client_id`, registered beforehand (for a
    /// workload, whose assertion names it otherwise).
    pub fn client_id(self, client_id: impl Into<String>) -> Self {
        UnboundOAuthClient(self.0.client_id(client_id))
    }

    /// The secret of the pre-registered client id.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        if let Some(registered) = &mut self.0.pre_registered {
            registered.client_secret = Some(SecretString::from(secret.into()));
        }
        self
    }

    /// Authenticates the pre-registered client id by `private_key_jwt`:
    /// an assertion signed with `key`, for the authorization server's
    /// issuer, in place of a secret.
    pub fn private_key_jwt(mut self, key: ClientKey) -> Self {
        if let Some(registered) = &mut self.0.pre_registered {
            registered.key = Some(key);
        }
        self
    }

    /// The authorization server (its issuer, exactly as its metadata
    /// names it) the credentials were registered with: the only one they
    /// are sent to.
    pub fn registered_with(self, issuer: impl Into<String>) -> OAuthClient {
        self.0.registered_with(issuer)
    }
}

impl fmt::Debug for UnboundOAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UnboundOAuthClient").field(&self.0).finish()
    }
}

/// What [`HttpOptions::oauth`](crate::client::HttpOptions::oauth) takes:
/// an [`OAuthClient`], whose credentials, if it holds any, are bound to
/// their authorization server. Only `OAuthClient` is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an OAuth client bound to its authorization server",
    label = "call `.registered_with(issuer)` on it first",
    note = "a client secret, a private key, a workload's assertion or an enterprise sign-in goes only to the authorization server that `registered_with` names"
)]
pub trait BoundOAuthClient: sealed::Sealed {
    /// The client, now bound to the one authorization server it may send its secrets to.
    fn into_client(self) -> OAuthClient;
}

impl BoundOAuthClient for OAuthClient {
    fn into_client(self) -> OAuthClient {
        self
    }
}

mod sealed {
    /// Keeps [`BoundOAuthClient`](super::BoundOAuthClient) to presa's
    /// types.
    pub trait Sealed {}
    impl Sealed for super::OAuthClient {}
}
