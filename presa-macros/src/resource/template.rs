//! What `#[resource]` reads of its URI at compile time: whether it is a
//! template, and the names of its variables. The options' parsing reads it
//! once, and the later steps use what it read.
//!
//! The runtime parses the template again when the resource is registered
//! (`presa::wire::UriTemplate`); these are the same rules, checked here so
//! that a template presa would refuse fails the build at the literal, and
//! so that each variable can be matched with a parameter.

/// A URI as written in `uri = "..."`.
pub(crate) enum Uri {
    /// No `{…}`: one resource.
    Fixed,
    /// A template, with its variables in order.
    Template(Vec<String>),
}

/// Reads `text`; the error says what is wrong with it.
pub(crate) fn parse(text: &str) -> Result<Uri, String> {
    if !text.contains(['{', '}']) {
        return match has_scheme(text) {
            true => Ok(Uri::Fixed),
            false => Err(format!(
                "{text:?} is not an absolute URI: a resource URI starts with a scheme, as in \
                 `file:///notes.txt` or `notes://{{id}}`"
            )),
        };
    }
    let mut variables = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("`}` without a matching `{`".into());
        }
        let expression = &rest[open + 1..];
        let close = expression
            .find(['{', '}'])
            .filter(|&i| expression[i..].starts_with('}'))
            .ok_or("`{` without a matching `}`")?;
        let name = variable(&expression[..close])?;
        if variables.contains(&name) {
            return Err(format!("variable `{name}` appears twice"));
        }
        variables.push(name);
        rest = &expression[close + 1..];
    }
    Ok(Uri::Template(variables))
}

/// The variable of one expression, the text between `{` and `}`.
fn variable(expression: &str) -> Result<String, String> {
    let name = expression.strip_prefix(['+', '#']).unwrap_or(expression);
    if let Some(op) = name.chars().next().filter(|c| ".;/?&=,!@|".contains(*c)) {
        return Err(format!(
            "the operator `{op}` in `{{{expression}}}` is not supported; use `{{var}}`, \
             `{{+var}}` or `{{#var}}`"
        ));
    }
    if name.contains(',') {
        return Err(format!(
            "`{{{expression}}}` names several variables; write one expression per variable"
        ));
    }
    let valid = !name.is_empty()
        && name.split('.').all(|run| {
            !run.is_empty() && run.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if !valid {
        return Err(format!(
            "`{{{expression}}}` does not name a variable: a name is letters, digits, `_` and \
             inner dots"
        ));
    }
    Ok(name.to_owned())
}

/// Whether `text` starts with an RFC 3986 scheme and `:`.
fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(text: &str) -> Vec<String> {
        match parse(text).unwrap() {
            Uri::Template(variables) => variables,
            Uri::Fixed => Vec::new(),
        }
    }

    #[test]
    fn templates_name_their_variables() {
        assert_eq!(
            variables("git://{owner}/{+repo}{#ref}"),
            ["owner", "repo", "ref"]
        );
        assert!(matches!(parse("file:///a.txt"), Ok(Uri::Fixed)));
        for bad in [
            "notes", "1x:a", "x:{?q}", "x:{a,b}", "x:{a", "x:}", "x:{a}{a}", "x:{a-b}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
