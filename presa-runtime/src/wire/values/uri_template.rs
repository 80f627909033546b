//! [`UriTemplate`]: the RFC 6570 URI templates of resource templates, both
//! ways: expanding variables into a URI, and matching a URI to recover them.

use std::collections::BTreeMap;
use std::fmt;

/// The longest URI [`UriTemplate::matches`] considers, in bytes.
pub const MAX_MATCHED_URI: usize = 64 * 1024;

/// A parsed RFC 6570 URI template, as resource templates use them: it
/// expands variables into a URI, and matches a URI to recover them.
///
/// # What is supported
///
/// Expressions of one variable each, of the three kinds a resource URI
/// needs in practice:
///
/// | expression | expands a value by | matches |
/// |---|---|---|
/// | `{var}` (level 1) | percent-encoding all but unreserved characters | one path segment's worth: unreserved characters and `%XX` |
/// | `{+var}` (level 2) | keeping reserved characters (`/`, `?`, …) as they are | any run of URI characters, `/` included |
/// | `{#var}` (level 2) | `#`, then as `{+var}` | `#` and what follows |
///
/// Other operators (`{/var}`, `{?a,b}`, …), several variables in one
/// expression and value modifiers (`{var:3}`, `{var*}`) are refused when
/// the template is parsed, with a message saying so, rather than matched
/// wrongly.
///
/// # Matching
///
/// Matching inverts expansion, which is ambiguous in general: in
/// `{name}.{ext}`, `a.b.c` can split two ways. The rule here is that every
/// variable matches at least one character, and each takes the longest
/// value that still lets the rest of the URI match (`a.b` and `c`). The
/// matcher walks a table of (expression, position) pairs, so its time is
/// linear in the URI for a given template, whatever the URI holds; a URI
/// longer than [`MAX_MATCHED_URI`] bytes matches no template.
///
/// Matched values are percent-decoded so that expanding them gives the
/// URI back:
///
/// 1. A `{var}` value is decoded in full, and must be UTF-8.
/// 2. A `{+var}` or `{#var}` value keeps, as written, each `%XX` that its
///    expansion would keep: the escape of an unreserved or reserved
///    character (`%41`, `%2F`), a `%25` before two hex digits, and bytes
///    that are not UTF-8. Decoding those would hand the handler a value
///    whose expansion is another URI (`%25Be` would become `%Be`, which
///    expands to itself).
/// 3. Every other `%XX` is decoded: `%20` is a space, `%C3%BC` is `ü`.
///
/// ```
/// use std::collections::BTreeMap;
/// use presa_runtime::wire::UriTemplate;
///
/// let files = UriTemplate::parse("file:///{+path}").unwrap();
/// let values = files.matches("file:///docs/my%20notes.md").unwrap();
/// assert_eq!(values["path"], "docs/my notes.md");
/// assert_eq!(files.expand(&values), "file:///docs/my%20notes.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable { name: String, kind: Expansion },
}

/// How an expression expands its variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expansion {
    /// `{var}`.
    Simple,
    /// `{+var}`.
    Reserved,
    /// `{#var}`.
    Fragment,
}

/// Why a text is not a [`UriTemplate`] this implementation supports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template {template:?}: {reason}")]
pub struct InvalidTemplate {
    /// The text that failed.
    pub template: String,
    /// What is wrong with it.
    pub reason: String,
}

impl UriTemplate {
    /// Parses `text`; see [`UriTemplate`] for what is supported.
    pub fn parse(text: &str) -> Result<Self, InvalidTemplate> {
        let invalid = |reason: String| InvalidTemplate {
            template: text.to_owned(),
            reason,
        };
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(invalid("`}` without a matching `{`".into()));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let expression = &rest[open + 1..];
            let close = expression
                .find(['{', '}'])
                .filter(|&i| expression[i..].starts_with('}'))
                .ok_or_else(|| invalid("`{` without a matching `}`".into()))?;
            let (name, kind) = parse_expression(&expression[..close]).map_err(invalid)?;
            if parts
                .iter()
                .any(|p| matches!(p, Part::Variable { name: n, .. } if *n == name))
            {
                return Err(invalid(format!("variable `{name}` appears twice")));
            }
            parts.push(Part::Variable { name, kind });
            rest = &expression[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names of its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The URI `values` make of the template. A variable without a value
    /// expands to nothing, as RFC 6570 has it.
    pub fn expand(&self, values: &BTreeMap<String, String>) -> String {
        let mut uri = String::with_capacity(self.text.len());
        for part in &self.parts {
            match part {
                Part::Literal(text) => uri.push_str(text),
                Part::Variable { name, kind } => {
                    if let Some(value) = values.get(name) {
                        kind.expand(value, &mut uri);
                    }
                }
            }
        }
        uri
    }

    /// The values of the variables if `uri` is an expansion of the
    /// template, decoded; `None` if it is not. See [`UriTemplate`] for how
    /// an ambiguous URI is split.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_MATCHED_URI {
            return None;
        }
        let pieces = self.pieces();
        let units = Units::of(uri);
        let finishes = finishes(&pieces, &units);
        if !finishes[0][0] {
            return None;
        }
        let mut values = BTreeMap::new();
        let mut at = 0;
        for (i, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Literal(text) => at = units.after_literal(at, text)?,
                Piece::Variable { name, class } => {
                    let end = (at + 1..=units.len())
                        .take_while(|&end| class.allows(units.class(end - 1)))
                        .filter(|&end| finishes[i + 1][end])
                        .last()?;
                    let text = units.text(at, end);
                    let value = match class {
                        Class::Unreserved => decode(text)?,
                        Class::Reserved => decode_reserved(text),
                    };
                    values.insert((*name).to_owned(), value);
                    at = end;
                }
            }
        }
        Some(values)
    }

    /// The template as the matcher sees it: `{#var}` is the literal `#`
    /// followed by a reserved variable.
    fn pieces(&self) -> Vec<Piece<'_>> {
        let mut pieces = Vec::with_capacity(self.parts.len() + 1);
        for part in &self.parts {
            match part {
                Part::Literal(text) => pieces.push(Piece::Literal(text)),
                Part::Variable { name, kind } => {
                    if *kind == Expansion::Fragment {
                        pieces.push(Piece::Literal("#"));
                    }
                    let class = match kind {
                        Expansion::Simple => Class::Unreserved,
                        Expansion::Reserved | Expansion::Fragment => Class::Reserved,
                    };
                    pieces.push(Piece::Variable { name, class });
                }
            }
        }
        pieces
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for UriTemplate {
    type Err = InvalidTemplate;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(text)
    }
}

/// The variable and the kind of one expression, the text between `{` and `}`.
fn parse_expression(expression: &str) -> Result<(String, Expansion), String> {
    let (kind, name) = match expression.chars().next() {
        Some('+') => (Expansion::Reserved, &expression[1..]),
        Some('#') => (Expansion::Fragment, &expression[1..]),
        Some(op @ ('.' | '/' | ';' | '?' | '&' | '=' | ',' | '!' | '@' | '|')) => {
            return Err(format!(
                "the operator `{op}` in `{{{expression}}}` is not supported; use `{{var}}`, \
                 `{{+var}}` or `{{#var}}`"
            ));
        }
        _ => (Expansion::Simple, expression),
    };
    if name.contains(',') {
        return Err(format!(
            "`{{{expression}}}` names several variables; write one expression per variable"
        ));
    }
    if name.ends_with('*') || name.contains(':') {
        return Err(format!(
            "`{{{expression}}}` has a value modifier (`*` or `:n`), which is not supported"
        ));
    }
    if !is_varname(name) {
        return Err(format!(
            "`{{{expression}}}` does not name a variable: a name is letters, digits, `_` and \
             inner dots"
        ));
    }
    Ok((name.to_owned(), kind))
}

/// RFC 6570 `varname`, without percent-encoded characters: letters,
/// digits and `_`, with single dots between them.
fn is_varname(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|run| {
            !run.is_empty() && run.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

impl Expansion {
    fn expand(self, value: &str, uri: &mut String) {
        if self == Expansion::Fragment {
            uri.push('#');
        }
        let bytes = value.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            let keep = match self {
                Expansion::Simple => is_unreserved(byte),
                Expansion::Reserved | Expansion::Fragment => {
                    if byte == b'%' && is_triplet(&bytes[i..]) {
                        uri.push_str(&value[i..i + 3]);
                        i += 3;
                        continue;
                    }
                    is_unreserved(byte) || is_reserved(byte)
                }
            };
            if keep {
                uri.push(char::from(byte));
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
            i += 1;
        }
    }
}

/// One step of the matcher.
enum Piece<'a> {
    Literal(&'a str),
    Variable { name: &'a str, class: Class },
}

/// Which URI characters a variable's value may be made of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Unreserved characters and `%XX`.
    Unreserved,
    /// Those, and the reserved characters.
    Reserved,
}

/// What a unit of a URI is: a character, or a `%XX` triplet.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    Unreserved,
    Reserved,
    Escape,
    /// Anything a URI should not hold as it is.
    Other,
}

impl Class {
    fn allows(self, unit: UnitKind) -> bool {
        match unit {
            UnitKind::Unreserved | UnitKind::Escape => true,
            UnitKind::Reserved => self == Class::Reserved,
            UnitKind::Other => false,
        }
    }
}

/// A URI cut into units, so that a variable never ends inside a `%XX`.
struct Units<'a> {
    uri: &'a str,
    /// The byte offset where each unit starts, then the URI's length.
    bounds: Vec<usize>,
    kinds: Vec<UnitKind>,
}

impl<'a> Units<'a> {
    fn of(uri: &'a str) -> Self {
        let bytes = uri.as_bytes();
        let mut bounds = Vec::with_capacity(uri.len() + 1);
        let mut kinds = Vec::with_capacity(uri.len());
        let mut i = 0;
        while i < bytes.len() {
            bounds.push(i);
            let (kind, width) = match bytes[i] {
                b'%' if is_triplet(&bytes[i..]) => (UnitKind::Escape, 3),
                b if is_unreserved(b) => (UnitKind::Unreserved, 1),
                b if is_reserved(b) => (UnitKind::Reserved, 1),
                _ => (
                    UnitKind::Other,
                    uri[i..].chars().next().map_or(1, char::len_utf8),
                ),
            };
            kinds.push(kind);
            i += width;
        }
        bounds.push(uri.len());
        Units { uri, bounds, kinds }
    }

    /// How many units there are.
    fn len(&self) -> usize {
        self.kinds.len()
    }

    fn class(&self, unit: usize) -> UnitKind {
        self.kinds[unit]
    }

    /// The text of units `from..to`.
    fn text(&self, from: usize, to: usize) -> &'a str {
        &self.uri[self.bounds[from]..self.bounds[to]]
    }

    /// The boundary after `literal` when the URI holds it at boundary
    /// `at` and it ends on a boundary.
    fn after_literal(&self, at: usize, literal: &str) -> Option<usize> {
        let start = self.bounds[at];
        if !self.uri[start..].starts_with(literal) {
            return None;
        }
        self.bounds.binary_search(&(start + literal.len())).ok()
    }
}

/// `finishes[i][k]`: whether pieces `i..` can match the URI from unit
/// boundary `k` to its end. One pass per piece, from the last, each
/// linear in the URI.
fn finishes(pieces: &[Piece<'_>], units: &Units<'_>) -> Vec<Vec<bool>> {
    let width = units.len() + 1;
    let mut table = vec![vec![false; width]; pieces.len() + 1];
    table[pieces.len()][units.len()] = true;
    for (i, piece) in pieces.iter().enumerate().rev() {
        let (done, todo) = table.split_at_mut(i + 1);
        let (row, next) = (&mut done[i], &todo[0]);
        match piece {
            Piece::Literal(text) => {
                for (k, cell) in row.iter_mut().enumerate() {
                    *cell = units.after_literal(k, text).is_some_and(|end| next[end]);
                }
            }
            // A variable can finish from `k` when unit `k` may be part of
            // it and either the rest finishes right after it, or the
            // variable goes on.
            Piece::Variable { class, .. } => {
                for k in (0..units.len()).rev() {
                    row[k] = class.allows(units.class(k)) && (next[k + 1] || row[k + 1]);
                }
            }
        }
    }
    table
}

/// `text` with its `%XX` triplets decoded; `None` when that is not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && is_triplet(&bytes[i..]) {
            out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `text`, the match of a `{+var}`, decoded as far as its expansion
/// would encode it again: rules 2 and 3 of [`UriTemplate`]'s matching.
fn decode_reserved(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if !is_triplet(&bytes[i..]) {
            // Outside escapes, a reserved match holds ASCII only.
            out.push(char::from(bytes[i]));
            i += 1;
            continue;
        }
        let byte = hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]);
        if byte.is_ascii() {
            let kept = is_unreserved(byte)
                || is_reserved(byte)
                || (byte == b'%' && starts_with_two_hex_digits(&bytes[i + 3..]));
            if kept {
                out.push_str(&text[i..i + 3]);
            } else {
                out.push(char::from(byte));
            }
            i += 3;
            continue;
        }
        // A run of escaped non-ASCII bytes: its UTF-8 characters decoded,
        // any other byte kept as its escape.
        let start = i;
        let mut run = Vec::new();
        while is_triplet(&bytes[i..]) {
            let byte = hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]);
            if byte.is_ascii() {
                break;
            }
            run.push(byte);
            i += 3;
        }
        let mut escape = start;
        for chunk in run.utf8_chunks() {
            out.push_str(chunk.valid());
            escape += 3 * chunk.valid().len();
            let invalid = 3 * chunk.invalid().len();
            out.push_str(&text[escape..escape + invalid]);
            escape += invalid;
        }
    }
    out
}

fn starts_with_two_hex_digits(bytes: &[u8]) -> bool {
    matches!(bytes, [a, b, ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

fn hex(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit - b'A' + 10,
    }
}

/// Whether `bytes` starts with `%` and two hex digits.
fn is_triplet(bytes: &[u8]) -> bool {
    matches!(bytes, [b'%', a, b, ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

/// RFC 3986 `unreserved`.
fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `reserved`: `gen-delims` and `sub-delims`.
fn is_reserved(byte: u8) -> bool {
    matches!(
        byte,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(text: &str) -> UriTemplate {
        UriTemplate::parse(text).unwrap()
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn expansion_follows_rfc_6570_levels_1_and_2() {
        let v = values(&[
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
        ]);
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
            ("{undefined}x", "x"),
        ];
        for (text, expected) in cases {
            assert_eq!(template(text).expand(&v), expected, "{text}");
        }
        let escaped = values(&[("v", "50%25 ü")]);
        assert_eq!(template("{+v}").expand(&escaped), "50%25%20%C3%BC");
        assert_eq!(template("{v}").expand(&escaped), "50%2525%20%C3%BC");
    }

    #[test]
    fn matching_recovers_decoded_values() {
        let users = template("users://{id}/profile");
        assert_eq!(
            users.matches("users://42/profile"),
            Some(values(&[("id", "42")]))
        );
        assert_eq!(
            users.matches("users://J%C3%BCrgen/profile"),
            Some(values(&[("id", "Jürgen")]))
        );
        assert_eq!(users.matches("users://a/b/profile"), None);
        assert_eq!(users.matches("users:///profile"), None);
        assert_eq!(users.matches("users://42/profile/x"), None);
        assert_eq!(users.matches("users://%FF/profile"), None);

        let files = template("file:///{+path}");
        assert_eq!(
            files.matches("file:///src/main.rs"),
            Some(values(&[("path", "src/main.rs")]))
        );
        let repo = template("git://{owner}/{repo}{#ref}");
        assert_eq!(
            repo.matches("git://me/presa#main"),
            Some(values(&[
                ("owner", "me"),
                ("repo", "presa"),
                ("ref", "main")
            ]))
        );
        assert_eq!(repo.matches("git://me/presa"), None);
    }

    /// Found by the `parsing` fuzz target: `{+a}` matched `%25Be` as
    /// `%Be`, whose expansion is `%Be`, another URI.
    #[test]
    fn a_reserved_match_expands_back_to_its_uri() {
        let any = template("x:{+a}");
        let cases = [
            ("x:%25Be", "%25Be"),
            ("x:%2541", "%2541"),
            ("x:%25zz", "%zz"),
            ("x:%25", "%"),
            ("x:%25%41", "%%41"),
            ("x:%41%2F", "%41%2F"),
            ("x:my%20file", "my file"),
            ("x:J%C3%BCrgen", "Jürgen"),
            ("x:%FF%C3%BC%BE", "%FFü%BE"),
            ("x:%C3", "%C3"),
        ];
        for (uri, value) in cases {
            let values = any.matches(uri).unwrap_or_else(|| panic!("{uri} matches"));
            assert_eq!(values["a"], value, "the value matched from {uri}");
            assert_eq!(any.expand(&values), uri, "the expansion of {value:?}");
        }
        let fragment = template("x:{#a}");
        let values = fragment.matches("x:#%25Be%20").expect("a fragment matches");
        assert_eq!(values["a"], "%25Be ");
        assert_eq!(fragment.expand(&values), "x:#%25Be%20");
    }

    #[test]
    fn an_ambiguous_uri_gives_the_earlier_variable_the_longer_value() {
        let name = template("file:///{name}.{ext}");
        assert_eq!(
            name.matches("file:///a.b.c"),
            Some(values(&[("name", "a.b"), ("ext", "c")]))
        );
        let split = template("x:{a}{b}");
        assert_eq!(
            split.matches("x:abc"),
            Some(values(&[("a", "ab"), ("b", "c")]))
        );
    }

    #[test]
    fn a_variable_never_ends_inside_an_escape() {
        let t = template("x:{a}%41{b}");
        assert_eq!(
            t.matches("x:%41%41%41"),
            Some(values(&[("a", "A"), ("b", "A")]))
        );
        assert_eq!(t.matches("x:%4%41b"), None);
    }

    #[test]
    fn matching_is_linear_on_hostile_input() {
        let t = template("x:{a}{b}{c}{d}{e}z");
        let long = format!("x:{}", "a".repeat(MAX_MATCHED_URI - 2));
        assert_eq!(t.matches(&long), None);
        assert_eq!(t.matches(&format!("{long}a")), None);
    }

    #[test]
    fn unsupported_forms_are_refused_with_a_reason() {
        for (text, needle) in [
            ("x:{?q}", "operator `?`"),
            ("x:{/p}", "operator `/`"),
            ("x:{a,b}", "several variables"),
            ("x:{a*}", "modifier"),
            ("x:{a:3}", "modifier"),
            ("x:{}", "does not name"),
            ("x:{a b}", "does not name"),
            ("x:{a", "without a matching `}`"),
            ("x:a}", "without a matching `{`"),
            ("x:{a{b}}", "without a matching `}`"),
            ("x:{a}/{a}", "twice"),
        ] {
            let error = UriTemplate::parse(text).unwrap_err();
            assert!(error.reason.contains(needle), "{text}: {error}");
        }
        let names: Vec<_> = template("x:{a}/{+b.c}{#d_1}")
            .variables()
            .map(str::to_owned)
            .collect();
        assert_eq!(names, ["a", "b.c", "d_1"]);
    }
}
