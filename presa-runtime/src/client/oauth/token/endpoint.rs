//! The token endpoint (RFC 6749 sections 4.1.3, 5 and 6): one request
//! for every grant, with the client authenticating as it registered,
//! and the resource named (RFC 8707).

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::client_key::ClientKey;
use super::dpop::{Dpop, NONCE_HEADER, Party};
use crate::client::oauth::error::{OAuthError, Step};

/// The grant type of a token exchange (RFC 8693 section 2.1).
const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// An ID token, as the subject of a token exchange.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// An Identity Assertion JWT Authorization Grant, asked of the exchange.
pub(crate) const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The grant type of an assertion (RFC 7523 section 2.1).
const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The `client_assertion_type` of `private_key_jwt` (RFC 7523 section 2.2).
const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
use crate::oauth::fetch::{HttpFetch, encode};

/// What a token request asks for.
pub(crate) enum Grant<'a> {
    /// The code of an authorization response, with its PKCE verifier.
    AuthorizationCode {
        code: &'a str,
        redirect_uri: &'a str,
        verifier: &'a str,
    },
    /// A new access token for a refresh token.
    Refresh { refresh_token: &'a str },
    /// A token for the client itself.
    ClientCredentials,
    /// A token for the workload an assertion names.
    JwtBearer { assertion: &'a str },
    /// An ID-JAG for `audience`, in exchange for the user's ID token.
    IdJagExchange {
        id_token: &'a str,
        audience: &'a str,
    },
}

/// How the client authenticates at the token endpoint.
pub(crate) struct ClientAuth<'a> {
    pub client_id: &'a str,
    pub client_secret: Option<&'a SecretString>,
    pub key: Option<&'a ClientKey>,
    /// `client_secret_basic`, `client_secret_post`, `private_key_jwt` or
    /// `none`.
    pub method: &'a str,
    /// The authorization server's issuer: the audience of a
    /// `private_key_jwt` assertion.
    pub issuer: &'a str,
}

/// A successful token response.
#[derive(Deserialize)]
pub(crate) struct Issued {
    pub access_token: SecretString,
    #[serde(default)]
    pub token_type: Option<String>,
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<SecretString>,
    /// What a token exchange issued (RFC 8693 section 2.2.1).
    #[serde(default)]
    pub issued_token_type: Option<String>,
}

/// An error response (RFC 6749 section 5.2).
#[derive(Deserialize)]
struct Refused {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// Where a token request goes, for what, and how it proves itself.
pub(crate) struct Endpoint<'a> {
    pub url: &'a str,
    pub resource: &'a str,
    pub scope: Option<&'a str>,
    /// The session's DPoP key, when tokens are bound to it.
    pub dpop: Option<&'a Dpop>,
    /// Whose failure a failure is.
    pub step: Step,
    /// What the endpoint must issue: an access token, or (from a token
    /// exchange) an assertion of the type named.
    pub issues: Option<&'static str>,
}

/// Sends `grant` as `client` to `to`; once more with the nonce when a
/// DPoP server asks for one.
pub(crate) async fn request(
    fetch: &HttpFetch,
    to: &Endpoint<'_>,
    grant: Grant<'_>,
    client: &ClientAuth<'_>,
) -> Result<Issued, OAuthError> {
    let mut answer = send(fetch, to, &grant, client).await?;
    if let Some(dpop) = to.dpop
        && answer.status == 400
        && let Some(nonce) = answer
            .headers
            .get(NONCE_HEADER)
            .and_then(|v| v.to_str().ok())
        && asks_for_nonce(&answer.body)
        && dpop.learn_nonce(Party::AuthorizationServer, nonce)
    {
        answer = send(fetch, to, &grant, client).await?;
    }
    read(to, answer)
}

/// Whether an error response asks for a DPoP nonce.
fn asks_for_nonce(body: &[u8]) -> bool {
    serde_json::from_slice::<Refused>(body).is_ok_and(|r| r.error == "use_dpop_nonce")
}

/// One token request.
async fn send(
    fetch: &HttpFetch,
    to: &Endpoint<'_>,
    grant: &Grant<'_>,
    client: &ClientAuth<'_>,
) -> Result<crate::oauth::fetch::Answer, OAuthError> {
    let (endpoint, resource, scope, step) = (to.url, to.resource, to.scope, to.step);
    let mut form: Vec<(&str, &str)> = match grant {
        Grant::AuthorizationCode {
            code,
            redirect_uri,
            verifier,
        } => vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ],
        Grant::Refresh { refresh_token } => {
            vec![
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
            ]
        }
        Grant::ClientCredentials => vec![("grant_type", "client_credentials")],
        Grant::JwtBearer { assertion } => {
            vec![("grant_type", JWT_BEARER_GRANT), ("assertion", assertion)]
        }
        Grant::IdJagExchange { id_token, audience } => vec![
            ("grant_type", TOKEN_EXCHANGE_GRANT),
            ("subject_token", id_token),
            ("subject_token_type", ID_TOKEN_TYPE),
            ("requested_token_type", ID_JAG_TYPE),
            ("audience", audience),
        ],
    };
    form.push(("resource", resource));
    if let Some(scope) = scope {
        form.push(("scope", scope));
    }
    let mut sent = fetch
        .post(endpoint)
        .map_err(|e| OAuthError::new(step, e.to_string()))?;
    let assertion = match (client.method, client.key) {
        ("private_key_jwt", Some(key)) => Some(key.assertion(client.client_id, client.issuer)?),
        _ => None,
    };
    if let Some(assertion) = &assertion {
        form.push(("client_id", client.client_id));
        form.push(("client_assertion_type", JWT_BEARER_ASSERTION));
        form.push(("client_assertion", assertion));
    }
    match (client.method, client.client_secret) {
        ("private_key_jwt", _) => {}
        ("client_secret_basic", Some(secret)) => {
            // RFC 6749 section 2.3.1: each part form-encoded first.
            sent = sent.basic_auth(
                encode(client.client_id),
                Some(encode(secret.expose_secret())),
            );
        }
        ("client_secret_post", Some(secret)) => {
            form.push(("client_id", client.client_id));
            form.push(("client_secret", secret.expose_secret()));
        }
        // A workload may have no client id: its assertion names it.
        _ if client.client_id.is_empty() => {}
        _ => form.push(("client_id", client.client_id)),
    }
    if let Some(dpop) = to.dpop {
        sent = sent.header(
            "DPoP",
            dpop.proof(Party::AuthorizationServer, "POST", endpoint, None)?,
        );
    }
    HttpFetch::answer(endpoint, sent.form(&form))
        .await
        .map_err(|e| OAuthError::new(step, e.to_string()))
}

/// The tokens `answer` issued, or why it issued none.
fn read(to: &Endpoint<'_>, answer: crate::oauth::fetch::Answer) -> Result<Issued, OAuthError> {
    let (endpoint, step) = (to.url, to.step);
    if answer.status == 200 {
        let issued: Issued = serde_json::from_slice(&answer.body).map_err(|e| {
            OAuthError::new(
                step,
                format!("{endpoint} answered 200 without a token response: {e}"),
            )
        })?;
        if let Some(kind) = to.issues {
            return match issued.issued_token_type.as_deref() {
                Some(issued_kind) if issued_kind == kind => Ok(issued),
                other => Err(OAuthError::new(
                    step,
                    format!("{endpoint} issued {other:?}, not a {kind}"),
                )),
            };
        }
        return match (issued.token_type.as_deref(), to.dpop.is_some()) {
            (None, _) => Ok(issued),
            (Some(kind), true) if kind.eq_ignore_ascii_case("dpop") => Ok(issued),
            (Some(kind), false) if kind.eq_ignore_ascii_case("bearer") => Ok(issued),
            (Some(kind), true) => Err(OAuthError::new(
                step,
                format!(
                    "{endpoint} issued a `{kind}` token, not one bound to this client's DPoP \
                     key: the authorization server does not bind tokens with DPoP, so sign \
                     in without DPoP"
                ),
            )),
            (Some(kind), false) => Err(OAuthError::new(
                step,
                format!("{endpoint} issued a `{kind}` token, where a bearer token was asked for"),
            )),
        };
    }
    let reason = match serde_json::from_slice::<Refused>(&answer.body) {
        Ok(refused) => match refused.error_description {
            Some(description) => format!("{}: {description}", refused.error),
            None => refused.error,
        },
        Err(_) => "no OAuth error in the body".into(),
    };
    Err(OAuthError::new(
        step,
        format!("{endpoint} answered {}: {reason}", answer.status),
    ))
}
