//! The rules of `#[tool]` beyond those every handler follows: a name MCP
//! allows, a task start or resumability only for a tool that can run as
//! a task, and a `ui` that is a `ui://` URI.

use quote::ToTokens;

use super::attr::ToolAttrs;
use crate::errors::Errors;
use crate::handler::ast::HandlerFn;

/// Reports every way `tool` breaks the rules of tools.
pub(crate) fn check(tool: &HandlerFn, attrs: &ToolAttrs, errors: &mut Errors) {
    check_name(tool, attrs, errors);
    check_task_start(attrs, errors);
    check_resumable(attrs, errors);
    check_headers(tool, errors);
    check_ui(attrs, errors);
}

/// `ui = "…"` is a `ui://` URI that names a view (MCP Apps, "UI Resource
/// Format"), and `visibility` comes with it.
fn check_ui(attrs: &ToolAttrs, errors: &mut Errors) {
    if let Some(ui) = &attrs.ui {
        let uri = ui.value();
        let names_a_view = uri
            .strip_prefix("ui://")
            .is_some_and(|rest| !rest.is_empty())
            && !uri.chars().any(|c| c.is_whitespace() || c.is_control());
        if !names_a_view {
            errors.error(
                ui,
                format!(
                    "invalid UI resource URI {uri:?}: it must start with `ui://` and name the \
                     view, as in `ui = \"ui://jobs/dashboard\"`"
                ),
            );
        }
    }
    if let Some(visibility) = &attrs.visibility
        && attrs.ui.is_none()
    {
        errors.error_at(
            visibility.span,
            "`visibility` says who may call a tool linked to a view: add the view, as in \
             `ui = \"ui://jobs/dashboard\"`",
        );
    }
}

/// `header = "…"` names an HTTP field-name token, unique (without case)
/// among the tool's headers. (An extractor's `header` is reported with its
/// other misplaced options; whether an argument's type can travel in a
/// header shows in its schema, which `ServerBuilder::tool` checks.)
fn check_headers(tool: &HandlerFn, errors: &mut Errors) {
    let mut seen = std::collections::HashSet::new();
    for param in &tool.params {
        let Some(header) = &param.attrs.header else {
            continue;
        };
        let name = header.value();
        if name.is_empty() || !name.chars().all(is_tchar) {
            errors.error(
                header,
                format!(
                    "invalid header name {name:?}: an HTTP field-name token is letters, digits \
                     and !#$%&'*+-.^_`|~"
                ),
            );
        } else if !seen.insert(name.to_ascii_lowercase()) {
            errors.error(
                header,
                format!("header `Mcp-Param-{name}` is used twice (header names ignore case)"),
            );
        }
    }
}

/// `tchar` of RFC 9110.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `task_start` only makes sense for a tool that can run as a task.
fn check_task_start(attrs: &ToolAttrs, errors: &mut Errors) {
    if let Some(start) = &attrs.task_start
        && !attrs.may_run_as_task()
    {
        errors.error_at(
            start.span,
            "`task_start` needs a task policy: add `task = \"optional\"`, `task = \"required\"` \
             or `task = some_fn`",
        );
    }
}

/// `resumable` only makes sense for a tool that can run as a task, whose
/// task starts with the handler (a run resumed from the start could not
/// go back to the request an explicit start ran in).
fn check_resumable(attrs: &ToolAttrs, errors: &mut Errors) {
    let Some((path, true)) = &attrs.resumable else {
        return;
    };
    if !attrs.may_run_as_task() {
        errors.error(
            path,
            "`resumable` needs a task policy: add `task = \"optional\"`, `task = \"required\"` \
             or `task = some_fn`",
        );
    }
    if attrs.starts_explicitly() {
        errors.error(
            path,
            "`resumable` does not go with `task_start = \"explicit\"`: a task resumed on \
             another server runs the handler again from the start, and the request it started \
             in is gone",
        );
    }
}

/// The tool's name must be one MCP allows.
fn check_name(tool: &HandlerFn, attrs: &ToolAttrs, errors: &mut Errors) {
    let name = tool.name(attrs.name.as_ref());
    let valid = (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid {
        let at: &dyn ToTokens = match &attrs.name {
            Some(lit) => lit,
            None => &tool.item.sig.ident,
        };
        errors.error(
            at,
            format!(
                "invalid tool name {name:?}: a tool name is 1 to 128 ASCII letters, digits, \
                 `_`, `-` or `.`"
            ),
        );
    }
}
