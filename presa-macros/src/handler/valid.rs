//! The rules every handler function must follow, whatever its macro, each
//! reported at the token that breaks it with a message that says what to
//! write instead.

use quote::ToTokens;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

use super::Macro;
use super::ast::{Extractor, HandlerFn, Kind, Param, Reason};
use super::attr::{Source, SourceOption};
use crate::errors::Errors;

/// Reports every way `handler`'s parameters break the rules all handlers
/// follow.
pub(crate) fn check_params(handler: &HandlerFn, errors: &mut Errors) {
    let mut seen_context = false;
    for param in &handler.params {
        check_param(handler.kind, param, &mut seen_context, errors);
    }
}

/// The function itself: async, safe, free and not generic.
pub(crate) fn check_signature(handler: &HandlerFn, errors: &mut Errors) {
    let sig = &handler.item.sig;
    let name = handler.kind.name();
    if sig.asyncness.is_none() {
        errors.error(
            sig.fn_token,
            format!(
                "`#[{name}]` functions must be `async fn`; write `async fn {}`",
                sig.ident
            ),
        );
    }
    if let syn::Safety::Unsafe(unsafety) = sig.safety {
        errors.error(
            unsafety,
            format!("`#[{name}]` functions cannot be `unsafe`"),
        );
    }
    if let Some(receiver) = &handler.receiver {
        errors.error(
            receiver,
            format!(
                "`#[{name}]` goes on a free function, not a method; move it out of the `impl` \
                 block and pass what it needs through `State`"
            ),
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
            format!(
                "`#[{name}]` functions cannot be generic: their arguments are read from {}, so \
                 every type must be known",
                handler.kind.source()
            ),
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(found) = find_type(ty, &|t| matches!(t, Type::ImplTrait(_)))
    {
        errors.error(
            found,
            format!(
                "`#[{name}]` functions must name their return type; `impl Trait` is not supported"
            ),
        );
    }
}

/// A handler that answers with something (a prompt with its messages, a
/// resource with its contents) names its return type.
pub(crate) fn check_returns(handler: &HandlerFn, what: &str, example: &str, errors: &mut Errors) {
    if handler.output.is_none() {
        errors.error(
            &handler.item.sig.ident,
            format!(
                "a `#[{}]` function returns {what}: declare a return type, as in `-> {example}`",
                handler.kind.name()
            ),
        );
    }
}

/// One parameter, by kind.
fn check_param(kind: Macro, param: &Param, seen_context: &mut bool, errors: &mut Errors) {
    if !check_sources(kind, param, errors) {
        return;
    }
    match &param.kind {
        Kind::Extractor(extractor) => {
            check_extractor(kind, param, extractor, seen_context, errors);
        }
        Kind::Arg => check_arg(kind, param, errors),
    }
}

/// `arg` and `extract` exclude each other, and an extractor has no
/// description or completer. Returns whether the options agree; when they
/// do not, the parameter's kind is a guess and is not checked further.
fn check_sources(kind: Macro, param: &Param, errors: &mut Errors) -> bool {
    let attrs = &param.attrs;
    if let [first, second, ..] = &attrs.sources[..] {
        let key = |option: &SourceOption| option.key.to_token_stream().to_string();
        errors.error(
            &second.key,
            format!(
                "`{}` contradicts `{}`: a parameter is either a {} (`arg`) or made from the \
                 call's context (`extract`); keep one",
                key(second),
                key(first),
                kind.argument(),
            ),
        );
        return false;
    }
    let misplaced = [
        ("description", attrs.description_option.as_ref()),
        ("complete", attrs.complete.as_ref().map(|c| &c.option)),
        ("header", attrs.header_option.as_ref()),
    ];
    for (option, meta) in misplaced {
        if let Some(meta) = meta
            && attrs.has(Source::Extract)
        {
            errors.error(
                meta,
                format!(
                    "an extractor is not in {}, so it takes no `{option}`; remove it, or remove \
                     `extract` if this parameter is a {}",
                    kind.listing(),
                    kind.argument(),
                ),
            );
        }
    }
    true
}

/// A parameter made from the call's context.
fn check_extractor(
    kind: Macro,
    param: &Param,
    extractor: &Extractor,
    seen_context: &mut bool,
    errors: &mut Errors,
) {
    if extractor.reason == Reason::NamedContext && std::mem::replace(seen_context, true) {
        errors.error(
            &param.ty,
            format!("a {} takes at most one `Context` parameter", kind.name()),
        );
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
    if matches!(
        extractor.reason,
        Reason::NamedContext | Reason::NamedExtractor
    ) && let Some(attr) = &param.attrs.attr
    {
        errors.error(
            attr,
            format!(
                "`#[param]` describes a {}, but presa takes a parameter whose type is named \
                 `Context`, `State<_>`, `Scopes`, `Claims<_>` or `Headers` for an extractor; if \
                 this type is your own, make it an argument with `#[param(arg)]`",
                kind.argument_noun()
            ),
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::ImplTrait(_))) {
        errors.error(found, "`impl Trait` cannot be an extractor; name the type");
    }
}

/// A parameter read from the request's arguments.
fn check_arg(kind: Macro, param: &Param, errors: &mut Errors) {
    if param.ident().is_none() {
        errors.error(
            &param.pat,
            format!(
                "a {} needs a plain name, as in `{}`: the name is {}; destructure it in the \
                 function body instead",
                kind.argument_noun(),
                kind.argument_example(),
                kind.argument_key(),
            ),
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::Reference(_))) {
        errors.error(
            found,
            format!(
                "{} parameters must be owned types, e.g. `String` instead of `&str`",
                kind.name()
            ),
        );
    }
    if let Some(found) = find_type(&param.ty, &|t| matches!(t, Type::ImplTrait(_))) {
        errors.error(
            found,
            format!(
                "`impl Trait` cannot be a {} parameter; name the type",
                kind.name()
            ),
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
