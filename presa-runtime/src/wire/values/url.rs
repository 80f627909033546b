//! [`AbsoluteUrl`]: a URL that is valid by construction.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An absolute URI (RFC 3986, with a scheme), as the `uri` format of the
/// schema requires: where a URL elicitation sends the user, for one.
///
/// It can only be built by [`AbsoluteUrl::parse`], and deserializing
/// checks it the same way, so holding one means the URL is valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AbsoluteUrl(String);

/// Why a string is not an [`AbsoluteUrl`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a valid absolute URL: {reason}")]
pub struct InvalidUrl {
    /// The text that failed.
    pub input: String,
    /// What is wrong with it.
    pub reason: String,
}

impl AbsoluteUrl {
    /// Checks `text` as an absolute URI.
    pub fn parse(text: &str) -> Result<Self, InvalidUrl> {
        match fluent_uri::Uri::parse(text) {
            Ok(_) => Ok(AbsoluteUrl(text.to_owned())),
            Err(e) => Err(InvalidUrl {
                input: text.to_owned(),
                reason: e.to_string(),
            }),
        }
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AbsoluteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for AbsoluteUrl {
    type Err = InvalidUrl;

    fn from_str(text: &str) -> Result<Self, InvalidUrl> {
        AbsoluteUrl::parse(text)
    }
}

impl Serialize for AbsoluteUrl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for AbsoluteUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        AbsoluteUrl::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_uris_pass() {
        for good in [
            "https://example.com/login?next=%2Fhome",
            "http://127.0.0.1:8080/",
            "urn:example:flow",
        ] {
            assert_eq!(AbsoluteUrl::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "example.com/login",
            "/relative",
            "https://exa mple.com",
            "https://[::1",
        ] {
            let error = AbsoluteUrl::parse(bad).unwrap_err();
            assert_eq!(error.input, bad);
        }
        let parsed: Result<AbsoluteUrl, _> = serde_json::from_str("\"no scheme\"");
        assert!(
            parsed
                .unwrap_err()
                .to_string()
                .contains("not a valid absolute URL")
        );
    }
}
