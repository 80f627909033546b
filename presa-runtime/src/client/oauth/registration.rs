//! A client id at the authorization server, by the MCP spec's priority:
//!
//! 1. pre-registered credentials, when configured (discovery found only
//!    the issuer they are bound to, as `binding` says);
//! 2. the client's metadata document URL as its id, when it has one and
//!    the server advertises `client_id_metadata_document_supported`;
//! 3. dynamic registration (RFC 7591) at the `registration_endpoint`,
//!    as a `native` application for a loopback redirect, else `web`;
//! 4. otherwise there is no way to get one, and signing in fails.
//!
//! How the client authenticates at the token endpoint follows: a key goes
//! by `private_key_jwt`; a secret by `client_secret_basic` unless the
//! server supports only `client_secret_post`; a client with neither sends
//! `none`.

use secrecy::SecretString;
use serde::Deserialize;
use serde_json::json;

use super::config::OAuthClient;
use super::error::{OAuthError, Step};
use super::token::ClientKey;
use crate::oauth::fetch::HttpFetch;
use crate::oauth::server_metadata::ServerMetadata;

/// A client id, its secret, and how it authenticates.
#[derive(Clone)]
pub(crate) struct Registration {
    pub client_id: String,
    pub client_secret: Option<SecretString>,
    pub key: Option<ClientKey>,
    pub auth_method: String,
}

/// What a registration endpoint answers (RFC 7591 section 3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<SecretString>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// A client id at `server`, for a client whose redirect URI is
/// `redirect_uri`.
pub(crate) async fn register(
    fetch: &HttpFetch,
    config: &OAuthClient,
    server: &ServerMetadata,
    redirect_uri: &str,
) -> Result<Registration, OAuthError> {
    let failed = |reason: String| OAuthError::new(Step::Registration, reason);
    if let Some(registered) = &config.pre_registered {
        let method = match registered.key {
            Some(_) => "private_key_jwt".to_owned(),
            None => auth_method(server, registered.client_secret.is_some(), None),
        };
        return Ok(Registration {
            client_id: registered.client_id.clone(),
            client_secret: registered.client_secret.clone(),
            key: registered.key.clone(),
            auth_method: method,
        });
    }
    if let Some(document) = &config.metadata_document
        && server.client_id_metadata_document_supported
    {
        return Ok(Registration {
            client_id: document.clone(),
            client_secret: None,
            key: None,
            auth_method: "none".into(),
        });
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(failed(format!(
            "authorization server `{}` offers no dynamic registration, and no client id is configured for it",
            server.issuer
        )));
    };
    let requested = auth_method(server, false, None);
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": requested,
        "application_type": application_type(redirect_uri),
    });
    let sent = fetch
        .post(endpoint)
        .map_err(|e| failed(e.to_string()))?
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_string());
    let answer = HttpFetch::answer(endpoint, sent)
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !(200..300).contains(&answer.status) {
        let excerpt: String = String::from_utf8_lossy(&answer.body)
            .chars()
            .take(200)
            .collect();
        return Err(failed(format!(
            "{endpoint} answered {}: {excerpt}",
            answer.status
        )));
    }
    let registered: Registered = serde_json::from_slice(&answer.body).map_err(|e| {
        failed(format!(
            "{endpoint} did not answer with a registration: {e}"
        ))
    })?;
    let has_secret = registered.client_secret.is_some();
    let method = auth_method(server, has_secret, registered.token_endpoint_auth_method);
    Ok(Registration {
        client_id: registered.client_id,
        client_secret: registered.client_secret,
        key: None,
        auth_method: method,
    })
}

/// How a client authenticates: what its registration says, else by the
/// module's rule.
fn auth_method(server: &ServerMetadata, has_secret: bool, registered: Option<String>) -> String {
    if let Some(method) = registered {
        return method;
    }
    if !has_secret {
        return "none".into();
    }
    let supported = server.token_endpoint_auth_methods_supported.as_deref();
    // RFC 8414: without the field, client_secret_basic is the default.
    let basic = supported.is_none_or(|m| m.iter().any(|m| m == "client_secret_basic"));
    let post = supported.is_some_and(|m| m.iter().any(|m| m == "client_secret_post"));
    if !basic && post {
        "client_secret_post"
    } else {
        "client_secret_basic"
    }
    .into()
}

/// `native` for a redirect to this machine (a CLI, a desktop app),
/// `web` otherwise (OpenID Connect Registration's `application_type`).
fn application_type(redirect_uri: &str) -> &'static str {
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"];
    if loopback
        .iter()
        .any(|prefix| redirect_uri.starts_with(prefix))
    {
        "native"
    } else {
        "web"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            issuer: "https://as.example".into(),
            token_endpoint_auth_methods_supported: methods
                .map(|m| m.iter().map(|s| s.to_string()).collect()),
            ..ServerMetadata::default()
        }
    }

    #[test]
    fn a_secret_goes_by_basic_unless_only_post_is_supported() {
        assert_eq!(
            auth_method(&server(None), true, None),
            "client_secret_basic"
        );
        assert_eq!(
            auth_method(&server(Some(&["client_secret_post"])), true, None),
            "client_secret_post"
        );
        assert_eq!(
            auth_method(
                &server(Some(&["client_secret_post", "client_secret_basic"])),
                true,
                None
            ),
            "client_secret_basic"
        );
        assert_eq!(auth_method(&server(None), false, None), "none");
        assert_eq!(
            auth_method(&server(None), true, Some("client_secret_post".into())),
            "client_secret_post"
        );
    }

    #[test]
    fn loopback_redirects_are_native_applications() {
        assert_eq!(application_type("http://127.0.0.1:4000/callback"), "native");
        assert_eq!(application_type("http://localhost:4000/callback"), "native");
        assert_eq!(application_type("https://app.example.com/callback"), "web");
    }
}
