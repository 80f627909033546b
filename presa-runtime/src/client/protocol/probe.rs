//! How the client tells its server's era: the rules, and reading the
//! answer to the `server/discover` probe. The rules, in order:
//!
//! 1. a forced era ([`ClientBuilder::force_era`](crate::client::ClientBuilder::force_era)),
//!    or a version list with legacy versions only, settles it without
//!    asking;
//! 2. otherwise the client probes with `server/discover`, carrying its
//!    preferred modern version, on every transport (over HTTP that is the
//!    modern request the spec has the client try first). A client with
//!    modern versions only probes too, as the spec recommends, so that a
//!    legacy server fails it with a clear error rather than half-serving
//!    an ambiguous request;
//! 3. a `DiscoverResult` means modern, and so does a recognized modern
//!    error (`-32020` to `-32022`): on `-32022` the client adopts a version
//!    the error lists rather than fall back;
//! 4. any other answer means legacy: another error (the spec forbids
//!    keying the fallback to one code), an HTTP `4xx` without a modern
//!    error in its body, a result that is not a `DiscoverResult`, or no
//!    answer within the probe timeout. The client then opens a session
//!    with `initialize`;
//! 5. a failure that says nothing of the server's era (the connection
//!    closed, the server unreachable, an HTTP `5xx`, or a `401` or `403`,
//!    which refuse the credentials of either era) settles nothing: the
//!    request fails and the next one probes again.

use serde_json::Value;

use super::result::parse_complete;
use crate::client::error::ClientError;
use crate::client::link::LinkFailure;
use crate::wire::{DiscoverResult, ErrorObject, Method, codes};

/// What the answer to the `server/discover` probe says of the server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProbeAnswer {
    /// The server described itself: modern.
    Discovered(Box<DiscoverResult>),
    /// A modern error (`-32020` to `-32022`): modern, though it refused.
    Refused(ErrorObject),
    /// Anything a modern server would not answer, and why.
    Legacy(String),
}

/// Reads the outcome of the probe; a failure that says nothing of the
/// server stays an error (rule 5).
pub(crate) fn read_probe(outcome: Result<Value, ClientError>) -> Result<ProbeAnswer, ClientError> {
    let method = Method::ServerDiscover.as_str();
    let error = match outcome {
        Ok(result) => {
            return Ok(match parse_complete::<DiscoverResult>(method, result) {
                Ok(discovered) => ProbeAnswer::Discovered(Box::new(discovered)),
                Err(e) => ProbeAnswer::Legacy(format!(
                    "its answer to {method} is no DiscoverResult ({e})"
                )),
            });
        }
        Err(ClientError::Timeout(limit)) => {
            return Ok(ProbeAnswer::Legacy(format!(
                "it did not answer {method} within {limit:?}"
            )));
        }
        Err(ClientError::Rpc(error)) => error,
        Err(other) => return Err(other),
    };
    if let Some(failure) = LinkFailure::read(&error) {
        return match failure.is_refusal() {
            true => Ok(ProbeAnswer::Legacy(format!(
                "it refused {method}: {}",
                error.message
            ))),
            false => Err(ClientError::Rpc(error)),
        };
    }
    Ok(match error.code {
        codes::HEADER_MISMATCH
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION => ProbeAnswer::Refused(error),
        _ => ProbeAnswer::Legacy(format!("it answered {method} with {error}")),
    })
}

/// The versions a `-32022` error (or a legacy `initialize` refusal) lists
/// under `data.supported`.
pub(crate) fn supported_versions(error: &ErrorObject) -> Vec<String> {
    error
        .data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(|s| serde_json::from_value(s.clone()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn discover_result() -> Value {
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": {}, "ttlMs": 0, "cacheScope": "public"})
    }

    fn legacy(answer: Result<ProbeAnswer, ClientError>) -> bool {
        matches!(answer, Ok(ProbeAnswer::Legacy(_)))
    }

    #[test]
    fn a_discover_result_or_a_modern_error_means_modern() {
        assert!(matches!(
            read_probe(Ok(discover_result())),
            Ok(ProbeAnswer::Discovered(_))
        ));
        for code in [-32020, -32021, -32022] {
            let error = ErrorObject::new(code, "modern");
            assert!(matches!(
                read_probe(Err(ClientError::Rpc(error))),
                Ok(ProbeAnswer::Refused(_))
            ));
        }
    }

    #[test]
    fn anything_else_a_server_answers_means_legacy() {
        for code in [-32601, -32602, -32600, -32000, -32603, 1] {
            let error = ErrorObject::new(code, "not now");
            assert!(legacy(read_probe(Err(ClientError::Rpc(error)))), "{code}");
        }
        assert!(legacy(read_probe(Ok(json!({})))));
        assert!(legacy(read_probe(Err(ClientError::Timeout(
            Duration::from_secs(1)
        )))));
        let refused = LinkFailure {
            status: Some(400),
            session_expired: false,
        };
        let error = refused.to_error("http", "HTTP 400 without a JSON-RPC answer");
        assert!(legacy(read_probe(Err(ClientError::Rpc(error)))));
    }

    #[test]
    fn a_failure_that_says_nothing_of_the_server_settles_nothing() {
        let unreachable = LinkFailure::default().to_error("http", "connection refused");
        assert!(read_probe(Err(ClientError::Rpc(unreachable))).is_err());
        let overloaded = LinkFailure {
            status: Some(503),
            session_expired: false,
        }
        .to_error("http", "busy");
        assert!(read_probe(Err(ClientError::Rpc(overloaded))).is_err());
        assert_eq!(
            read_probe(Err(ClientError::Closed)),
            Err(ClientError::Closed)
        );
    }
}
