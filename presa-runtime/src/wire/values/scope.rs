//! OAuth scope tokens (RFC 6749 section 3.3), as handlers declare them.

/// Whether `scope` is one scope token: one or more printable ASCII
/// characters other than space, `"` and `\`; why not otherwise.
pub(crate) fn scope_token(scope: &str) -> Result<(), &'static str> {
    if scope.is_empty() {
        return Err("it is empty");
    }
    if scope.chars().any(char::is_whitespace) {
        return Err("it holds a space; declare each scope as a string of its own");
    }
    if scope
        .bytes()
        .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
    {
        Ok(())
    } else {
        Err("it holds a character outside printable ASCII, or `\"` or `\\`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens_are_printable_ascii_without_space_quote_or_backslash() {
        for good in ["jobs:build", "https://api.example/read", "a", "x_y-z.*!"] {
            assert_eq!(scope_token(good), Ok(()), "{good}");
        }
        for bad in ["", "a b", "a\"b", "a\\b", "é", "a\tb"] {
            assert!(scope_token(bad).is_err(), "{bad:?}");
        }
    }
}
