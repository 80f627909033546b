//! `WWW-Authenticate` as a client reads it (RFC 9110 section 11.6.1, RFC
//! 6750 section 3, RFC 9728 section 5.1): the `Bearer` or `DPoP`
//! challenge's `resource_metadata`, `scope` and `error`.

/// What a resource server's challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `Bearer` or `DPoP`, as the server wrote it.
    pub scheme: String,
    /// Where the resource's Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ...
    pub error: Option<String>,
}

impl Challenge {
    /// The first `Bearer` or `DPoP` challenge among the header's values;
    /// `None` when there is none (another scheme, or no header).
    pub fn find<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values.into_iter().find_map(|value| {
            parse(value).into_iter().find(|c| {
                c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop")
            })
        })
    }

    /// The challenged scopes, one by one.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scope.iter().flat_map(|s| s.split_ascii_whitespace())
    }
}

/// Every challenge of one header value: `scheme` then `name=value` or
/// `name="quoted"` parameters, separated by commas; a new scheme starts
/// where a token is followed by a space instead of `=`.
fn parse(value: &str) -> Vec<Challenge> {
    let mut challenges = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        let (token, after) = take_token(rest);
        if token.is_empty() {
            // Stray punctuation: skip a character and go on.
            rest = skip_one(rest);
            continue;
        }
        let after_spaces = after.trim_start();
        if let Some(value_start) = after_spaces.strip_prefix('=') {
            // A parameter of the current challenge.
            let (value, remaining) = take_value(value_start.trim_start());
            if let Some(current) = challenges.last_mut() {
                set(current, token, value);
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        } else {
            challenges.push(Challenge {
                scheme: token.to_owned(),
                ..Challenge::default()
            });
            rest = after_spaces.trim_start_matches(',').trim_start();
        }
    }
    challenges
}

fn set(challenge: &mut Challenge, name: &str, value: String) {
    let slot = match name.to_ascii_lowercase().as_str() {
        "resource_metadata" => &mut challenge.resource_metadata,
        "scope" => &mut challenge.scope,
        "error" => &mut challenge.error,
        _ => return,
    };
    slot.get_or_insert(value);
}

/// A token (RFC 9110 `tchar`s) at the start of `text`, and what follows.
fn take_token(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)))
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A parameter value, quoted (with `\` escapes) or a bare token, and what
/// follows it.
fn take_value(text: &str) -> (String, &str) {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text.find([',', ' ']).unwrap_or(text.len());
        return (text[..end].to_owned(), &text[end..]);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &quoted[i + 1..]),
            _ => value.push(c),
        }
    }
    // An unterminated quote runs to the end.
    (value, "")
}

fn skip_one(text: &str) -> &str {
    let mut chars = text.chars();
    chars.next();
    chars.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_gives_its_metadata_scope_and_error() {
        let found = Challenge::find([r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\""#]).unwrap();
        assert_eq!(found.scheme, "Bearer");
        assert_eq!(found.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(
            found.scopes().collect::<Vec<_>>(),
            ["files:read", "files:write"]
        );
        assert_eq!(
            found.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
    }

    #[test]
    fn other_schemes_are_passed_over_and_dpop_is_read() {
        let found = Challenge::find([
            r#"Basic realm="x", DPoP resource_metadata="https://r.example/m", algs="ES256""#,
        ])
        .unwrap();
        assert_eq!(found.scheme, "DPoP");
        assert_eq!(
            found.resource_metadata.as_deref(),
            Some("https://r.example/m")
        );
        assert_eq!(Challenge::find([r#"Basic realm="x""#]), None);
        assert_eq!(Challenge::find([]), None);
    }

    #[test]
    fn a_bare_scheme_and_bare_values_parse() {
        let bare = Challenge::find(["Bearer"]).unwrap();
        assert_eq!(
            bare,
            Challenge {
                scheme: "Bearer".into(),
                ..Challenge::default()
            }
        );
        let tokens = Challenge::find(["bearer error=invalid_token,scope=a"]).unwrap();
        assert_eq!(tokens.error.as_deref(), Some("invalid_token"));
        assert_eq!(tokens.scope.as_deref(), Some("a"));
    }

    #[test]
    fn malformed_headers_do_not_panic() {
        for header in [
            "=",
            "\"",
            "Bearer =",
            "Bearer scope=\"unterminated",
            ",,,",
            "Bearer ,scope",
        ] {
            let _ = Challenge::find([header]);
        }
    }
}
