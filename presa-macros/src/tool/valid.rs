//! The rules a `#[tool]` function must follow, each reported at the token
//! that breaks it with a message that says what to write instead.

use quote::ToTokens;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

use super::ast::{Extractor, Kind, Param, Reason, ToolFn};
use super::attr::{Policy, Source, SourceOption, Task};
use crate::errors::Errors;

/// Reports every way `tool` is not a valid tool.
pub(crate) fn check(tool: &ToolFn, errors: &mut Errors) {
    check_signature(tool, errors);
    check_name(tool, errors);
    check_task_start(tool, errors);
    let mut seen_context = false;
    for param in &tool.params {
        check_param(param, &mut seen_context, errors);
    }
    check_headers(tool, errors);
}

/// `header = "…"` names an HTTP field-name token, unique (without case)
/// among the tool's headers, on a JSON argument. Whether the argument's
/// type is one a header can carry (an integer, a string, a boolean) shows
/// in its schema, which `ServerBuilder::tool` checks.
fn check_headers(tool: &ToolFn, errors: &mut Errors) {
    let mut seen = std::collections::HashSet::new();
    for param in &tool.params {
        let Some(header) = &param.attrs.header else {
            continue;
        };
        let name = header.value();
        if let Kind::Extractor(extractor) = &param.kind {
            // A by-name extractor's `#[param]` is reported already.
            if extractor.reason != Reason::Attribute {
                continue;
            }
            errors.error(
                header,
                "an extractor is not in the tool's input schema, so it has no header; only a \
                 JSON argument can be mirrored into `Mcp-Param-*`",
            );
        } else if name.is_empty() || !name.chars().all(is_tchar) {
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

/// `task_start` takes `"explicit"` or `"immediate"`, and only makes sense
/// for a tool that can run as a task.
fn check_task_start(tool: &ToolFn, errors: &mut Errors) {
    let Some(start) = &tool.attrs.task_start else {
        return;
    };
    match start.value().as_str() {
        "explicit" | "immediate" => {}
        other => {
            errors.error(
                start,
                format!(
                    "invalid task start {other:?}; expected \"explicit\" (the task starts at \
                     `ctx.start_task().await`) or \"immediate\" (the default)"
                ),
            );
            return;
        }
    }
    if matches!(tool.attrs.task, None | Some(Task::Static(Policy::Sync))) {
        errors.error(
            start,
            "`task_start` needs a task policy: add `task = \"optional\"`, `task = \"required\"` \
             or `task = some_fn`",
        );
    }
}

/// The function itself: async, safe, free and not generic.
fn check_signature(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if sig.asyncness.is_none() {
        errors.error(
            sig.fn_token,
            format!(
                "`#[tool]` functions must be `async fn`; write `async fn {}`",
                sig.ident
            ),
        );
    }
    if let Some(unsafety) = sig.unsafety {
        errors.error(unsafety, "`#[tool]` functions cannot be `unsafe`");
    }
    if let Some(receiver) = &tool.receiver {
        errors.error(
            receiver,
            "`#[tool]` goes on a free function, not a method; move it out of the `impl` block \
             and pass what it needs through `State`",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let at: &dyn ToTokens = if sig.generics.params.is_empty() {
            &sig.generics.where_clause
        } else {
            &sig.generics
        };
        errors.error(
            at,
            "`#[tool]` functions cannot be generic: their arguments are read from JSON, so \
             every type must be known",
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(found) = find_type(ty, &|t| matches!(t, Type::ImplTrait(_)))
    {
        errors.error(
            found,
            "`#[tool]` functions must name their return type; `impl Trait` is not supported",
        );
    }
}

/// The tool's name must be one MCP allows.
fn check_name(tool: &ToolFn, errors: &mut Errors) {
    let name = tool.name();
    let valid = (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid {
        let at: &dyn ToTokens = match &tool.attrs.name {
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

/// One parameter, by kind.
fn check_param(param: &Param, seen_context: &mut bool, errors: &mut Errors) {
    if !check_sources(param, errors) {
        return;
    }
    match &param.kind {
        Kind::Extractor(extractor) => check_extractor(param, extractor, seen_context, errors),
        Kind::Arg => check_arg(param, errors),
    }
}

/// `arg` and `extract` exclude each other, and an extractor has no
/// description. Returns whether the options agree; when they do not, the
/// parameter's kind is a guess and is not checked further.
fn check_sources(param: &Param, errors: &mut Errors) -> bool {
    let attrs = &param.attrs;
    if let [first, second, ..] = &attrs.sources[..] {
        let key = |option: &SourceOption| option.key.to_token_stream().to_string();
        errors.error(
            &second.key,
            format!(
                "`{}` contradicts `{}`: a parameter is either a JSON argument (`arg`) or made \
                 from the call's context (`extract`); keep one",
                key(second),
                key(first),
            ),
        );
        return false;
    }
    if attrs.has(Source::Extract)
        && let Some(description) = &attrs.description_option
    {
        errors.error(
            description,
            "an extractor is not in the tool's input schema, so it takes no `description`; \
             remove it, or remove `extract` if this parameter is a JSON argument",
        );
    }
    true
}

/// A parameter made from the call's context.
fn check_extractor(
    param: &Param,
    extractor: &Extractor,
    seen_context: &mut bool,
    errors: &mut Errors,
) {
    if extractor.reason == Reason::NamedContext && std::mem::replace(seen_context, true) {
        errors.error(&param.ty, "a tool takes at most one `Context` parameter");
    }
    if let Some(r) = &extractor.reference
        && (r.mutability.is_some() || r.lifetime.is_some())
    {
        let message = match extractor.reason {
            Reason::NamedContext => "take the context as `Context` or `&Context`",
            _ => "take an extractor by value or by shared reference, without a lifetime",
        };
        errors.error(r, message);
    }
    if matches!(extractor.reason, Reason::NamedContext | Reason::NamedState)
        && let Some(attr) = &param.attrs.attr
    {
        errors.error(
            attr,
            "`#[param]` describes a tool argument, but presa takes a parameter whose type is \
             named `Context` or `State<_>` for an extractor; if this type is your own, make it \
             an argument with `#[param(arg)]`",
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::ImplTrait(_))) {
        errors.error(found, "`impl Trait` cannot be an extractor; name the type");
    }
}

/// A parameter read from the JSON arguments.
fn check_arg(param: &Param, errors: &mut Errors) {
    if param.ident().is_none() {
        errors.error(
            &param.pat,
            "a tool argument needs a plain name, as in `target: String`: the name is its JSON \
             key; destructure it in the function body instead",
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::Reference(_))) {
        errors.error(
            found,
            "tool parameters must be owned types, e.g. `String` instead of `&str`",
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::ImplTrait(_))) {
        errors.error(
            found,
            "`impl Trait` cannot be a tool parameter; name the type",
        );
    }
}

/// The first type within `ty` (itself included) that matches `pred`.
fn find_type<'a>(ty: &'a Type, pred: &dyn Fn(&Type) -> bool) -> Option<&'a Type> {
    if pred(ty) {
        return Some(ty);
    }
    match ty {
        Type::Array(t) => find_type(&t.elem, pred),
        Type::Group(t) => find_type(&t.elem, pred),
        Type::Paren(t) => find_type(&t.elem, pred),
        Type::Ptr(t) => find_type(&t.elem, pred),
        Type::Reference(t) => find_type(&t.elem, pred),
        Type::Slice(t) => find_type(&t.elem, pred),
        Type::Tuple(t) => t.elems.iter().find_map(|e| find_type(e, pred)),
        Type::Path(t) => {
            let qself = t.qself.as_ref().and_then(|q| find_type(&q.ty, pred));
            qself.or_else(|| {
                t.path.segments.iter().find_map(|seg| match &seg.arguments {
                    PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
                        GenericArgument::Type(t) => find_type(t, pred),
                        _ => None,
                    }),
                    _ => None,
                })
            })
        }
        _ => None,
    }
}
