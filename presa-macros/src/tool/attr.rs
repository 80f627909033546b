//! Parsing of the `#[tool(...)]` options.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Meta};

use crate::errors::Errors;
use crate::handler::attr::{flag_value, key_of, meta_list, scopes_value, string_value};

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
    /// `resumable` (or `resumable = bool`): another server may run a task
    /// of the tool again; the path, for errors, with the value.
    pub resumable: Option<(syn::Path, bool)>,
    /// Behaviour hints, each `flag` (true) or `flag = bool`.
    pub hints: Hints,
    /// `scopes = [...]`: the OAuth scopes callers must hold.
    pub scopes: Option<Vec<LitStr>>,
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
            "resumable" => {
                attrs.resumable = flag_value(&meta, &key, errors)
                    .map(|resumable| (meta.path().clone(), resumable));
            }
            "read_only" => attrs.hints.read_only = flag_value(&meta, &key, errors),
            "destructive" => attrs.hints.destructive = flag_value(&meta, &key, errors),
            "idempotent" => attrs.hints.idempotent = flag_value(&meta, &key, errors),
            "open_world" => attrs.hints.open_world = flag_value(&meta, &key, errors),
            "scopes" => attrs.scopes = scopes_value(&meta, errors),
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[tool]` option `{key}`; expected `name`, `title`, `description`, \
                     `task`, `task_start`, `resumable`, `scopes`, `read_only`, `destructive`, \
                     `idempotent` or `open_world`"
                ),
            ),
        }
    }
    attrs
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
