//! The `#[tool(...)]` options, and their parsing.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::{Expr, ExprLit, Ident, ItemFn, Lit, LitStr, Meta};

use crate::errors::Errors;
use crate::handler::ast::generated;
use crate::handler::attr::{
    Keyword, Located, flag_value, key_of, keyword_value, layer_value, meta_list, scopes_value,
    string_value,
};

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
    pub task_start: Option<Located<TaskStart>>,
    /// `resumable` (or `resumable = bool`): another server may run a task
    /// of the tool again; the path, for errors, with the value.
    pub resumable: Option<(syn::Path, bool)>,
    /// Behaviour hints, each `flag` (true) or `flag = bool`.
    pub hints: Hints,
    /// `scopes = [...]`: the OAuth scopes callers must hold.
    pub scopes: Option<Vec<LitStr>>,
    /// `layer = expr`: a tower layer around the handler's runs.
    pub layer: Option<syn::Expr>,
    /// `ui = "ui://…"`: the MCP Apps view that renders the tool's results.
    pub ui: Option<LitStr>,
    /// `visibility = "app" | "model" | "model_and_app"`: who may call a
    /// tool linked to a view.
    pub visibility: Option<Located<Visibility>>,
}

/// `visibility = ...`: who may call a tool linked to an MCP Apps view;
/// mirrors the runtime's `UiVisibility`.
#[derive(Clone, Copy)]
pub(crate) enum Visibility {
    /// `"model_and_app"`, the default: the model and the view.
    ModelAndApp,
    /// `"model"`: the model only.
    Model,
    /// `"app"`: the view only; hosts keep the tool from their model.
    App,
}

impl Keyword for Visibility {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("app", Visibility::App),
        ("model", Visibility::Model),
        ("model_and_app", Visibility::ModelAndApp),
    ];

    fn invalid(written: &str) -> String {
        format!(
            "invalid visibility {written:?}; expected \"app\" (only the view calls the tool), \
             \"model\" (only the model sees it) or \"model_and_app\" (the default)"
        )
    }
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
    /// `"sync"`: the call always answers in place, never as a task.
    Sync,
    /// `"optional"`: the client chooses whether the call runs as a task.
    Optional,
    /// `"required"`: the call always runs as a task.
    Required,
}

impl Keyword for Policy {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("sync", Policy::Sync),
        ("optional", Policy::Optional),
        ("required", Policy::Required),
    ];

    /// The start of the message: `task_value` adds the other form, a path.
    fn invalid(written: &str) -> String {
        format!("invalid task policy {written:?}")
    }
}

/// `task_start = ...`: where the task of a call that runs as one starts;
/// mirrors the runtime's `TaskStart`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskStart {
    /// `"immediate"`, the default: before the handler runs.
    Immediate,
    /// `"explicit"`: when the handler calls `ctx.start_task().await`.
    Explicit,
}

impl Keyword for TaskStart {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("explicit", TaskStart::Explicit),
        ("immediate", TaskStart::Immediate),
    ];

    fn invalid(written: &str) -> String {
        format!(
            "invalid task start {written:?}; expected \"explicit\" (the task starts at \
             `ctx.start_task().await`) or \"immediate\" (the default)"
        )
    }
}

impl ToolAttrs {
    /// Whether a call can run as a task: the policy is not (by default)
    /// `"sync"`.
    pub(crate) fn may_run_as_task(&self) -> bool {
        !matches!(self.task, None | Some(Task::Static(Policy::Sync)))
    }

    /// Whether the task starts at `ctx.start_task().await`.
    pub(crate) fn starts_explicitly(&self) -> bool {
        self.task_start
            .is_some_and(|start| start.value == TaskStart::Explicit)
    }
}

/// The generated arguments struct, e.g. `BuildArgs`: named by the error for
/// a bad policy, and defined by the expansion.
pub(crate) fn args_ident(func: &ItemFn) -> Ident {
    generated(func, "Args")
}

/// Parses the tokens inside `#[tool(...)]`, on `func`.
pub(crate) fn tool_attrs(tokens: TokenStream, func: &ItemFn, errors: &mut Errors) -> ToolAttrs {
    let args_ident = args_ident(func);
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
            "task" => attrs.task = task_value(&meta, &args_ident, errors),
            "task_start" => {
                attrs.task_start = keyword_value(&meta, "task_start = \"explicit\"", errors);
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
            "layer" => attrs.layer = layer_value(&meta, errors),
            "ui" => attrs.ui = string_value(&meta, "ui = \"ui://jobs/dashboard\"", errors),
            "visibility" => {
                attrs.visibility = keyword_value(&meta, "visibility = \"app\"", errors);
            }
            _ => errors.error(
                meta.path(),
                format!(
                    "unknown `#[tool]` option `{key}`; expected `name`, `title`, `description`, \
                     `task`, `task_start`, `resumable`, `scopes`, `layer`, `ui`, `visibility`, \
                     `read_only`, `destructive`, `idempotent` or `open_world`"
                ),
            ),
        }
    }
    attrs
}

/// Reads `task = ...`: a policy, or a function that decides one per call.
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
        }) => {
            let written = s.value();
            let policy = Policy::from_word(&written);
            if policy.is_none() {
                errors.error(s, format!("{}; {expected}", Policy::invalid(&written)));
            }
            policy.map(Task::Static)
        }
        Expr::Path(p) if p.qself.is_none() => Some(Task::PerCall(p.path.clone())),
        other => {
            errors.error(other, format!("invalid task policy; {expected}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn parse(tokens: TokenStream) -> (ToolAttrs, syn::Result<()>) {
        let func: ItemFn = syn::parse_quote!(
            async fn build() {}
        );
        let mut errors = Errors::default();
        let attrs = tool_attrs(tokens, &func, &mut errors);
        (attrs, errors.finish())
    }

    #[test]
    fn task_start_is_read_into_its_enum() {
        let (attrs, result) = parse(quote!(task = "optional", task_start = "explicit"));
        assert!(result.is_ok());
        assert!(attrs.may_run_as_task() && attrs.starts_explicitly());

        let (attrs, result) = parse(quote!(task_start = "immediate"));
        assert!(result.is_ok());
        assert!(!attrs.may_run_as_task() && !attrs.starts_explicitly());

        let (attrs, result) = parse(quote!(task_start = "later"));
        assert!(attrs.task_start.is_none());
        let message = result.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.starts_with("invalid task start \"later\""),
            "{message}"
        );
    }
}
