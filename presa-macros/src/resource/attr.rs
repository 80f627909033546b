//! Parsing of the `#[resource(...)]` options.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Meta};

use crate::errors::Errors;
use crate::handler::attr::{key_of, meta_list, scopes_value, string_value};

/// The options of `#[resource(...)]`.
#[derive(Default)]
pub(crate) struct ResourceAttrs {
    /// `uri = "..."`: the URI, or the URI template when it has `{…}`.
    pub uri: Option<LitStr>,
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
    pub cache_scope: Option<LitStr>,
    /// `scopes = [...]`: the OAuth scopes callers must hold.
    pub scopes: Option<Vec<LitStr>>,
}

/// Parses the tokens inside `#[resource(...)]`.
pub(crate) fn resource_attrs(tokens: TokenStream, errors: &mut Errors) -> ResourceAttrs {
    let mut attrs = ResourceAttrs::default();
    let Some(metas) = meta_list(tokens, errors) else {
        return attrs;
    };
    let mut seen = BTreeSet::new();
    for meta in metas {
        let Some(key) = key_of(&meta, &mut seen, "resource", errors) else {
            continue;
        };
        match key.as_str() {
            "uri" => attrs.uri = string_value(&meta, "uri = \"users://{id}/profile\"", errors),
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
            "cache_scope" => {
                attrs.cache_scope = string_value(&meta, "cache_scope = \"public\"", errors);
            }
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[resource]` option `{key}`; expected `uri`, `name`, `title`, \
                     `description`, `mime_type`, `ttl_ms`, `cache_scope` or `scopes`"
                ),
            ),
        }
    }
    attrs
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

fn parse_ttl(int: &LitInt, errors: &mut Errors) -> Option<u64> {
    match int.base10_parse::<u64>() {
        Ok(ttl) => Some(ttl),
        Err(e) => {
            errors.error(int, format!("invalid `ttl_ms`: {e}"));
            None
        }
    }
}
