//! Who `presa` signs in as, when a server wants OAuth.
//!
//! By default presa registers itself at the server's authorization server
//! (dynamic registration), under the name `presa`. Many authorization
//! servers allow no such registration: there you register a client
//! yourself and give its id. The rules, in order:
//!
//! 1. `--client-metadata-url URL` names a Client ID Metadata Document:
//!    an authorization server that supports them takes the URL as the
//!    client id; one that does not gets a dynamic registration. It is an
//!    `https://` URL, and goes with no `--client-id`;
//! 2. `--client-id ID` signs in as that client, registered beforehand,
//!    and never registers;
//! 3. a client secret (`--client-secret-file PATH`, or else
//!    `PRESA_CLIENT_SECRET`) goes with `--client-id`. It is read only when
//!    a client id is given, so a secret left in the environment does not
//!    change how presa signs in to other servers;
//! 4. a secret is sent only to the authorization server that `--issuer
//!    URL` names, exactly as that server's metadata names itself. So a
//!    secret without `--issuer` is a usage error: otherwise whichever
//!    server the MCP server named would get it. `--issuer` also pins the
//!    sign-in of a client without a secret;
//! 5. `--client-credentials` signs in as the client itself, with no
//!    browser and no person (the client credentials grant). It needs a
//!    client id, its secret and `--issuer`.

use presa::client::oauth::{LoopbackAuthorizer, OAuthClient};

use super::credentials::client_secret;
use crate::command_line::Common;
use crate::exit::Failure;

/// Who presa signs in as: one of the shapes the rules allow, so a secret
/// never exists without the issuer it is bound to.
pub enum Identity {
    /// presa itself, registered dynamically or by its metadata document
    /// (rule 1).
    Presa {
        metadata_document: Option<String>,
        issuer: Option<String>,
    },
    /// A client registered beforehand with no secret (rule 2).
    Public { id: String, issuer: Option<String> },
    /// A client registered beforehand, with its secret (rules 3 and 4).
    Confidential {
        id: String,
        secret: String,
        issuer: String,
    },
    /// The client itself, with no person (rule 5).
    Machine {
        id: String,
        secret: String,
        issuer: String,
    },
}

impl Identity {
    /// The identity the options of `common` give.
    pub fn of(common: &Common) -> Result<Identity, Failure> {
        let secret = match &common.client_id {
            Some(_) => client_secret(common.client_secret_file.as_deref())?,
            None if common.client_secret_file.is_some() => {
                return Err(Failure::usage(
                    "--client-secret-file goes with --client-id: give the id of the client \
                     the secret belongs to",
                ));
            }
            None => None,
        };
        Identity::from_parts(
            common.client_id.clone(),
            secret,
            common.issuer.clone(),
            common.client_metadata_url.clone(),
            common.client_credentials,
        )
    }

    /// The rules, with the secret read.
    fn from_parts(
        id: Option<String>,
        secret: Option<String>,
        issuer: Option<String>,
        metadata_document: Option<String>,
        machine: bool,
    ) -> Result<Identity, Failure> {
        if let Some(url) = &metadata_document {
            if id.is_some() {
                return Err(Failure::usage(
                    "give --client-id or --client-metadata-url, not both: the document's URL \
                     is the client id",
                ));
            }
            if !url.starts_with("https://") {
                return Err(Failure::usage(
                    "--client-metadata-url must be an https:// URL: authorization servers \
                     fetch the document only over HTTPS",
                ));
            }
        }
        match (id, secret, issuer, machine) {
            (None, _, _, true) => Err(Failure::usage(
                "--client-credentials needs --client-id, the client's secret \
                 (--client-secret-file or PRESA_CLIENT_SECRET) and --issuer",
            )),
            (None, _, issuer, false) => Ok(Identity::Presa {
                metadata_document,
                issuer,
            }),
            (Some(_), None, _, true) => Err(Failure::usage(
                "--client-credentials needs the client's secret: give \
                 --client-secret-file PATH, or set PRESA_CLIENT_SECRET",
            )),
            (Some(_), Some(_), None, _) => Err(Failure::usage(
                "a client secret needs --issuer URL: presa sends the secret only to the \
                 authorization server you name, so that a server cannot send it elsewhere",
            )),
            (Some(id), None, issuer, false) => Ok(Identity::Public { id, issuer }),
            (Some(id), Some(secret), Some(issuer), false) => {
                Ok(Identity::Confidential { id, secret, issuer })
            }
            (Some(id), Some(secret), Some(issuer), true) => {
                Ok(Identity::Machine { id, secret, issuer })
            }
        }
    }

    /// Whether signing in needs a person at a browser.
    pub fn needs_browser(&self) -> bool {
        !matches!(self, Identity::Machine { .. })
    }

    /// The OAuth client of this identity; `authorizer` takes the
    /// browser's redirect when a person signs in. `None` for a person's
    /// sign-in with no authorizer.
    pub fn client(self, authorizer: Option<LoopbackAuthorizer>) -> Option<OAuthClient> {
        let person = || authorizer.map(|a| OAuthClient::new(a).client_name("presa"));
        let client = match self {
            Identity::Presa {
                metadata_document,
                issuer,
            } => {
                let mut client = person()?;
                if let Some(url) = metadata_document {
                    client = client.client_metadata_document(url);
                }
                bound(client, issuer)
            }
            Identity::Public { id, issuer } => bound(person()?.client_id(id), issuer),
            Identity::Confidential { id, secret, issuer } => person()?
                .client_id(id)
                .client_secret(secret)
                .registered_with(issuer),
            Identity::Machine { id, secret, issuer } => OAuthClient::client_credentials(id)
                .client_secret(secret)
                .registered_with(issuer),
        };
        Some(client)
    }
}

/// `client`, signing in only at `issuer` when one is given (rule 4).
fn bound(client: OAuthClient, issuer: Option<String>) -> OAuthClient {
    match issuer {
        Some(issuer) => client.registered_with(issuer),
        None => client,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<Identity, Failure>) -> String {
        match result {
            Err(failure) => {
                assert_eq!(failure.exit, crate::exit::Exit::Usage);
                failure.message
            }
            Ok(_) => panic!("a usage error"),
        }
    }

    fn parts(
        id: Option<&str>,
        secret: Option<&str>,
        issuer: Option<&str>,
        machine: bool,
    ) -> Result<Identity, Failure> {
        Identity::from_parts(
            id.map(str::to_owned),
            secret.map(str::to_owned),
            issuer.map(str::to_owned),
            None,
            machine,
        )
    }

    #[test]
    fn each_shape_comes_from_its_options() {
        let iss = Some("https://as.example");
        assert!(matches!(
            parts(None, None, None, false),
            Ok(Identity::Presa { .. })
        ));
        assert!(matches!(
            parts(Some("app"), None, None, false),
            Ok(Identity::Public { issuer: None, .. })
        ));
        assert!(matches!(
            parts(Some("app"), None, iss, false),
            Ok(Identity::Public {
                issuer: Some(_),
                ..
            })
        ));
        assert!(matches!(
            parts(Some("app"), Some("s3"), iss, false),
            Ok(Identity::Confidential { .. })
        ));
        assert!(matches!(
            parts(Some("svc"), Some("s3"), iss, true),
            Ok(Identity::Machine { .. })
        ));
        assert!(
            !parts(Some("svc"), Some("s3"), iss, true)
                .unwrap()
                .needs_browser()
        );
        assert!(
            parts(Some("app"), None, None, false)
                .unwrap()
                .needs_browser()
        );
    }

    #[test]
    fn a_secret_without_an_issuer_is_refused_without_showing_it() {
        let said = message(parts(Some("app"), Some("s3cr3t-value"), None, false));
        assert!(said.contains("needs --issuer"), "{said}");
        assert!(!said.contains("s3cr3t-value"), "{said}");
        let said = message(parts(Some("svc"), Some("s3cr3t-value"), None, true));
        assert!(said.contains("needs --issuer"), "{said}");
    }

    #[test]
    fn client_credentials_need_an_id_and_a_secret() {
        let iss = Some("https://as.example");
        assert!(message(parts(None, None, iss, true)).contains("needs --client-id"));
        assert!(message(parts(Some("svc"), None, iss, true)).contains("needs the client's secret"));
    }

    #[test]
    fn a_metadata_document_is_https_and_no_client_id() {
        let document = |id: Option<&str>, url: &str| {
            Identity::from_parts(id.map(str::to_owned), None, None, Some(url.into()), false)
        };
        assert!(matches!(
            document(None, "https://app.example/client.json"),
            Ok(Identity::Presa {
                metadata_document: Some(_),
                ..
            })
        ));
        assert!(message(document(None, "http://app.example/client.json")).contains("https://"));
        assert!(
            message(document(Some("app"), "https://app.example/client.json")).contains("not both")
        );
    }
}
