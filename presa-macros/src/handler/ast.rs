//! The intermediate representation of a handler function (under `#[tool]`,
//! `#[prompt]` or `#[resource]`), and its parsing.
//!
//! Parsing classifies each parameter as an extractor or an argument (by
//! its `#[param(arg)]` or `#[param(extract)]` option, else by the name of
//! its type), strips `#[param]` attributes and reads the doc comment. It
//! accepts anything that is syntactically a function; whether the function
//! is a valid handler is for `valid` to decide, so that every problem is
//! reported.

use quote::format_ident;
use syn::ext::IdentExt;
use syn::{
    Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, Pat, PathArguments, Receiver,
    ReturnType, Type, TypeReference,
};

use super::Macro;
use super::attr::{self, ParamAttrs, Source};
use crate::errors::Errors;

/// A function under one of the handler macros.
pub(crate) struct HandlerFn {
    /// Which macro it is under.
    pub kind: Macro,
    /// The function as it will be emitted: unchanged but for `#[param]`
    /// attributes, which are removed.
    pub item: ItemFn,
    /// The doc comment, cleaned up, if there is one.
    pub doc: Option<String>,
    /// A `self` parameter, which is an error.
    pub receiver: Option<Receiver>,
    /// The typed parameters, in order.
    pub params: Vec<Param>,
    /// The return type; `None` for `()`.
    pub output: Option<Type>,
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
    /// The call's context, through `FromContext`.
    Extractor(Box<Extractor>),
    /// A field of the JSON arguments.
    Arg,
}

/// A parameter made from the call's context.
pub(crate) struct Extractor {
    /// The type made: the parameter's type, or what it borrows.
    pub ty: Type,
    /// The `&` of a parameter that borrows its value, as in `&Context`.
    pub reference: Option<TypeReference>,
    /// Why the parameter is an extractor.
    pub reason: Reason,
}

/// Why a parameter is an extractor.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// Its type is named `Context`.
    NamedContext,
    /// Its type is named `State<_>`, `Claims<_>` or `Scopes`: an
    /// extractor of presa's own other than the context.
    NamedExtractor,
    /// `#[param(extract)]`.
    Attribute,
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
        self.optional_inner().is_some()
    }

    /// `T` of an argument typed `Option<T>`.
    pub(crate) fn optional_inner(&self) -> Option<&Type> {
        match last_segment_args(&self.ty, "Option")? {
            PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first()? {
                GenericArgument::Type(inner) => Some(inner),
                _ => None,
            },
            _ => None,
        }
    }
}

impl HandlerFn {
    /// Reads `func`, under macro `kind`.
    pub(crate) fn parse(kind: Macro, mut func: ItemFn, errors: &mut Errors) -> HandlerFn {
        let doc = doc_comment(&func);

        let mut receiver = None;
        let mut params = Vec::new();
        for input in &mut func.sig.inputs {
            match input {
                FnArg::Receiver(r) => receiver = Some(r.clone()),
                FnArg::Typed(typed) => {
                    let (kept, param_attrs) =
                        attr::param_attrs(kind, std::mem::take(&mut typed.attrs), errors);
                    typed.attrs = kept;
                    params.push(Param {
                        pat: (*typed.pat).clone(),
                        ty: (*typed.ty).clone(),
                        kind: classify(&typed.ty, &param_attrs),
                        attrs: param_attrs,
                    });
                }
            }
        }
        let output = match &func.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };

        HandlerFn {
            kind,
            item: func,
            doc,
            receiver,
            params,
            output,
        }
    }

    /// The name of an item generated for the function; see [`generated`].
    pub(crate) fn generated(&self, suffix: &str) -> Ident {
        generated(&self.item, suffix)
    }

    /// The handler's name: `option` when given, else the function's name.
    pub(crate) fn name(&self, option: Option<&syn::LitStr>) -> String {
        match option {
            Some(name) => name.value(),
            None => self.item.sig.ident.unraw().to_string(),
        }
    }

    /// The description: `option` when given, else the doc comment.
    pub(crate) fn description(&self, option: Option<&syn::LitStr>) -> Option<String> {
        option.map(syn::LitStr::value).or_else(|| self.doc.clone())
    }

    /// The parameters that are arguments, each with its name.
    pub(crate) fn args(&self) -> impl Iterator<Item = (&Param, &Ident)> {
        self.params
            .iter()
            .filter(|p| matches!(p.kind, Kind::Arg))
            .filter_map(|p| Some((p, p.ident()?)))
    }
}

/// The name of an item generated for `func`: `suffix` after the function's
/// name in upper camel case (`build` → `BuildTool`), at the function's
/// name.
pub(crate) fn generated(func: &ItemFn, suffix: &str) -> Ident {
    let ident = &func.sig.ident;
    let base = upper_camel_case(&ident.unraw().to_string());
    format_ident!("{base}{suffix}", span = ident.span())
}

/// What supplies the value of a parameter of type `ty`. `extract` and `arg`
/// decide when present (both at once is for `valid` to report).
/// Otherwise the built-in extractors are recognised by the last segment of
/// their type's path, so that `presa::Context` and a re-export both work; a
/// user type that merely shares the name is caught by the `FromContext`
/// bound, whose message points to `#[param(arg)]`.
fn classify(ty: &Type, attrs: &ParamAttrs) -> Kind {
    let (made, reference) = match ty {
        Type::Reference(r) => ((*r.elem).clone(), Some(r.clone())),
        _ => (ty.clone(), None),
    };
    let reason = if attrs.has(Source::Extract) {
        Reason::Attribute
    } else if attrs.has(Source::Arg) {
        return Kind::Arg;
    } else if let Some(PathArguments::None) = last_segment_args(&made, "Context") {
        Reason::NamedContext
    } else if named_extractor(&made) {
        Reason::NamedExtractor
    } else {
        return Kind::Arg;
    };
    Kind::Extractor(Box::new(Extractor {
        ty: made,
        reference,
        reason,
    }))
}

/// Whether `ty` is named as one of presa's extractors other than the
/// context: `Scopes`, `Headers`, `State<_>` or `Claims<_>`.
fn named_extractor(ty: &Type) -> bool {
    let plain = |name| matches!(last_segment_args(ty, name), Some(PathArguments::None));
    let generic = |name| {
        matches!(
            last_segment_args(ty, name),
            Some(PathArguments::AngleBracketed(a))
                if a.args.len() == 1 && matches!(a.args.first(), Some(GenericArgument::Type(_)))
        )
    };
    plain("Scopes") || plain("Headers") || generic("State") || generic("Claims")
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
    use syn::parse::Parser;
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
        let reason = |ty: Type, attrs: ParamAttrs| match classify(&ty, &attrs) {
            Kind::Extractor(e) => Some((e.reason, e.reference.is_some())),
            Kind::Arg => None,
        };
        let by_name = |ty: Type| reason(ty, ParamAttrs::default());
        assert!(by_name(parse_quote!(Context)) == Some((Reason::NamedContext, false)));
        assert!(by_name(parse_quote!(&presa::Context)) == Some((Reason::NamedContext, true)));
        assert!(by_name(parse_quote!(State<Db>)) == Some((Reason::NamedExtractor, false)));
        assert!(by_name(parse_quote!(Scopes)) == Some((Reason::NamedExtractor, false)));
        assert!(
            by_name(parse_quote!(presa::Claims<Tenant>)) == Some((Reason::NamedExtractor, false))
        );
        assert!(by_name(parse_quote!(Claims)).is_none());
        assert!(by_name(parse_quote!(State)).is_none());
        assert!(by_name(parse_quote!(State<A, B>)).is_none());
        assert!(by_name(parse_quote!(Option<Context>)).is_none());
        assert!(by_name(parse_quote!(String)).is_none());

        let with = |option: &str| {
            let attrs = syn::Attribute::parse_outer
                .parse_str(&format!("#[param({option})]"))
                .unwrap();
            attr::param_attrs(Macro::Tool, attrs, &mut Errors::default()).1
        };
        assert!(reason(parse_quote!(mymod::Context), with("arg")).is_none());
        assert!(reason(parse_quote!(Subject), with("extract")) == Some((Reason::Attribute, false)));
        assert!(reason(parse_quote!(&Subject), with("extract")) == Some((Reason::Attribute, true)));
        assert!(reason(parse_quote!(Subject), with("arg, extract")).is_some());
    }
}
