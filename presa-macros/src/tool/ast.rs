//! The intermediate representation of a `#[tool]` function, and its parsing.
//!
//! Parsing classifies each parameter (context, state or argument) by its
//! type, strips `#[param]` attributes and reads the doc comment. It accepts
//! anything that is syntactically a function; whether the function is a
//! valid tool is for `valid` to decide, so that every problem is reported.

use proc_macro2::TokenStream;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::{
    Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, PathArguments, Receiver,
    ReturnType, Type, TypeReference,
};

use super::attr::{self, ParamAttrs, ToolAttrs};
use crate::errors::Errors;

/// A function under `#[tool]`.
pub(crate) struct ToolFn {
    /// The function as it will be emitted: unchanged but for `#[param]`
    /// attributes, which are removed.
    pub item: ItemFn,
    /// The `#[tool(...)]` options.
    pub attrs: ToolAttrs,
    /// The doc comment, cleaned up, if there is one.
    pub doc: Option<String>,
    /// A `self` parameter, which is an error.
    pub receiver: Option<Receiver>,
    /// The typed parameters, in order.
    pub params: Vec<Param>,
    /// The return type; `None` for `()`.
    pub output: Option<Type>,
    /// The generated arguments struct, e.g. `BuildArgs`.
    pub args_ident: Ident,
    /// The generated tool struct, e.g. `BuildTool`.
    pub tool_ident: Ident,
}

/// One typed parameter of the function.
pub(crate) struct Param {
    /// Its pattern, e.g. `target` or `State(db)`.
    pub pat: Pat,
    /// Its type.
    pub ty: Type,
    /// Its `#[param(...)]` options.
    pub attrs: ParamAttrs,
    /// What supplies its value.
    pub kind: Kind,
}

/// What supplies a parameter's value.
pub(crate) enum Kind {
    /// `Context` or `&Context`: the call's context.
    Context {
        /// The `&Context` type, when borrowed.
        reference: Option<TypeReference>,
    },
    /// `State<T>`: a clone of the application state of type `T`.
    State {
        /// The `T`.
        inner: Type,
    },
    /// Anything else: a field of the JSON arguments.
    Arg,
}

impl Param {
    /// The argument's name, when the pattern is a plain identifier.
    pub(crate) fn ident(&self) -> Option<&Ident> {
        match &self.pat {
            Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
            _ => None,
        }
    }

    /// Whether the argument may be omitted: its type is `Option<..>`.
    pub(crate) fn is_optional(&self) -> bool {
        matches!(
            last_segment_args(&self.ty, "Option"),
            Some(PathArguments::AngleBracketed(_))
        )
    }
}

impl ToolFn {
    /// Reads `func` and the `#[tool(...)]` tokens `args`.
    pub(crate) fn parse(mut func: ItemFn, args: TokenStream, errors: &mut Errors) -> ToolFn {
        let base = upper_camel_case(&func.sig.ident.unraw().to_string());
        let span = func.sig.ident.span();
        let args_ident = format_ident!("{base}Args", span = span);
        let tool_ident = format_ident!("{base}Tool", span = span);

        let attrs = attr::tool_attrs(args, &args_ident, errors);
        let doc = doc_comment(&func);

        let mut receiver = None;
        let mut params = Vec::new();
        for input in &mut func.sig.inputs {
            match input {
                FnArg::Receiver(r) => receiver = Some(r.clone()),
                FnArg::Typed(typed) => {
                    let (kept, param_attrs) =
                        attr::param_attrs(std::mem::take(&mut typed.attrs), errors);
                    typed.attrs = kept;
                    params.push(Param {
                        pat: (*typed.pat).clone(),
                        ty: (*typed.ty).clone(),
                        attrs: param_attrs,
                        kind: classify(&typed.ty),
                    });
                }
            }
        }
        let output = match &func.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };

        ToolFn {
            item: func,
            attrs,
            doc,
            receiver,
            params,
            output,
            args_ident,
            tool_ident,
        }
    }

    /// The tool's name: the `name` option, else the function's name.
    pub(crate) fn name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value(),
            None => self.item.sig.ident.unraw().to_string(),
        }
    }

    /// The parameters that are JSON arguments.
    pub(crate) fn args(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| matches!(p.kind, Kind::Arg))
    }
}

/// Recognises extractors by the last segment of their type's path, so that
/// `presa::Context` and a re-export both work. A parameter whose type
/// merely shares the name is treated as an extractor too; that is the
/// price of not resolving names, which a macro cannot do.
fn classify(ty: &Type) -> Kind {
    if let Type::Reference(r) = ty
        && last_segment_args(&r.elem, "Context").is_some()
    {
        return Kind::Context {
            reference: Some(r.clone()),
        };
    }
    if let Some(PathArguments::None) = last_segment_args(ty, "Context") {
        return Kind::Context { reference: None };
    }
    if let Some(PathArguments::AngleBracketed(a)) = last_segment_args(ty, "State")
        && a.args.len() == 1
        && let Some(GenericArgument::Type(inner)) = a.args.first()
    {
        return Kind::State {
            inner: inner.clone(),
        };
    }
    Kind::Arg
}

/// The generic arguments of `ty`'s last path segment, if `ty` is a path
/// whose last segment is `name`.
fn last_segment_args<'a>(ty: &'a Type, name: &str) -> Option<&'a PathArguments> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            (last.ident == name).then_some(&last.arguments)
        }
        Type::Group(g) => last_segment_args(&g.elem, name),
        Type::Paren(p) => last_segment_args(&p.elem, name),
        _ => None,
    }
}

/// The function's doc comment: its lines joined with `\n`, with the one
/// space that `/// text` puts before every line removed, and trimmed.
/// Non-literal docs (`#[doc = include_str!(..)]`) cannot be read by a macro
/// and are skipped.
fn doc_comment(func: &ItemFn) -> Option<String> {
    let mut lines = Vec::new();
    for attr in &func.attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            let value = s.value();
            lines.extend(
                value
                    .split('\n')
                    .map(|l| l.trim_end_matches('\r').to_owned()),
            );
        }
    }
    let spaced = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .all(|l| l.starts_with(' '));
    let text = lines
        .iter()
        .map(|l| {
            if spaced {
                l.strip_prefix(' ').unwrap_or(l)
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// `build_all` → `BuildAll`.
fn upper_camel_case(snake: &str) -> String {
    snake
        .split('_')
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars))
                .into_iter()
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn camel_case() {
        assert_eq!(upper_camel_case("build"), "Build");
        assert_eq!(upper_camel_case("build_all_targets"), "BuildAllTargets");
        assert_eq!(upper_camel_case("__private_x"), "PrivateX");
    }

    #[test]
    fn doc_comments() {
        let f: ItemFn = parse_quote! {
            /// Builds a target.
            ///
            ///     indented
            async fn f() {}
        };
        assert_eq!(
            doc_comment(&f).as_deref(),
            Some("Builds a target.\n\n    indented")
        );
        let f: ItemFn = parse_quote!(
            async fn f() {}
        );
        assert_eq!(doc_comment(&f), None);
        let f: ItemFn = parse_quote! {
            #[doc = "no space"]
            #[doc = " one space"]
            async fn f() {}
        };
        assert_eq!(doc_comment(&f).as_deref(), Some("no space\n one space"));
    }

    #[test]
    fn classification() {
        let kind = |ty: Type| classify(&ty);
        assert!(matches!(
            kind(parse_quote!(Context)),
            Kind::Context { reference: None }
        ));
        assert!(matches!(
            kind(parse_quote!(&presa::Context)),
            Kind::Context { reference: Some(_) }
        ));
        assert!(matches!(kind(parse_quote!(State<Db>)), Kind::State { .. }));
        assert!(matches!(kind(parse_quote!(State)), Kind::Arg));
        assert!(matches!(kind(parse_quote!(Option<Context>)), Kind::Arg));
        assert!(matches!(kind(parse_quote!(String)), Kind::Arg));
    }
}
