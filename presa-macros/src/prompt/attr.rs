//! Parsing of the `#[prompt(...)]` options.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::LitStr;

use crate::errors::Errors;
use crate::handler::attr::{key_of, layer_value, meta_list, scopes_value, string_value};

/// The options of `#[prompt(...)]`.
#[derive(Default)]
pub(crate) struct PromptAttrs {
    /// `name = "..."`: the prompt's name, instead of the function's.
    pub name: Option<LitStr>,
    /// `title = "..."`: a display name.
    pub title: Option<LitStr>,
    /// `description = "..."`: instead of the doc comment.
    pub description: Option<LitStr>,
    /// `scopes = [...]`: the OAuth scopes callers must hold.
    pub scopes: Option<Vec<LitStr>>,
    /// `layer = expr`: a tower layer around the handler's runs.
    pub layer: Option<syn::Expr>,
}

/// Parses the tokens inside `#[prompt(...)]`.
pub(crate) fn prompt_attrs(tokens: TokenStream, errors: &mut Errors) -> PromptAttrs {
    let mut attrs = PromptAttrs::default();
    let Some(metas) = meta_list(tokens, errors) else {
        return attrs;
    };
    let mut seen = BTreeSet::new();
    for meta in metas {
        let Some(key) = key_of(&meta, &mut seen, "prompt", errors) else {
            continue;
        };
        match key.as_str() {
            "name" => attrs.name = string_value(&meta, "name = \"code_review\"", errors),
            "title" => {
                attrs.title = string_value(&meta, "title = \"Request a code review\"", errors);
            }
            "description" => {
                attrs.description =
                    string_value(&meta, "description = \"Asks for a code review\"", errors);
            }
            "scopes" => attrs.scopes = scopes_value(&meta, errors),
            "layer" => attrs.layer = layer_value(&meta, errors),
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[prompt]` option `{key}`; expected `name`, `title`, \
                     `description`, `scopes` or `layer`"
                ),
            ),
        }
    }
    attrs
}
