//! Parsing of `#[param(...)]`, and of the `key = value` options every
//! handler macro takes.
//!
//! Options are parsed as a comma-separated list of `syn::Meta` rather than
//! with `syn::meta::parser`, so that one bad option does not hide the next:
//! every unknown, duplicate or malformed option gets its own error.
//!
//! Each value is read into its type here, once: a word from a fixed set
//! (`task_start = "explicit"`) becomes an enum through [`Keyword`], kept
//! with its span as a [`Located`] so that a later rule can still point at
//! it. A value that cannot be read is reported here and left out, so the
//! steps after parsing see only values of their type.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta, Token};

use super::Macro;
use crate::errors::Errors;

/// An option's value, with where it was written.
#[derive(Clone, Copy)]
pub(crate) struct Located<T> {
    /// The option's parsed value.
    pub value: T,
    /// The span of the literal it was read from.
    pub span: Span,
}

/// An option whose value is one word of a fixed set, written as a string
/// literal, as in `task_start = "explicit"`.
pub(crate) trait Keyword: Copy + 'static {
    /// Each word, with the value it names.
    const WORDS: &'static [(&'static str, Self)];

    /// The error for any other word, which says what the words mean.
    fn invalid(written: &str) -> String;

    /// The value `word` names, if it is one of [`Self::WORDS`].
    fn from_word(word: &str) -> Option<Self> {
        Self::WORDS
            .iter()
            .find(|(known, _)| *known == word)
            .map(|&(_, value)| value)
    }
}

/// The options of `#[param(...)]` on one parameter.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    /// The first `#[param]` attribute, to point at when it is misplaced.
    pub attr: Option<Attribute>,
    /// `description = "..."`: the argument's description.
    pub description: Option<LitStr>,
    /// The whole `description = "..."` option, to point at when it is
    /// misplaced.
    pub description_option: Option<Meta>,
    /// `arg` and `extract`, in the order written; more than one is an
    /// error.
    pub sources: Vec<SourceOption>,
    /// `complete = some_fn`: the argument's completer.
    pub complete: Option<CompleteOption>,
    /// `header = "Region"`: mirror the argument into `Mcp-Param-Region`
    /// over Streamable HTTP (tools only).
    pub header: Option<LitStr>,
    /// The whole `header = "..."` option, to point at when it is misplaced.
    pub header_option: Option<Meta>,
}

/// `arg` or `extract`: where a parameter's value comes from, said
/// explicitly instead of guessed from the name of its type.
pub(crate) struct SourceOption {
    /// Which of the two.
    pub source: Source,
    /// The option as written, for error spans.
    pub key: syn::Path,
}

/// `complete = some_fn`.
pub(crate) struct CompleteOption {
    /// The option as written, for error spans.
    pub option: Meta,
    /// The completer function.
    pub function: syn::Path,
}

/// Where a parameter's value comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `arg`: an argument of the request.
    Arg,
    /// `extract`: made from the call's context by `FromContext`.
    Extract,
}

impl ParamAttrs {
    /// Whether `source` was written.
    pub(crate) fn has(&self, source: Source) -> bool {
        self.sources.iter().any(|s| s.source == source)
    }
}

/// Separates the `#[param(...)]` attributes of one parameter from the
/// others, which stay on the function. Which options exist depends on the
/// macro `kind`.
pub(crate) fn param_attrs(
    kind: Macro,
    attrs: Vec<Attribute>,
    errors: &mut Errors,
) -> (Vec<Attribute>, ParamAttrs) {
    let (ours, kept): (Vec<_>, Vec<_>) =
        attrs.into_iter().partition(|a| a.path().is_ident("param"));
    let mut parsed = ParamAttrs::default();
    let mut seen = BTreeSet::new();
    for attr in ours {
        let metas = match &attr.meta {
            Meta::List(list) => meta_list(list.tokens.clone(), errors),
            _ => {
                errors.error(&attr, format!("expected {}", param_forms(kind)));
                None
            }
        };
        for meta in metas.into_iter().flatten() {
            let Some(key) = key_of(&meta, &mut seen, "param", errors) else {
                continue;
            };
            match key.as_str() {
                "description" => {
                    parsed.description =
                        string_value(&meta, "description = \"What to build\"", errors);
                    parsed.description_option = Some(meta);
                }
                "arg" => parsed
                    .sources
                    .extend(source_option(&meta, Source::Arg, errors)),
                "extract" => {
                    parsed
                        .sources
                        .extend(source_option(&meta, Source::Extract, errors));
                }
                "complete" if kind.completes() => {
                    parsed.complete = complete_option(meta, errors);
                }
                "header" if kind.mirrors_headers() => {
                    parsed.header = string_value(&meta, "header = \"Region\"", errors);
                    parsed.header_option = Some(meta);
                }
                _ => errors.error(
                    meta.path(),
                    format!(
                        "unknown `#[param]` option `{key}`; expected {}",
                        either(&param_options(kind))
                    ),
                ),
            }
        }
        parsed.attr.get_or_insert(attr);
    }
    (kept, parsed)
}

/// The options `#[param]` takes under `kind`, quoted.
fn param_options(kind: Macro) -> Vec<&'static str> {
    let mut options = vec!["`description`", "`arg`", "`extract`"];
    if kind.completes() {
        options.push("`complete`");
    }
    if kind.mirrors_headers() {
        options.push("`header`");
    }
    options
}

/// The ways to write `#[param]` under `kind`, for the error on a bare one.
fn param_forms(kind: Macro) -> String {
    let mut forms = vec![
        "`#[param(description = \"...\")]`",
        "`#[param(arg)]`",
        "`#[param(extract)]`",
    ];
    if kind.completes() {
        forms.push("`#[param(complete = some_fn)]`");
    }
    either(&forms)
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn either(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `arg` or `extract`, which take no value.
fn source_option(meta: &Meta, source: Source, errors: &mut Errors) -> Option<SourceOption> {
    match meta {
        Meta::Path(key) => Some(SourceOption {
            source,
            key: key.clone(),
        }),
        _ => {
            let key = meta.path();
            let name = key.to_token_stream().to_string();
            errors.error(
                meta,
                format!("`{name}` takes no value: write `#[param({name})]`"),
            );
            None
        }
    }
}

/// `complete = some_fn`, a path to a function.
fn complete_option(meta: Meta, errors: &mut Errors) -> Option<CompleteOption> {
    let function = match &meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
            other => {
                errors.error(
                    other,
                    "expected a path to a completer function, as in `complete = languages`",
                );
                None
            }
        },
        _ => {
            errors.error(
                &meta,
                "`complete` needs a completer function, as in `complete = languages`",
            );
            None
        }
    }?;
    Some(CompleteOption {
        option: meta,
        function,
    })
}

/// Parses `a = 1, b = 2` into its options.
pub(crate) fn meta_list(
    tokens: TokenStream,
    errors: &mut Errors,
) -> Option<Punctuated<Meta, Token![,]>> {
    Punctuated::parse_terminated
        .parse2(tokens)
        .map_err(|e| errors.push(e))
        .ok()
}

/// The key of one option, if it is a plain identifier seen for the first
/// time; reports duplicates. Unknown keys are the caller's to report.
pub(crate) fn key_of(
    meta: &Meta,
    seen: &mut BTreeSet<String>,
    attr: &str,
    errors: &mut Errors,
) -> Option<String> {
    let path = meta.path();
    let key = match path.get_ident() {
        Some(ident) => ident.to_string(),
        None => path.to_token_stream().to_string().replace(' ', ""),
    };
    if !seen.insert(key.clone()) {
        errors.error(path, format!("duplicate `#[{attr}]` option `{key}`"));
        return None;
    }
    Some(key)
}

/// The string literal of `key = "..."`; `example` shows the right form.
pub(crate) fn string_value(meta: &Meta, example: &str, errors: &mut Errors) -> Option<LitStr> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            other => {
                errors.error(
                    other,
                    format!("expected a string literal, as in `{example}`"),
                );
                None
            }
        },
        _ => {
            errors.error(meta, format!("expected a value, as in `{example}`"));
            None
        }
    }
}

/// The keyword of `key = "word"`, read into its type `K`; `example` shows
/// the right form.
pub(crate) fn keyword_value<K: Keyword>(
    meta: &Meta,
    example: &str,
    errors: &mut Errors,
) -> Option<Located<K>> {
    let literal = string_value(meta, example, errors)?;
    let written = literal.value();
    let Some(value) = K::from_word(&written) else {
        errors.error(&literal, K::invalid(&written));
        return None;
    };
    Some(Located {
        value,
        span: literal.span(),
    })
}

/// `layer = expr`: an expression that makes the tower layer put around
/// the handler. The compiler checks that it is one, at the expression.
pub(crate) fn layer_value(meta: &Meta, errors: &mut Errors) -> Option<Expr> {
    let example = "layer = tower::timeout::TimeoutLayer::new(Duration::from_secs(30))";
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(_), ..
            }) => {
                errors.error(
                    &nv.value,
                    format!(
                        "`layer` takes an expression that makes a tower layer, not a string, \
                         as in `{example}`"
                    ),
                );
                None
            }
            value => Some(value.clone()),
        },
        _ => {
            errors.error(
                meta,
                format!("`layer` needs a tower layer, as in `{example}`; for several, use a `tower::ServiceBuilder`"),
            );
            None
        }
    }
}

/// `scopes = ["jobs:build", …]`: the OAuth scopes a handler's callers must
/// hold. Each must be one scope, declared once; the runtime checks the
/// characters of each when the handler is registered.
pub(crate) fn scopes_value(meta: &Meta, errors: &mut Errors) -> Option<Vec<LitStr>> {
    let example = "scopes = [\"jobs:build\"]";
    let Meta::NameValue(nv) = meta else {
        errors.error(meta, format!("`scopes` needs a list, as in `{example}`"));
        return None;
    };
    let Expr::Array(list) = &nv.value else {
        errors.error(
            &nv.value,
            format!("expected a list of string literals, as in `{example}`"),
        );
        return None;
    };
    if list.elems.is_empty() {
        errors.error(
            list,
            "`scopes = []` requires no scope; leave the option out for a handler anyone may use",
        );
        return None;
    }
    let mut scopes: Vec<LitStr> = Vec::new();
    for element in &list.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(scope),
            ..
        }) = element
        else {
            errors.error(
                element,
                format!("a scope is a string literal, as in `{example}`"),
            );
            continue;
        };
        let value = scope.value();
        if value.is_empty() {
            errors.error(scope, "a scope cannot be empty");
        } else if value.chars().any(char::is_whitespace) {
            let split: Vec<String> = value.split_whitespace().map(|s| format!("{s:?}")).collect();
            errors.error(
                scope,
                format!(
                    "one scope per string: write `scopes = [{}]`",
                    split.join(", ")
                ),
            );
        } else if scopes.iter().any(|seen| seen.value() == value) {
            errors.error(scope, format!("scope {value:?} is declared twice"));
        } else {
            scopes.push(scope.clone());
        }
    }
    Some(scopes)
}

/// A flag: bare `key` is true, or `key = true | false`.
pub(crate) fn flag_value(meta: &Meta, key: &str, errors: &mut Errors) -> Option<bool> {
    match meta {
        Meta::Path(_) => Some(true),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(b.value),
            other => {
                errors.error(
                    other,
                    format!("expected `true` or `false`, as in `{key} = false`, or a bare `{key}`"),
                );
                None
            }
        },
        Meta::List(_) => {
            errors.error(meta, format!("expected a bare `{key}` or `{key} = false`"));
            None
        }
    }
}
