//! Fns with bounded dynamic dimensions (`f32[<=8, 3]`): the padder (`xla_core::padder`) makes
//! the computation static over arrays at their bounds plus one `s32[]` per dynamic dimension;
//! that static program compiles as any other fn (a hidden fn `__xla_padded_<name>` and its
//! module), and the user's fn wraps it: a dynamic parameter is a `&DynTensor` whose padded
//! buffer and sizes it passes on, a dynamic result a `DynTensor` built from the padded result
//! and the sizes the program returns. The companion module keeps the dynamic IR
//! (`computation`, `stablehlo`), runs literals of valid elements (`run_literals`, through
//! `padder::run_padded`), and re-exports the padded program as `padded` (its `Scratch` and
//! allocation-free `into`).

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::Ident;
use xla_core::padder::{self, SizeSlot};
use xla_core::{ArrayShape, ElementType, Shape};

use super::codegen_rt::{lit_usize, tensor_args};
use super::items::param_type;
use crate::model::FnDef;

/// `::xla_aot::DynTensor<T, D, MASK>` for a dynamic array (row-major only).
fn dyn_type(a: &ArrayShape) -> Result<TokenStream, String> {
    if a.layout.as_ref().is_some_and(|l| !l.is_row_major()) {
        return Err(format!(
            "{a}: a dynamic array with a layout has no Rust type (DynTensor is row-major)"
        ));
    }
    let plain = ArrayShape {
        layout: None,
        ..a.clone()
    };
    let args = tensor_args(&plain)?;
    let mask: u8 = a
        .dynamic
        .iter()
        .enumerate()
        .fold(0, |m, (d, &dy)| if dy { m | (1 << d) } else { m });
    let mask = proc_macro2::Literal::u8_unsuffixed(mask);
    Ok(quote!(::xla_aot::DynTensor<#args, #mask>))
}

/// The Rust type of a result leaf or tree: `DynTensor` where dynamic.
fn result_type(s: &Shape) -> Result<TokenStream, String> {
    match s {
        Shape::Array(a) if a.is_dynamic() => dyn_type(a),
        Shape::Array(a) => super::codegen_rt::tensor_type(a),
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(result_type).collect::<Result<_, _>>()?;
            Ok(quote!((#(#e,)*)))
        }
        Shape::Token => Ok(quote!(::xla_aot::Token)),
    }
}

/// The user's result rebuilt from the padded program's `(value, sizes...)`: `access` reaches
/// the leaf at `path` inside `value`; `sizes[k]` is the variable of result size slot `k`.
fn result_tree(
    s: &Shape,
    access: TokenStream,
    path: &mut Vec<usize>,
    slots: &[SizeSlot],
    sizes: &[Ident],
) -> TokenStream {
    match s {
        Shape::Array(a) if a.is_dynamic() => {
            let dims = a.dims.iter().enumerate().map(|(d, &b)| {
                let slot = slots.iter().position(|x| x.path == *path && x.dim == d);
                match slot {
                    Some(k) => {
                        let v = &sizes[k];
                        quote!(#v.value().max(0) as usize)
                    }
                    None => lit_usize(b),
                }
            });
            quote!(::xla_aot::DynTensor::from_program(#access, &[#(#dims),*]))
        }
        Shape::Array(_) | Shape::Token => access,
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    path.push(i);
                    let idx = syn::Index::from(i);
                    let r = result_tree(t, quote!(#access.#idx), path, slots, sizes);
                    path.pop();
                    r
                })
                .collect();
            quote!((#(#e,)*))
        }
    }
}

/// The items of a fn whose computation has dynamic dimensions (see the module docs).
pub(crate) fn expand_dynamic(f: &FnDef) -> Result<TokenStream, String> {
    let padded = padder::pad(&f.computation).map_err(|e| e.to_string())?;
    let name = &f.name;
    let vis = &f.vis;
    let attrs = &f.attrs;
    let inner = format_ident!("__xla_padded_{}", name);
    let spmd = f.computation.uses_collectives();

    // The wrapper's parameters and what it passes on.
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (p, s) in &f.params {
        match s {
            Shape::Array(a) if a.is_dynamic() => {
                let t = dyn_type(a)?;
                params.push(quote!(#p: &#t));
                args.push(quote!(#p.padded()));
            }
            s if padder::shape_dynamic(s) => {
                return Err(format!(
                    "parameter `{p}`: a tuple with dynamic dimensions ({s}) has no Rust type \
                     yet; pass its arrays as separate parameters"
                ))
            }
            s => {
                let t = param_type(s)?;
                params.push(quote!(#p: #t));
                args.push(quote!(#p));
            }
        }
    }
    for slot in &padded.param_sizes {
        let p = &f.params[slot.param].0;
        let d = lit_usize(slot.dim);
        args.push(quote!(&::xla_aot::Tensor::<i32, ::xla_aot::D0>::scalar(#p.size(#d) as i32)));
    }

    // The padded program as an ordinary fn.
    let mut inner_params: Vec<(Ident, Shape)> = f
        .params
        .iter()
        .map(|(p, s)| (p.clone(), padder::bound_shape(s)))
        .collect();
    for k in 0..padded.param_sizes.len() {
        inner_params.push((
            format_ident!("__size{}", k),
            Shape::scalar(ElementType::S32),
        ));
    }
    let inner_def = FnDef {
        attrs: vec![syn::parse_quote!(#[doc(hidden)])],
        vis: f.vis.clone(),
        name: inner.clone(),
        params: inner_params,
        result: padded.computation.result_shape().clone(),
        computation: Arc::new(padded.computation.clone()),
    };
    let inner_items = super::expand_fn(&inner_def)?;

    // The result.
    let ret_ty = result_type(&f.result)?;
    let (ctx_param, ctx_arg, q, ok, fn_ret) = if spmd {
        (
            quote!(ctx: &dyn ::xla_aot::Collectives,),
            quote!(ctx,),
            quote!(?),
            quote!(::core::result::Result::Ok),
            quote!(::core::result::Result<#ret_ty, ::xla_aot::CollectiveError>),
        )
    } else {
        (quote!(), quote!(), quote!(), quote!(), ret_ty.clone())
    };
    let body = if padded.result_sizes.is_empty() {
        quote!(#ok(#inner(#ctx_arg #(#args),*)#q))
    } else {
        let sizes: Vec<Ident> = (0..padded.result_sizes.len())
            .map(|k| format_ident!("__s{}", k))
            .collect();
        let tree = result_tree(
            &f.result,
            quote!(__v),
            &mut Vec::new(),
            &padded.result_sizes,
            &sizes,
        );
        quote! {
            let (__v, #(#sizes,)*) = #inner(#ctx_arg #(#args),*)#q;
            #ok(#tree)
        }
    };

    let bytes = xla_core::codec::encode(&f.computation);
    let ir = proc_macro2::Literal::byte_string(&bytes).into_token_stream();
    let doc_mod = format!(
        "Companion items of the fn `{name}` (bounded dynamic dimensions): its IR and StableHLO, \
         a literal entry point, and `padded`, the program at the bounds (its `Scratch` and \
         allocation-free `into` take the padded arrays, then one `s32[]` size per dynamic \
         dimension)."
    );
    Ok(quote! {
        #inner_items

        #(#attrs)*
        #vis fn #name(#ctx_param #(#params),*) -> #fn_ret {
            #body
        }

        #[doc = #doc_mod]
        #vis mod #name {
            pub use super::#inner as padded;

            /// The fn's IR with its dynamic dimensions, as the macro checked it.
            pub fn computation() -> ::xla_aot::__rt::xla_core::Computation {
                const IR: &[u8] = #ir;
                match ::xla_aot::__rt::xla_core::codec::decode(IR) {
                    ::core::result::Result::Ok(c) => c,
                    // Only a macro and a runtime of different xla-core versions get here.
                    ::core::result::Result::Err(e) => ::core::panic!("xla!: {}: {}", stringify!(#name), e),
                }
            }

            /// The fn as StableHLO text (MLIR), its dynamic dimensions as bounded types.
            pub fn stablehlo() -> ::std::string::String {
                ::xla_aot::__rt::xla_core::stablehlo::to_stablehlo(&computation())
            }

            /// Runs the fn on literals whose dynamic arrays hold their valid elements (dims
            /// the runtime sizes, at most the bounds); `Err` naming the argument otherwise.
            pub fn run_literals(
                #ctx_param
                args: &[::xla_aot::__rt::xla_core::Literal],
            ) -> ::core::result::Result<::xla_aot::__rt::xla_core::Literal, ::xla_aot::__rt::xla_core::Error> {
                ::xla_aot::__rt::xla_core::padder::run_padded(&computation(), args, |_, padded_args| {
                    padded::run_literals(#ctx_arg padded_args)
                })
            }
        }
    })
}
