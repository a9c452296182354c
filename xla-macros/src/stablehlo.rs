//! The `stablehlo!` front end: StableHLO text (a file or an inline string) imported at compile
//! time by `xla_core::stablehlo::import`, whose lowering runs every op through the registry and
//! the Builder's shape inference, so the functions it yields are checked exactly as `xla!` fns
//! are. They become [`model::FnDef`]s and go through the same back end ([`crate::expand`]).
//!
//! ```text
//! stablehlo! {
//!     [/// doc]  [pub] fn name = "path/to/model.mlir" [@symbol];   // one function (@main by default)
//!     [/// doc]  [pub] mod name = "path/to/model.mlir";            // every public function
//!     [pub] fn name = mlir r#"func.func @main(...) { ... }"#;       // inline text
//! }
//! ```
//!
//! Paths are relative to the crate's manifest directory (`CARGO_MANIFEST_DIR`), like
//! `include_str!` relative to a source file; the expansion `include_bytes!`es each file, so
//! cargo rebuilds the crate when it changes. Every problem is a compile error at the source
//! string naming the file and the line:column in it.

use std::path::PathBuf;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};
use xla_core::ir::Op;
use xla_core::stablehlo::import::{parse_module, Function};

use crate::model::{FnDef, Program};

/// The name errors and expansion messages give the macro.
const MACRO: &str = "stablehlo!";

/// `fn` (one function) or `mod` (every public function of the module).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fn,
    Mod,
}

/// Where the text comes from.
enum Source {
    /// A path relative to `CARGO_MANIFEST_DIR`.
    File(LitStr),
    /// `mlir "..."`: the text itself.
    Inline(LitStr),
}

impl Source {
    fn lit(&self) -> &LitStr {
        match self {
            Source::File(l) | Source::Inline(l) => l,
        }
    }
}

/// One `[attrs] [vis] fn|mod name = source [@symbol]` item.
struct Item {
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    kind: Kind,
    name: Ident,
    source: Source,
    /// `@symbol` (fn items only): which function of the module.
    symbol: Option<(String, Span)>,
}

/// The whole input: items separated (and optionally ended) by `;`.
struct Items(Vec<Item>);

impl Parse for Items {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![;]>()?;
        }
        if items.is_empty() {
            return Err(input.error(
                "stablehlo!: expected `[pub] fn name = \"path/to/model.mlir\"` or \
                 `[pub] mod name = \"path/to/model.mlir\"`",
            ));
        }
        Ok(Items(items))
    }
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let kind = if input.peek(Token![fn]) {
            input.parse::<Token![fn]>()?;
            Kind::Fn
        } else if input.peek(Token![mod]) {
            input.parse::<Token![mod]>()?;
            Kind::Mod
        } else {
            return Err(input.error("stablehlo!: expected `fn name = ...` or `mod name = ...`"));
        };
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let source = if input.peek(LitStr) {
            Source::File(input.parse()?)
        } else {
            let word: Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "stablehlo!: expected a path string (relative to the crate's manifest \
                     directory) or `mlir \"...\"` (the text itself)",
                )
            })?;
            if word != "mlir" {
                return Err(syn::Error::new(
                    word.span(),
                    format!("stablehlo!: expected a path string or `mlir \"...\"`, found `{word}`"),
                ));
            }
            Source::Inline(input.parse()?)
        };
        let symbol = if input.peek(Token![@]) {
            let at = input.parse::<Token![@]>()?;
            let sym = if input.peek(LitStr) {
                let s: LitStr = input.parse()?;
                (s.value(), s.span())
            } else {
                let s = input.call(<Ident as syn::ext::IdentExt>::parse_any)?;
                (s.to_string(), s.span())
            };
            if kind == Kind::Mod {
                return Err(syn::Error::new(
                    at.span,
                    "stablehlo!: `@symbol` picks one function for a `fn` item; a `mod` item \
                     takes every public function",
                ));
            }
            Some(sym)
        } else {
            None
        };
        Ok(Item {
            attrs,
            vis,
            kind,
            name,
            source,
            symbol,
        })
    }
}

/// The text of an item's source, the name errors give it, and the file to track.
struct Loaded {
    label: String,
    text: String,
    track: Option<String>,
}

/// Reads the source: the file (relative to `CARGO_MANIFEST_DIR`) or the inline string.
fn load(source: &Source) -> syn::Result<Loaded> {
    let lit = match source {
        Source::Inline(lit) => {
            return Ok(Loaded {
                label: "<inline MLIR>".into(),
                text: lit.value(),
                track: None,
            })
        }
        Source::File(lit) => lit,
    };
    let rel = lit.value();
    let err = |why: String| syn::Error::new(lit.span(), format!("{MACRO}: {why}"));
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").ok_or_else(|| {
        err(
            "CARGO_MANIFEST_DIR is not set (paths are relative to the crate's manifest \
             directory; build with cargo, or use `mlir \"...\"`)"
                .into(),
        )
    })?;
    let path = PathBuf::from(dir).join(&rel);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(format!(
            "cannot read `{rel}` (relative to the crate's manifest directory): {e}"
        ))
    })?;
    let track = path
        .to_str()
        .ok_or_else(|| err(format!("the path of `{rel}` is not valid UTF-8")))?
        .to_string();
    Ok(Loaded {
        label: rel,
        text,
        track: Some(track),
    })
}

/// Expands a `stablehlo! { ... }` input (errors only, when there are any).
pub fn run(input: TokenStream) -> TokenStream {
    let items = match syn::parse2::<Items>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    items
        .0
        .iter()
        .map(|item| expand_item(item).unwrap_or_else(|e| e.to_compile_error()))
        .collect()
}

/// The CustomCall targets of `fns` (nested computations too), all named at `span`, the path
/// string: rustc reports a missing target fn or a wrong signature there.
fn targets(fns: &[Function], span: Span) -> Vec<(String, Span)> {
    fn walk(c: &xla_core::Computation, span: Span, out: &mut Vec<(String, Span)>) {
        for i in &c.instrs {
            if let Op::CustomCall { target, .. } = &i.op {
                out.push((target.clone(), span));
            }
            for sub in i.op.computations() {
                walk(sub, span, out);
            }
        }
    }
    let mut out = Vec::new();
    for f in fns {
        walk(&f.computation, span, &mut out);
    }
    out
}

/// One item: its file read and imported, its functions expanded.
fn expand_item(item: &Item) -> syn::Result<TokenStream> {
    let lit = item.source.lit();
    let loaded = load(&item.source)?;
    let at = |msg: String| syn::Error::new(lit.span(), format!("{MACRO}: {msg}"));
    let module = parse_module(&loaded.text).map_err(|e| at(format!("{}:{e}", loaded.label)))?;
    let track = loaded.track.as_ref().map(|p| {
        // Makes cargo rerun the macro when the file changes (an unnamed const is never used,
        // so the bytes are not kept in the binary).
        quote!(
            const _: &[u8] = ::core::include_bytes!(#p);
        )
    });
    match item.kind {
        Kind::Fn => {
            let f = pick(&module.functions, item, &loaded.label, &at)?;
            let fd = fn_def(
                f,
                item.name.clone(),
                &item.vis,
                &item.attrs,
                &loaded.label,
                &at,
            )?;
            let fns = crate::expand::expand(&Program {
                fns: vec![fd],
                macro_name: MACRO,
                targets: targets(&module.functions, lit.span()),
            });
            Ok(quote!(#fns #track))
        }
        Kind::Mod => {
            let public: Vec<&Function> = module.functions.iter().filter(|f| f.public).collect();
            if public.is_empty() {
                return Err(at(format!("{} has no public function", loaded.label)));
            }
            let inner = syn::parse_quote!(pub);
            let fns = public
                .iter()
                .map(|f| {
                    let name = rust_name(&f.name).ok_or_else(|| {
                        at(format!(
                            "{}:{}: public function @{} has no Rust name; compile it alone \
                             with `fn name = \"{}\" @\"{}\"`",
                            loaded.label, f.pos, f.name, loaded.label, f.name
                        ))
                    })?;
                    let name = Ident::new(&name, item.name.span());
                    fn_def(f, name, &inner, &[], &loaded.label, &at)
                })
                .collect::<syn::Result<Vec<_>>>()?;
            let body = crate::expand::expand(&Program {
                fns,
                macro_name: MACRO,
                targets: targets(&module.functions, lit.span()),
            });
            let (attrs, vis, name) = (&item.attrs, &item.vis, &item.name);
            let doc = format!(
                "The public functions of `{}`, compiled by `stablehlo!`.",
                loaded.label
            );
            Ok(quote! {
                #(#attrs)*
                #[doc = #doc]
                #vis mod #name {
                    #body
                    #track
                }
            })
        }
    }
}

/// The function a `fn` item compiles: its `@symbol`, else `@main`, else the only public one.
fn pick<'m>(
    functions: &'m [Function],
    item: &Item,
    label: &str,
    at: &dyn Fn(String) -> syn::Error,
) -> syn::Result<&'m Function> {
    let public: Vec<String> = functions
        .iter()
        .filter(|f| f.public)
        .map(|f| format!("@{}", f.name))
        .collect();
    if let Some((sym, span)) = &item.symbol {
        return functions.iter().find(|f| &f.name == sym).ok_or_else(|| {
            syn::Error::new(
                *span,
                format!(
                    "{MACRO}: {label} has no function @{sym}; its public functions: {}",
                    public.join(", ")
                ),
            )
        });
    }
    if let Some(main) = functions.iter().find(|f| f.name == "main") {
        return Ok(main);
    }
    let mut publics = functions.iter().filter(|f| f.public);
    match (publics.next(), publics.next()) {
        (Some(f), None) => Ok(f),
        (None, _) => Err(at(format!("{label} has no public function"))),
        (Some(_), Some(_)) => Err(at(format!(
            "{label} has no @main and several public functions ({}); name one after the \
             source (`fn {} = ... {}`), or compile them all with `mod {} = ...`",
            public.join(", "),
            item.name,
            public[0],
            item.name
        ))),
    }
}

/// A MLIR symbol or value name as a Rust identifier, if it is one (keywords are not).
fn rust_name(s: &str) -> Option<String> {
    syn::parse_str::<Ident>(s).ok().map(|i| i.to_string())
}

/// The checked fn of an imported function.
fn fn_def(
    f: &Function,
    name: Ident,
    vis: &syn::Visibility,
    attrs: &[syn::Attribute],
    label: &str,
    at: &dyn Fn(String) -> syn::Error,
) -> syn::Result<FnDef> {
    if !f.checks.is_empty() {
        return Err(at(format!(
            "{label}:{}: @{} holds check.* assertions (StableHLO's interpreter tests); those \
             run with xla_core::stablehlo::import::run, not compiled",
            f.checks[0].pos, f.name
        )));
    }
    let c = &f.computation;
    let mut names = vec![None; c.params.len()];
    for i in &c.instrs {
        if let Op::Parameter { index, name } = &i.op {
            if let Some(slot) = names.get_mut(*index) {
                *slot = rust_name(name);
            }
        }
    }
    let mut params: Vec<(Ident, xla_core::Shape)> = Vec::with_capacity(c.params.len());
    for (i, (n, s)) in names.into_iter().zip(&c.params).enumerate() {
        // A MLIR name that is no Rust identifier, or repeats one, becomes `argN`.
        let n = n
            .filter(|n| !params.iter().any(|(p, _)| p == n))
            .unwrap_or_else(|| format!("arg{i}"));
        params.push((Ident::new(&n, name.span()), s.clone()));
    }
    let signature: Vec<String> = params.iter().map(|(p, s)| format!("{p}: {s}")).collect();
    let doc = format!(
        "`@{}` of `{label}` (StableHLO, compiled by `stablehlo!`): `({}) -> {}`.",
        f.name,
        signature.join(", "),
        c.result_shape()
    );
    let mut attrs = attrs.to_vec();
    attrs.push(syn::parse_quote!(#[doc = #doc]));
    Ok(FnDef {
        attrs,
        vis: vis.clone(),
        name,
        params,
        result: c.result_shape().clone(),
        computation: f.computation.clone(),
    })
}

#[cfg(test)]
mod tests;
