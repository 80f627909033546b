//! The `#[resource(...)]` options, and their parsing.
//!
//! The URI is read here, once (by [`template`](super::template)), into a
//! [`ResourceUri`]: the rules that relate it to the function's parameters
//! and the expansion both use what was read. `uri` is the one option a
//! resource cannot do without, so its absence is reported here too.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Meta};

use super::template::{self, Uri};
use crate::errors::Errors;
use crate::handler::attr::{
    Keyword, Located, key_of, keyword_value, layer_value, meta_list, scopes_value, string_value,
};

/// The options of `#[resource(...)]`.
#[derive(Default)]
pub(crate) struct ResourceAttrs {
    /// `uri = "..."`: the URI, or the URI template when it has `{…}`;
    /// `None` when it is missing or invalid, which has been reported.
    pub uri: Option<ResourceUri>,
    /// `name = "..."`: the resource's name, instead of the function's.
    pub name: Option<LitStr>,
    /// `title = "..."`: a display name.
    pub title: Option<LitStr>,
    /// `description = "..."`: instead of the doc comment.
    pub description: Option<LitStr>,
    /// `mime_type = "..."`: the MIME type of the contents.
    pub mime_type: Option<LitStr>,
    /// `ttl_ms = 60000`: how long a read may be cached.
    pub ttl_ms: Option<u64>,
    /// `cache_scope = "public" | "private"`: who may share a cached read.
    pub cache_scope: Option<Located<CacheScope>>,
    /// `scopes = [...]`: the OAuth scopes callers must hold.
    pub scopes: Option<Vec<LitStr>>,
    /// `layer = expr`: a tower layer around the handler's runs.
    pub layer: Option<syn::Expr>,
}

/// The value of `uri = "..."`, read.
pub(crate) struct ResourceUri {
    /// The literal, for errors.
    pub literal: LitStr,
    /// The URI or template as written, without quotes.
    pub text: String,
    /// A fixed URI, or a template with its variables.
    pub shape: Uri,
}

/// `cache_scope = ...`: who may share a cached read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheScope {
    /// `"public"`: anyone.
    Public,
    /// `"private"`: only the same caller.
    Private,
}

impl Keyword for CacheScope {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("public", CacheScope::Public),
        ("private", CacheScope::Private),
    ];

    fn invalid(written: &str) -> String {
        format!(
            "invalid cache scope {written:?}; expected \"public\" (anyone may share a cached \
             read) or \"private\" (only the same caller)"
        )
    }
}

/// Parses the tokens inside `#[resource(...)]`.
pub(crate) fn resource_attrs(tokens: TokenStream, errors: &mut Errors) -> ResourceAttrs {
    let mut attrs = ResourceAttrs::default();
    let Some(metas) = meta_list(tokens, errors) else {
        // The options could not be read at all, which says enough.
        return attrs;
    };
    let mut seen = BTreeSet::new();
    for meta in metas {
        let Some(key) = key_of(&meta, &mut seen, "resource", errors) else {
            continue;
        };
        match key.as_str() {
            "uri" => attrs.uri = uri_value(&meta, errors),
            "name" => attrs.name = string_value(&meta, "name = \"profile\"", errors),
            "title" => attrs.title = string_value(&meta, "title = \"User profile\"", errors),
            "description" => {
                attrs.description =
                    string_value(&meta, "description = \"A user's profile\"", errors);
            }
            "mime_type" => {
                attrs.mime_type = string_value(&meta, "mime_type = \"application/json\"", errors);
            }
            "ttl_ms" => attrs.ttl_ms = ttl_value(&meta, errors),
            "scopes" => attrs.scopes = scopes_value(&meta, errors),
            "layer" => attrs.layer = layer_value(&meta, errors),
            "cache_scope" => {
                attrs.cache_scope = keyword_value(&meta, "cache_scope = \"public\"", errors);
            }
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[resource]` option `{key}`; expected `uri`, `name`, `title`, \
                     `description`, `mime_type`, `ttl_ms`, `cache_scope`, `scopes` or `layer`"
                ),
            ),
        }
    }
    if !seen.contains("uri") {
        errors.error_at(
            Span::call_site(),
            "`#[resource]` needs the resource's URI, as in `#[resource(uri = \
             \"file:///notes.txt\")]`, or a URI template, as in `#[resource(uri = \
             \"notes://{id}\")]`",
        );
    }
    attrs
}

/// `uri = "..."`: a URI, or a URI template, read.
fn uri_value(meta: &Meta, errors: &mut Errors) -> Option<ResourceUri> {
    let literal = string_value(meta, "uri = \"users://{id}/profile\"", errors)?;
    let text = literal.value();
    match template::parse(&text) {
        Ok(shape) => Some(ResourceUri {
            literal,
            text,
            shape,
        }),
        Err(reason) => {
            errors.error(&literal, format!("invalid resource URI: {reason}"));
            None
        }
    }
}

/// `ttl_ms = 60000`: milliseconds, as an integer literal.
fn ttl_value(meta: &Meta, errors: &mut Errors) -> Option<u64> {
    let expected = "expected milliseconds as an integer, as in `ttl_ms = 60000`";
    let Meta::NameValue(nv) = meta else {
        errors.error(meta, expected);
        return None;
    };
    match &nv.value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => parse_ttl(int, errors),
        other => {
            errors.error(other, expected);
            None
        }
    }
}

/// The milliseconds of `ttl_ms = 60000`.
fn parse_ttl(int: &LitInt, errors: &mut Errors) -> Option<u64> {
    match int.base10_parse::<u64>() {
        Ok(ttl) => Some(ttl),
        Err(e) => {
            errors.error(int, format!("invalid `ttl_ms`: {e}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn parse(tokens: TokenStream) -> (ResourceAttrs, Vec<String>) {
        let mut errors = Errors::default();
        let attrs = resource_attrs(tokens, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (attrs, messages)
    }

    #[test]
    fn the_uri_is_read_once_with_its_variables() {
        let (attrs, messages) = parse(quote!(uri = "users://{id}/profile", cache_scope = "public"));
        assert!(messages.is_empty(), "{messages:?}");
        let uri = attrs.uri.expect("a valid URI");
        assert_eq!(uri.text, "users://{id}/profile");
        assert!(matches!(&uri.shape, Uri::Template(v) if v == &["id"]));
        assert!(
            attrs
                .cache_scope
                .is_some_and(|s| s.value == CacheScope::Public)
        );
    }

    #[test]
    fn a_missing_or_invalid_uri_is_reported_once() {
        let (attrs, messages) = parse(quote!(mime_type = "text/plain"));
        assert!(attrs.uri.is_none());
        assert!(messages.len() == 1 && messages[0].contains("needs the resource's URI"));

        let (attrs, messages) = parse(quote!(uri = "README.md", cache_scope = "shared"));
        assert!(attrs.uri.is_none() && attrs.cache_scope.is_none());
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].starts_with("invalid resource URI"));
        assert!(messages[1].starts_with("invalid cache scope \"shared\""));
    }
}
