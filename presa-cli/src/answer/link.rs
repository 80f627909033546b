//! A URL the server asks the person to open (a URL elicitation), checked
//! and shown as it really is.
//!
//! The start of a URL can mislead: `https://good.example@evil.example/`
//! goes to `evil.example`, and `аpple.com` with a Cyrillic `а` is not
//! `apple.com`. The rules, in order:
//!
//! 1. only an `http` or `https` URL is offered. Any other (`javascript:`,
//!    `file:`, `data:`, an application's own scheme) is declined without
//!    asking, with a note that names it;
//! 2. the URL is shown in the form a browser sends (WHATWG URL
//!    serialization): a host in another script as punycode (`xn--`),
//!    other characters outside ASCII percent-encoded. So a look-alike
//!    name cannot pass for a familiar one;
//! 3. the host is shown on a line of its own, as the spec asks;
//! 4. a host in punycode, and a URL with a user name before its host,
//!    each add a warning;
//! 5. all of it is server text, escaped (`shown::line`).

use std::fmt;

use url::Url;

use crate::output::shown;

/// An `http` or `https` URL to offer the person (rule 1).
pub struct Link {
    url: Url,
}

/// Why a URL is not offered (rule 1).
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Link {
    /// `text` as a link to offer, or why it is refused.
    pub fn parse(text: &str) -> Result<Link, Refused> {
        let url = Url::parse(text).map_err(|e| {
            Refused(format!(
                "the server asked to open `{}`, which is not a URL ({e})",
                shown::line(text)
            ))
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(Refused(format!(
                "the server asked to open `{}`; presa offers only http and https URLs",
                shown::line(url.as_str())
            )));
        }
        Ok(Link { url })
    }

    /// The host the URL goes to, in ASCII (rule 2).
    pub fn host(&self) -> String {
        shown::line(self.url.host_str().unwrap_or_default()).to_string()
    }

    /// The URL, in the form a browser sends it (rule 2).
    pub fn url(&self) -> String {
        shown::line(self.url.as_str()).to_string()
    }

    /// What to beware of in this URL, one line each (rule 4).
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let host = self.url.host_str().unwrap_or_default();
        if host.split('.').any(|label| label.starts_with("xn--")) {
            warnings.push(
                "the host is in punycode (xn--): letters of another script may imitate \
                 a name you know"
                    .to_owned(),
            );
        }
        if !self.url.username().is_empty() || self.url.password().is_some() {
            warnings.push(format!(
                "the text before @ is a user name, not the host: this goes to {}",
                self.host()
            ));
        }
        warnings
    }

    /// The link as a question shows it: the URL, its host, and the
    /// warnings, each on a line of its own, indented.
    pub fn shown(&self) -> String {
        let mut text = format!("  open: {}\n  host: {}", self.url(), self.host());
        for warning in self.warnings() {
            text.push_str(&format!("\n  beware: {warning}"));
        }
        text
    }

    /// The link in one line, for a note: `URL, host HOST`.
    pub fn summary(&self) -> String {
        format!("{}, host {}", self.url(), self.host())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_are_offered() {
        for refused in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "ssh://host",
            "urn:example:flow",
            "not a url",
        ] {
            assert!(Link::parse(refused).is_err(), "{refused}");
        }
        let refused = Link::parse("javascript:alert(1)")
            .err()
            .unwrap()
            .to_string();
        assert!(
            refused.contains("javascript:alert(1)") && refused.contains("only http and https"),
            "{refused}"
        );
        assert!(Link::parse("http://127.0.0.1:8080/").is_ok());
    }

    #[test]
    fn the_host_is_the_real_one() {
        let link = Link::parse("https://good.example@evil.example/login").unwrap();
        assert_eq!(link.host(), "evil.example");
        let warnings = link.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("goes to evil.example"), "{warnings:?}");
        assert!(link.shown().contains("\n  host: evil.example"));
    }

    #[test]
    fn a_host_in_another_script_is_shown_in_punycode_and_flagged() {
        let link = Link::parse("https://\u{430}pple.com/login").unwrap();
        assert_eq!(link.host(), "xn--pple-43d.com");
        assert_eq!(link.url(), "https://xn--pple-43d.com/login");
        assert!(link.warnings()[0].contains("punycode"));
        let written = Link::parse("https://xn--pple-43d.com/").unwrap();
        assert!(written.warnings()[0].contains("punycode"));
    }

    #[test]
    fn an_ordinary_url_has_no_warnings() {
        let link = Link::parse("https://mcp.example.com/connect?state=a%20b").unwrap();
        assert!(link.warnings().is_empty());
        assert_eq!(link.url(), "https://mcp.example.com/connect?state=a%20b");
        assert_eq!(
            link.summary(),
            "https://mcp.example.com/connect?state=a%20b, host mcp.example.com"
        );
    }

    #[test]
    fn nothing_in_the_url_reaches_the_terminal_raw() {
        let link = Link::parse("https://example.com/\u{1b}]52;c;x\u{7}/\u{202e}").unwrap();
        let shown = link.shown();
        assert!(!shown.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{shown}");
    }
}
