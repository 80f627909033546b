//! `resultType`, the discriminator every 2026-07-28 result carries.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The kind of a result. Absent on the wire means [`ResultType::Complete`],
/// for servers of earlier revisions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultType {
    /// The final result.
    #[default]
    Complete,
    /// More input is needed: an `InputRequiredResult`.
    InputRequired,
    /// The Tasks extension's `CreateTaskResult`.
    Task,
    /// A value this implementation does not know; a client treats it as invalid.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            _ => ResultType::Other(s),
        })
    }
}

/// Who may cache a cacheable result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may share the cached result.
    Public,
    /// Only the requesting principal may reuse it.
    Private,
}

/// The `cacheScope` of a list result that omits it: lists are usually the
/// same for everyone.
pub(crate) fn public() -> CacheScope {
    CacheScope::Public
}

/// Reads a `ttlMs`, taking a negative (or fractional) value as the caching
/// spec asks: negative means 0.
pub(crate) fn lenient_ttl<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = f64::deserialize(d)?;
    Ok(if n.is_finite() && n > 0.0 {
        n as u64
    } else {
        0
    })
}

/// A result with no payload of its own: the acknowledgement of
/// `tasks/update` and `tasks/cancel`, and the graceful end of a
/// subscription.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// Carries `serverInfo`, and on a subscription its id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<super::meta::ResultMeta>,
}
