//! The integrity-protected `requestState` that carries MRTR answers across
//! rounds.
//!
//! The client sends only the answers to the latest round, so the server
//! keeps the earlier ones in `requestState`. The client must echo it byte
//! for byte; it is attacker-controlled input, so it is signed with
//! HMAC-SHA256 and bound to:
//!
//! - the method and the caller's principal (its issuer and subject),
//! - what the request names (the tool or prompt, or the resource's URI)
//!   and a SHA-256 digest of the canonical arguments,
//! - an expiry.
//!
//! The payload carries the answers the run used, so that a retry cannot
//! replace them (see the rules in `mrtr`).
//!
//! Format: `base64url(payload JSON) "." base64url(tag)`. The payload is not
//! secret (it holds the client's own answers), so it is signed, not
//! encrypted.
//!
//! Within its expiry a state can be presented again: the spec allows this,
//! and a tool whose effect must happen at most once has to enforce that
//! itself.
//!
//! # One key for every replica, and rotating it
//!
//! A retry may reach any server behind a load balancer, so replicas share
//! one key (`ServerBuilder::request_state_key`). To rotate it without
//! refusing the states in flight:
//!
//! 1. give every replica the new key as a verifying key only
//!    (`verify_request_state_key(new)`), so each accepts what the others
//!    will sign;
//! 2. make the new key the signing key everywhere, with the old one as a
//!    verifying key (`request_state_key(new)`,
//!    `verify_request_state_key(old)`);
//! 3. once the state TTL has passed, retire the old key.
//!
//! Changing the key in one step instead refuses every state in flight
//! (`-32602`; the client starts the call again).

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::util::HashWriter;
use crate::wire::{InputResponses, Method};

type HmacSha256 = Hmac<Sha256>;

/// Version of the payload layout.
const FORMAT: u8 = 2;

/// What a `requestState` proves about the call it came from. Its text
/// borrows: sealing, from the call's binding; opening, from the decoded
/// payload (a string with escapes is the one that gets copied).
#[derive(Debug, Serialize, Deserialize)]
struct StatePayload<'a> {
    v: u8,
    /// The method the state belongs to, such as `tools/call`.
    #[serde(borrow)]
    m: Cow<'a, str>,
    /// The caller's principal (`Caller::principal`), or `None` for an anonymous caller.
    #[serde(borrow)]
    sub: Option<Cow<'a, str>>,
    /// What the request names: a tool or prompt name, or a resource URI.
    #[serde(rename = "tool", borrow)]
    target: Cow<'a, str>,
    /// SHA-256 of the canonical arguments, base64url.
    #[serde(borrow)]
    args: Cow<'a, str>,
    /// Expiry, milliseconds since the Unix epoch.
    exp: u64,
    /// Every answer the run used so far, by input key.
    answers: InputResponses,
}

/// Why a `requestState` was refused. Each maps to `-32602`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Not produced by this server, or altered.
    #[error("requestState failed verification")]
    Tampered,
    /// Past its expiry.
    #[error("requestState has expired; send the request again without it")]
    Expired,
    /// Issued to another caller, method, target or set of arguments.
    #[error("requestState belongs to another caller, request or set of arguments")]
    Foreign,
}

/// Signs and verifies request state.
#[derive(Clone)]
pub(crate) struct StateCodec {
    /// The signing key, as an HMAC already keyed: each state then costs
    /// only the hashing of its own bytes.
    key: HmacSha256,
    /// Keys whose states still verify, though nothing is signed with them.
    verifying: Vec<HmacSha256>,
    ttl: Duration,
}

/// Identifies the request a state belongs to.
pub(crate) struct CallBinding<'a> {
    method: Method,
    subject: Option<String>,
    target: &'a str,
    arguments_digest: String,
}

impl<'a> CallBinding<'a> {
    /// Binds to a `method` request by `subject` naming `target` (a tool or
    /// prompt, or a resource URI) with `arguments`.
    pub fn new(
        method: Method,
        subject: Option<&str>,
        target: &'a str,
        arguments: &Map<String, Value>,
    ) -> Self {
        CallBinding {
            method,
            subject: subject.map(str::to_owned),
            target,
            arguments_digest: arguments_digest(arguments),
        }
    }
}

impl StateCodec {
    pub fn new(key: [u8; 32], ttl: Duration) -> Self {
        StateCodec {
            key: keyed(&key),
            verifying: Vec::new(),
            ttl,
        }
    }

    /// Also accepts the states signed with each of `keys`.
    pub fn verifying(mut self, keys: Vec<[u8; 32]>) -> Self {
        self.verifying = keys.iter().map(keyed).collect();
        self
    }

    pub fn seal(&self, call: &CallBinding<'_>, answers: InputResponses) -> String {
        let payload = StatePayload {
            v: FORMAT,
            m: Cow::Borrowed(call.method.as_str()),
            sub: call.subject.as_deref().map(Cow::Borrowed),
            target: Cow::Borrowed(call.target),
            args: Cow::Borrowed(&call.arguments_digest),
            exp: now_ms().saturating_add(self.ttl.as_millis() as u64),
            answers,
        };
        self.sign(&serde_json::to_vec(&payload).expect("payload serializes"))
    }

    /// The token for `payload`, whatever its bytes: the body and its tag.
    pub fn sign(&self, payload: &[u8]) -> String {
        let body = URL_SAFE_NO_PAD.encode(payload);
        let tag = URL_SAFE_NO_PAD.encode(mac(&self.key, body.as_bytes()).finalize().into_bytes());
        format!("{body}.{tag}")
    }

    /// Verifies `state` for `call`: the answers it carries.
    pub fn open(&self, state: &str, call: &CallBinding<'_>) -> Result<InputResponses, StateError> {
        let (body, tag) = state.split_once('.').ok_or(StateError::Tampered)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Tampered)?;
        let signed_by = |key: &HmacSha256| mac(key, body.as_bytes()).verify_slice(&tag).is_ok();
        if !(signed_by(&self.key) || self.verifying.iter().any(signed_by)) {
            return Err(StateError::Tampered);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Tampered)?;
        let payload: StatePayload =
            serde_json::from_slice(&bytes).map_err(|_| StateError::Tampered)?;
        if payload.v != FORMAT {
            return Err(StateError::Tampered);
        }
        if now_ms() >= payload.exp {
            return Err(StateError::Expired);
        }
        if payload.m != call.method.as_str()
            || payload.sub.as_deref() != call.subject.as_deref()
            || payload.target != call.target
            || payload.args != call.arguments_digest
        {
            return Err(StateError::Foreign);
        }
        Ok(payload.answers)
    }
}

fn keyed(key: &[u8; 32]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes any key length")
}

fn mac(keyed: &HmacSha256, body: &[u8]) -> HmacSha256 {
    let mut mac = keyed.clone();
    mac.update(body);
    mac
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// SHA-256 over the arguments with object keys sorted at every depth, so the
/// digest does not depend on key order; base64url, as it travels in the
/// payload. Computed on every call, so it writes straight into the hasher.
fn arguments_digest(arguments: &Map<String, Value>) -> String {
    let mut hasher = HashWriter::new();
    write_object(&mut hasher, arguments);
    URL_SAFE_NO_PAD.encode(hasher.finish())
}

fn write_object(hasher: &mut HashWriter, object: &Map<String, Value>) {
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort_unstable();
    hasher.0.update(b"{");
    for k in keys {
        write_json(hasher, k);
        hasher.0.update(b":");
        write_canonical(hasher, &object[k]);
        hasher.0.update(b",");
    }
    hasher.0.update(b"}");
}

fn write_canonical(hasher: &mut HashWriter, value: &Value) {
    match value {
        Value::Object(m) => write_object(hasher, m),
        Value::Array(items) => {
            hasher.0.update(b"[");
            for item in items {
                write_canonical(hasher, item);
                hasher.0.update(b",");
            }
            hasher.0.update(b"]");
        }
        scalar => write_json(hasher, scalar),
    }
}

fn write_json(hasher: &mut HashWriter, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(hasher, value).expect("writing to a hasher cannot fail");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ElicitResult;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn binding<'a>(sub: Option<&'a str>, a: &Map<String, Value>) -> CallBinding<'a> {
        CallBinding::new(Method::ToolsCall, sub, "build", a)
    }

    #[test]
    fn a_rotated_key_verifies_until_it_is_retired() {
        let a = args(json!({"target": "docs"}));
        let call = binding(None, &a);
        let ttl = Duration::from_secs(60);
        let old = StateCodec::new([1; 32], ttl);
        let rotating = StateCodec::new([2; 32], ttl).verifying(vec![[1; 32]]);
        let retired = StateCodec::new([2; 32], ttl);

        let from_old = old.seal(&call, BTreeMap::new());
        assert!(rotating.open(&from_old, &call).is_ok());
        assert_eq!(retired.open(&from_old, &call), Err(StateError::Tampered));

        let from_new = rotating.seal(&call, BTreeMap::new());
        assert!(retired.open(&from_new, &call).is_ok());
        assert_eq!(old.open(&from_new, &call), Err(StateError::Tampered));
    }

    #[test]
    fn round_trips_and_binds_to_the_call() {
        let codec = StateCodec::new([7; 32], Duration::from_secs(60));
        let a = args(json!({"target": "docs", "n": {"b": 1, "a": 2}}));
        let answers = BTreeMap::from([("k".to_owned(), ElicitResult::decline().into())]);
        let state = codec.seal(&binding(Some("alice"), &a), answers.clone());
        let opened = codec.open(&state, &binding(Some("alice"), &a)).unwrap();
        assert_eq!(opened, answers);

        let reordered = args(json!({"n": {"a": 2, "b": 1}, "target": "docs"}));
        assert!(
            codec
                .open(&state, &binding(Some("alice"), &reordered))
                .is_ok()
        );
        assert_eq!(
            codec.open(&state, &binding(Some("bob"), &a)),
            Err(StateError::Foreign)
        );
        let other = args(json!({"target": "web"}));
        assert_eq!(
            codec.open(&state, &binding(Some("alice"), &other)),
            Err(StateError::Foreign)
        );
    }

    #[test]
    fn a_state_is_bound_to_its_method() {
        let codec = StateCodec::new([7; 32], Duration::from_secs(60));
        let a = args(json!({}));
        let state = codec.seal(&binding(None, &a), BTreeMap::new());
        let prompt = CallBinding::new(Method::PromptsGet, None, "build", &a);
        assert_eq!(codec.open(&state, &prompt), Err(StateError::Foreign));
    }

    #[test]
    fn rejects_tampering_and_other_keys() {
        let codec = StateCodec::new([7; 32], Duration::from_secs(60));
        let a = args(json!({}));
        let state = codec.seal(&binding(None, &a), BTreeMap::new());
        let mut flipped = state.clone().into_bytes();
        flipped[3] ^= 1;
        let flipped = String::from_utf8(flipped).unwrap();
        assert_eq!(
            codec.open(&flipped, &binding(None, &a)),
            Err(StateError::Tampered)
        );
        assert_eq!(
            codec.open("garbage", &binding(None, &a)),
            Err(StateError::Tampered)
        );
        let stranger = StateCodec::new([8; 32], Duration::from_secs(60));
        assert_eq!(
            stranger.open(&state, &binding(None, &a)),
            Err(StateError::Tampered)
        );
    }

    #[test]
    fn a_zero_ttl_state_is_already_expired() {
        let codec = StateCodec::new([7; 32], Duration::ZERO);
        let a = args(json!({}));
        let state = codec.seal(&binding(None, &a), BTreeMap::new());
        assert_eq!(
            codec.open(&state, &binding(None, &a)),
            Err(StateError::Expired)
        );
    }
}
