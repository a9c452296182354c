//! CustomCall as a call of the user's Rust fn: `target(operand views..., result views...)`,
//! each operand a `TensorView<'_, T, D..>` and each result a `TensorViewMut<'_, T, D..>` of the
//! declared shapes (row-major). The call is written with the span of the user's
//! `call_target_name = "..."`, so a missing fn or a wrong signature is rustc's error there.

use std::cell::RefCell;

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use xla_core::{ArrayShape, ElementType};

use super::super::codegen_rt::tensor_args;
use super::CallCode;

thread_local! {
    /// The targets of the program being expanded and where the user named them: one macro
    /// invocation runs on one thread from checking to expansion.
    static SPANS: RefCell<Vec<(String, Span)>> = const { RefCell::new(Vec::new()) };
}

/// Record where each target was named (`expand` does, before expanding the program).
pub(crate) fn set_target_spans(targets: &[(String, Span)]) {
    SPANS.with(|s| *s.borrow_mut() = targets.to_vec());
}

fn span_of(target: &str) -> Span {
    SPANS.with(|s| {
        s.borrow()
            .iter()
            .find(|(t, _)| t == target)
            .map_or_else(Span::call_site, |(_, sp)| *sp)
    })
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), respan(g.stream(), span));
                n.set_span(span);
                TokenTree::Group(n)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// `target(ins as views..., ws as mutable views...)`.
pub(crate) fn call(
    target: &str,
    ins: &[Ident],
    in_dims: &[Vec<i64>],
    in_tys: &[ElementType],
    outs: &[ArrayShape],
    ws: &[Ident],
) -> Result<CallCode, String> {
    let span = span_of(target);
    let path: syn::Path = syn::parse_str(target)
        .map_err(|e| format!("CustomCall: call_target_name {target:?} is not a Rust path: {e}"))?;
    let path = respan(quote!(#path), span);
    let mut views = Vec::new();
    let mut names = Vec::new();
    for (i, ((x, dims), &ty)) in ins.iter().zip(in_dims).zip(in_tys).enumerate() {
        let args = tensor_args(&ArrayShape::new(ty, dims))?;
        views.push(quote!(::xla_aot::TensorView::<#args>::new(#x)));
        names.push(format_ident!("arg{}", i, span = span));
    }
    for (i, (w, shape)) in ws.iter().zip(outs).enumerate() {
        let args = tensor_args(&ArrayShape::new(shape.ty, &shape.dims))?;
        views.push(quote!(::xla_aot::TensorViewMut::<#args>::new(#w)));
        names.push(format_ident!("res{}", i, span = span));
    }
    let pats = names.iter().map(|n| quote!(::core::result::Result::Ok(#n)));
    let call = quote_spanned!(span=> #path(#(#names),*););
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            let (#(#pats,)*) = (#(#views,)*) else {
                ::core::panic!("xla!: internal error: a CustomCall buffer does not fit its shape");
            };
            #call
        },
    })
}
