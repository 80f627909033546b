//! Parsing of the `#[tool(...)]` and `#[param(...)]` options.
//!
//! Options are parsed as a comma-separated list of `syn::Meta` rather than
//! with `syn::meta::parser`, so that one bad option does not hide the next:
//! every unknown, duplicate or malformed option gets its own error.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Meta, Token};

use crate::errors::Errors;

/// The options of `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    /// `name = "..."`: the tool's name, instead of the function's.
    pub name: Option<LitStr>,
    /// `description = "..."`: instead of the doc comment.
    pub description: Option<LitStr>,
    /// `title = "..."`: a display name.
    pub title: Option<LitStr>,
    /// `task = ...`: how calls run with respect to tasks.
    pub task: Option<Task>,
    /// `task_start = "explicit" | "immediate"`: where a task starts.
    pub task_start: Option<LitStr>,
    /// Behaviour hints, each `flag` (true) or `flag = bool`.
    pub hints: Hints,
}

/// The tool's behaviour hints; `None` where the option is absent.
#[derive(Default)]
pub(crate) struct Hints {
    /// `read_only`: the tool does not modify its environment.
    pub read_only: Option<bool>,
    /// `destructive`: the tool may destroy data.
    pub destructive: Option<bool>,
    /// `idempotent`: repeating a call has no further effect.
    pub idempotent: Option<bool>,
    /// `open_world`: the tool talks to the outside world.
    pub open_world: Option<bool>,
}

/// The `task = ...` option.
pub(crate) enum Task {
    /// `task = "sync" | "optional" | "required"`: the same for every call.
    Static(Policy),
    /// `task = some::path`: a function deciding per call.
    PerCall(syn::Path),
}

/// A task policy known at compile time; mirrors the runtime's `TaskPolicy`.
#[derive(Clone, Copy)]
pub(crate) enum Policy {
    /// `"sync"`.
    Sync,
    /// `"optional"`.
    Optional,
    /// `"required"`.
    Required,
}

/// The options of `#[param(...)]` on one parameter.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    /// The first `#[param]` attribute, to point at when it is misplaced.
    pub attr: Option<Attribute>,
    /// `description = "..."`: the property's description in the schema.
    pub description: Option<LitStr>,
    /// The whole `description = "..."` option, to point at when it is
    /// misplaced.
    pub description_option: Option<Meta>,
    /// `arg` and `extract`, in the order written; more than one is an
    /// error.
    pub sources: Vec<SourceOption>,
    /// `header = "Region"`: mirror the argument into `Mcp-Param-Region`
    /// over Streamable HTTP.
    pub header: Option<LitStr>,
}

/// `arg` or `extract`: where a parameter's value comes from, said
/// explicitly instead of guessed from the name of its type.
pub(crate) struct SourceOption {
    /// Which of the two.
    pub source: Source,
    /// The option as written, for error spans.
    pub key: syn::Path,
}

/// Where a parameter's value comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `arg`: a field of the JSON arguments.
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

/// Parses the tokens inside `#[tool(...)]`. `args_ident` is the generated
/// arguments struct, named in the error for a bad policy.
pub(crate) fn tool_attrs(
    tokens: TokenStream,
    args_ident: &Ident,
    errors: &mut Errors,
) -> ToolAttrs {
    let mut attrs = ToolAttrs::default();
    let Some(metas) = meta_list(tokens, errors) else {
        return attrs;
    };
    let mut seen = BTreeSet::new();
    for meta in metas {
        let Some(key) = key_of(&meta, &mut seen, "tool", errors) else {
            continue;
        };
        match key.as_str() {
            "name" => attrs.name = string_value(&meta, "name = \"build\"", errors),
            "description" => {
                attrs.description =
                    string_value(&meta, "description = \"Builds a target\"", errors);
            }
            "title" => attrs.title = string_value(&meta, "title = \"Build a target\"", errors),
            "task" => attrs.task = task_value(&meta, args_ident, errors),
            "task_start" => {
                attrs.task_start = string_value(&meta, "task_start = \"explicit\"", errors);
            }
            "read_only" => attrs.hints.read_only = flag_value(&meta, &key, errors),
            "destructive" => attrs.hints.destructive = flag_value(&meta, &key, errors),
            "idempotent" => attrs.hints.idempotent = flag_value(&meta, &key, errors),
            "open_world" => attrs.hints.open_world = flag_value(&meta, &key, errors),
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[tool]` option `{key}`; expected `name`, `title`, `description`, \
                     `task`, `task_start`, `read_only`, `destructive`, `idempotent` or `open_world`"
                ),
            ),
        }
    }
    attrs
}

/// Separates the `#[param(...)]` attributes of one parameter from the
/// others, which stay on the function.
pub(crate) fn param_attrs(
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
                errors.error(
                    &attr,
                    "expected `#[param(description = \"...\")]`, `#[param(arg)]` or \
                     `#[param(extract)]`",
                );
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
                "header" => {
                    parsed.header = string_value(&meta, "header = \"Region\"", errors);
                }
                "arg" => parsed
                    .sources
                    .extend(source_option(&meta, Source::Arg, errors)),
                "extract" => {
                    parsed
                        .sources
                        .extend(source_option(&meta, Source::Extract, errors));
                }
                _ => errors.error(
                    meta.path(),
                    format!(
                        "unknown `#[param]` option `{key}`; expected `description`, `header`, \
                         `arg` or `extract`"
                    ),
                ),
            }
        }
        parsed.attr.get_or_insert(attr);
    }
    (kept, parsed)
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

/// Parses `a = 1, b = 2` into its options.
fn meta_list(tokens: TokenStream, errors: &mut Errors) -> Option<Punctuated<Meta, Token![,]>> {
    Punctuated::parse_terminated
        .parse2(tokens)
        .map_err(|e| errors.push(e))
        .ok()
}

/// The key of one option, if it is a plain identifier seen for the first
/// time; reports duplicates. Unknown keys are the caller's to report.
fn key_of(
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
fn string_value(meta: &Meta, example: &str, errors: &mut Errors) -> Option<LitStr> {
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

/// A behaviour hint: bare `key` is true, or `key = true | false`.
fn flag_value(meta: &Meta, key: &str, errors: &mut Errors) -> Option<bool> {
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

/// The value of `task = ...`.
fn task_value(meta: &Meta, args_ident: &Ident, errors: &mut Errors) -> Option<Task> {
    let expected = format!(
        "expected \"sync\", \"optional\", \"required\" or a path to a function \
         `fn(&{args_ident}, &RequestInfo) -> TaskPolicy` (or `fn(&{args_ident}, &Context) -> \
         Result<TaskPolicy, InputRequired>` to ask for input first)"
    );
    let Meta::NameValue(nv) = meta else {
        errors.error(meta, format!("`task` needs a value: {expected}"));
        return None;
    };
    match &nv.value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "sync" => Some(Task::Static(Policy::Sync)),
            "optional" => Some(Task::Static(Policy::Optional)),
            "required" => Some(Task::Static(Policy::Required)),
            other => {
                errors.error(s, format!("invalid task policy {other:?}; {expected}"));
                None
            }
        },
        Expr::Path(p) if p.qself.is_none() => Some(Task::PerCall(p.path.clone())),
        other => {
            errors.error(other, format!("invalid task policy; {expected}"));
            None
        }
    }
}
