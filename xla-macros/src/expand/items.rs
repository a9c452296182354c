//! The items generated for one fn: the fn itself (allocates its results), and its companion
//! module with `Scratch`, the allocation-free `into`, `computation`, `stablehlo` and
//! `run_literals`. Every path is absolute (`::xla_aot::...`), so nothing of the user's scope
//! is captured and no user name is shadowed.

use std::collections::HashSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use xla_core::{ArrayShape, Shape};

use super::codegen_rt::{lit_usize, module_imports, param_ident, tensor_args, tensor_type};
use super::fuse::{Fused, KernelKind};
use super::plan::Plan;
use super::program::program;
use crate::model::FnDef;

/// Clippy lints that are noise on generated loops (index arithmetic with constant strides,
/// many parameters, `x * 1`-style offsets, vector loops whose constant trip count is 0 for
/// some lane widths).
fn clippy_allows() -> TokenStream {
    quote!(#[allow(
        clippy::too_many_arguments,
        clippy::ptr_arg,
        clippy::needless_range_loop,
        clippy::identity_op,
        clippy::erasing_op,
        clippy::let_and_return,
        clippy::unnecessary_cast,
        clippy::excessive_precision,
        clippy::approx_constant,
        clippy::manual_memcpy,
        clippy::modulo_one,
        clippy::unreadable_literal,
        clippy::double_parens,
        clippy::type_complexity,
        clippy::absurd_extreme_comparisons,
        clippy::unused_unit,
        clippy::eq_op,
        clippy::manual_slice_size_calculation,
        clippy::assign_op_pattern,
        clippy::useless_conversion,
        clippy::precedence,
        clippy::redundant_closure_call,
        clippy::reversed_empty_ranges
    )])
}

/// A name not among the user's parameter names.
fn fresh(base: &str, taken: &HashSet<String>) -> Ident {
    let mut s = base.to_string();
    while taken.contains(&s) {
        s.push('_');
    }
    format_ident!("{}", s)
}

/// The Rust type of a parameter of the fn and of `into`: `impl AsView<T, D..>` (so `&tensor`
/// and a `TensorView` over the caller's memory both work), or a tuple of them.
pub(crate) fn param_type(s: &Shape) -> Result<TokenStream, String> {
    match s {
        Shape::Array(a) => {
            let t = tensor_args(a)?;
            Ok(quote!(impl ::xla_aot::AsView<#t>))
        }
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(param_type).collect::<Result<_, _>>()?;
            Ok(quote!((#(#e,)*)))
        }
        Shape::Token => Ok(quote!(::xla_aot::Token)),
    }
}

/// The Rust type of a parameter of `into_views`: `TensorView<'_, T, D..>`, or a tuple of them.
fn view_type(s: &Shape) -> Result<TokenStream, String> {
    match s {
        Shape::Array(a) => {
            let t = tensor_args(a)?;
            Ok(quote!(::xla_aot::TensorView<'_, #t>))
        }
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(view_type).collect::<Result<_, _>>()?;
            Ok(quote!((#(#e,)*)))
        }
        Shape::Token => Ok(quote!(::xla_aot::Token)),
    }
}

/// The expression viewing parameter `access` (an `impl AsView`, or a tuple of them) as the
/// `TensorView` (tuple) `into_views` takes.
fn view_expr(s: &Shape, access: TokenStream) -> TokenStream {
    match s {
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let i = syn::Index::from(i);
                    view_expr(t, quote!((#access).#i))
                })
                .collect();
            quote!((#(#e,)*))
        }
        Shape::Array(_) => quote!(::xla_aot::AsView::view(&#access)),
        Shape::Token => access,
    }
}

/// The Rust type of a result: `Tensor<..>`, or a tuple of them.
fn result_type(s: &Shape) -> Result<TokenStream, String> {
    match s {
        Shape::Array(a) => tensor_type(a),
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(result_type).collect::<Result<_, _>>()?;
            Ok(quote!((#(#e,)*)))
        }
        Shape::Token => Ok(quote!(::xla_aot::Token)),
    }
}

/// The array leaves of a shape, left to right.
fn leaves(s: &Shape, out: &mut Vec<ArrayShape>) {
    match s {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(ts) => ts.iter().for_each(|t| leaves(t, out)),
        Shape::Token => {}
    }
}

/// Rebuild a result tree from the flat output variables (consumed left to right).
fn tree_of(s: &Shape, next: &mut impl Iterator<Item = TokenStream>) -> TokenStream {
    match s {
        Shape::Array(_) => next.next().unwrap_or_else(|| quote!(())),
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(|t| tree_of(t, next)).collect();
            quote!((#(#e,)*))
        }
        Shape::Token => quote!(::xla_aot::Token),
    }
}

/// The generated items of one fn.
pub(crate) fn fn_items(
    fd: &FnDef,
    fused: &Fused,
    plan: &Plan,
    computation: TokenStream,
) -> Result<TokenStream, String> {
    let name = &fd.name;
    let vis = &fd.vis;
    let attrs = &fd.attrs;
    let taken: HashSet<String> = fd.params.iter().map(|(i, _)| i.to_string()).collect();
    let mut out_leaves = Vec::new();
    leaves(&fd.result, &mut out_leaves);
    if out_leaves.len() != fused.outputs.len() {
        return Err("internal: output count differs from the result type".into());
    }
    // Output slots are written in the declared result's layout.
    let out_types: Vec<TokenStream> = out_leaves
        .iter()
        .map(tensor_type)
        .collect::<Result<_, _>>()?;
    let single = matches!(fd.result, Shape::Array(_));
    let out_names: Vec<Ident> = if single {
        vec![fresh("out", &taken)]
    } else {
        (0..out_leaves.len())
            .map(|i| fresh(&format!("out{i}"), &taken))
            .collect()
    };
    let uses_scratch = !plan.buffers.is_empty()
        || fused
            .kernels
            .iter()
            .any(|k| matches!(k.kind, KernelKind::Dot { .. } | KernelKind::Call { .. }));
    let scratch_name = if uses_scratch {
        fresh("scratch", &taken)
    } else {
        fresh("_scratch", &taken)
    };
    let param_names: Vec<&Ident> = fd.params.iter().map(|(i, _)| i).collect();
    let param_types: Vec<TokenStream> = fd
        .params
        .iter()
        .map(|(_, s)| param_type(s))
        .collect::<Result<_, _>>()?;
    let param_view_types: Vec<TokenStream> = fd
        .params
        .iter()
        .map(|(_, s)| view_type(s))
        .collect::<Result<_, _>>()?;
    let param_views: Vec<TokenStream> = fd
        .params
        .iter()
        .map(|(p, s)| view_expr(s, quote!(#p)))
        .collect();
    // Outputs of `into` (`impl AsViewMut`) and of `into_views` (`TensorViewMut`).
    let out_args: Vec<TokenStream> = out_leaves
        .iter()
        .map(tensor_args)
        .collect::<Result<_, _>>()?;
    let result_ty = result_type(&fd.result)?;

    let prog = program(fused, plan)?;
    let used_params = &prog.used_params;
    let mut lhs = Vec::new();
    let mut rhs = Vec::new();
    for (index, path) in used_params {
        lhs.push(param_ident(*index, path));
        let mut access = {
            let p = param_names
                .get(*index)
                .ok_or("internal: parameter index out of range")?;
            quote!(#p)
        };
        for &i in path {
            let i = syn::Index::from(i);
            access = quote!((#access).#i);
        }
        rhs.push(quote!(#access.as_slice()));
    }
    // A parameter no kernel reads (it only fed dead code, e.g. a tuple element that is
    // dropped) is still part of the signature; without a use, rustc's unused-variable lint
    // fires at the user's token, and generated code must be warning-free.
    let unread: Vec<&Ident> = param_names
        .iter()
        .enumerate()
        .filter(|(i, _)| !used_params.iter().any(|(index, _)| index == i))
        .map(|(_, p)| *p)
        .collect();
    let internal_outs: Vec<Ident> = (0..out_names.len())
        .map(|i| format_ident!("out{}", i))
        .collect();
    let scratch_bind = if uses_scratch && scratch_name != "scratch" {
        quote!(let scratch = #scratch_name;)
    } else {
        quote!()
    };
    let kernels = &prog.calls;
    // A program with collectives: every entry point takes the device's `ctx` first and
    // returns the transport's Result.
    let ctx_name = fresh("ctx", &taken);
    let coll_err = quote!(::xla_aot::CollectiveError);
    let (ctx_param, ctx_arg, ctx_bind, q, ok, ret_unit) = if prog.spmd {
        (
            quote!(#ctx_name: &dyn ::xla_aot::Collectives,),
            quote!(#ctx_name,),
            quote!(let ctx = #ctx_name;),
            quote!(?),
            quote!(::core::result::Result::Ok),
            quote!(-> ::core::result::Result<(), #coll_err>),
        )
    } else {
        (quote!(), quote!(), quote!(), quote!(), quote!(), quote!())
    };
    let fn_result = if prog.spmd {
        quote!(::core::result::Result<#result_ty, #coll_err>)
    } else {
        quote!(#result_ty)
    };
    let lit_ctx_param = if prog.spmd {
        quote!(ctx: &dyn ::xla_aot::Collectives,)
    } else {
        quote!()
    };
    let (largest_elements, largest_flops, largest_copy) = (
        Literal::u64_unsuffixed(prog.largest.elements),
        Literal::u128_unsuffixed(prog.largest.flops),
        Literal::u64_unsuffixed(prog.largest.copy_bytes),
    );
    // A collective waits for its peers: run inside rayon's pool, devices on one pool could
    // occupy every pool thread waiting for peers whose work is queued behind them. An SPMD
    // program runs on the caller's thread; its loops still fork onto the pool, each briefly.
    let run_body = if prog.spmd {
        quote!(#kernels ::core::result::Result::Ok(()))
    } else {
        quote!(::xla_aot::__rt::xla_kernels::par::run_program(#largest_elements, #largest_flops, #largest_copy, || { #kernels }))
    };
    let kernel_fns = &prog.items;
    let fields: Vec<&Ident> = prog.fields.iter().map(|f| &f.name).collect();
    let field_types: Vec<&TokenStream> = prog.fields.iter().map(|f| &f.ty).collect();
    let field_inits: Vec<&TokenStream> = prog.fields.iter().map(|f| &f.init).collect();

    // The fn.
    let outer_outs: Vec<TokenStream> = out_names.iter().map(|o| quote!(#o)).collect();
    let result_tree = tree_of(&fd.result, &mut outer_outs.clone().into_iter());
    let allows = clippy_allows();
    let imports = module_imports();
    let sname = fresh("scratch", &taken);
    let doc_mod = format!("Companion items of the fn `{name}`: scratch buffers, the allocation-free `into`, the IR, StableHLO text and a literal entry point.");
    let doc_into = format!(
        "`{name}` writing its result into the caller's tensors or views: inputs are `&Tensor`s \
         or `TensorView`s (any `AsView`), outputs `&mut Tensor`s or `TensorViewMut`s (any \
         `AsViewMut`), over memory of any alignment. Allocates nothing: every \
         buffer is in `Scratch` (a fn with a Dot also grows GEMM's packing space on its first \
         call). Loops above `PAR_MIN_ELEMENTS` run on rayon; results do not depend on the \
         thread count."
    );
    let doc_into_views = format!(
        "`into` of `{name}` on views exactly (not generic: the code `into` and `{name}` \
         forward to)."
    );

    // run_literals: parameters from literals, tuple parameters by path.
    let n_params = fd.params.len();
    let n_params_lit = lit_usize(n_params);
    let signature: Vec<String> = fd.params.iter().map(|(p, s)| format!("{p}: {s}")).collect();
    // A layout's braces (`f32[2,3]{0,1}`) are escaped: the message is a format string.
    let signature = signature.join(", ").replace('{', "{{").replace('}', "}}");
    let arity_msg = format!("takes {n_params} arguments ({signature}), {{}} given");
    // Each argument is checked against its declared shape as a whole before any conversion,
    // so a wrong element type, rank, dimension or tuple arity is an Err naming the argument.
    // The shapes come from the decoded IR: one loop, not a shape expression per parameter.
    let name_strs: Vec<String> = fd.params.iter().map(|(p, _)| p.to_string()).collect();
    let arg_checks = quote! {
        const PARAM_NAMES: &[&str] = &[#(#name_strs),*];
        let ir = computation();
        for (i, (a, s)) in args.iter().zip(&ir.params).enumerate() {
            ::xla_aot::__rt::xla_core::Literal::check_shape(a, s).map_err(|e| {
                ::xla_aot::__rt::xla_core::Error::new(
                    stringify!(#name),
                    format!("argument {} (`{}`): {}", i, PARAM_NAMES[i], e.message),
                )
            })?;
        }
    };
    let mut arg_binds = TokenStream::new();
    let mut call_args = Vec::new();
    let mut any_tuple = false;
    for (i, (_, shape)) in fd.params.iter().enumerate() {
        let (bind, arg) = literal_arg(i, shape, &mut Vec::new(), &mut any_tuple)?;
        arg_binds.extend(bind);
        call_args.push(arg);
    }
    let lit_outs: Vec<Ident> = (0..out_names.len())
        .map(|i| format_ident!("lo{}", i))
        .collect();
    let lit_tree = literal_tree(&fd.result, &mut lit_outs.iter());
    let lit_call = if prog.spmd {
        quote! {
            into(ctx, #(#call_args,)* #(&mut #lit_outs,)* &mut scratch).map_err(|e| {
                ::xla_aot::__rt::xla_core::Error::new(stringify!(#name), e.to_string())
            })?;
        }
    } else {
        quote!(into(#(#call_args,)* #(&mut #lit_outs,)* &mut scratch);)
    };
    let tuple_helper = if any_tuple {
        quote! {
            fn tuple_leaf<'a>(
                l: &'a ::xla_aot::__rt::xla_core::Literal,
                path: &[usize],
            ) -> ::core::result::Result<&'a ::xla_aot::__rt::xla_core::Literal, ::xla_aot::__rt::xla_core::Error> {
                let mut cur = l;
                for &i in path {
                    match cur {
                        ::xla_aot::__rt::xla_core::Literal::Tuple(e) if i < e.len() => cur = &e[i],
                        _ => {
                            return ::core::result::Result::Err(::xla_aot::__rt::xla_core::Error::new(
                                "run_literals",
                                "a tuple argument does not have the declared tuple shape",
                            ))
                        }
                    }
                }
                ::core::result::Result::Ok(cur)
            }
        }
    } else {
        quote!()
    };

    Ok(quote! {
        #(#attrs)*
        #allows
        #vis fn #name(#ctx_param #(#param_names: #param_types),*) -> #fn_result {
            #(let mut #out_names = <#out_types>::zeros();)*
            let mut #sname = #name::Scratch::new();
            #name::into_views(#ctx_arg #(#param_views,)* #(#out_names.view_mut(),)* &mut #sname)#q;
            #ok(#result_tree)
        }

        #[doc = #doc_mod]
        #[allow(dead_code, non_snake_case, unused_parens, unused_variables)]
        #allows
        #vis mod #name {
            #imports
            #kernel_fns

            /// Scratch memory of the fn: intermediate buffers (reused across values whose
            /// lifetimes do not overlap) and GEMM packing space. Allocated once by `new`.
            pub struct Scratch {
                #(#fields: #field_types,)*
            }

            impl Scratch {
                /// Allocates every buffer the fn needs.
                pub fn new() -> Self {
                    Scratch { #(#fields: #field_inits,)* }
                }
            }

            impl ::core::default::Default for Scratch {
                fn default() -> Self {
                    Self::new()
                }
            }

            #[doc = #doc_into]
            #[inline]
            pub fn into(#ctx_param #(#param_names: #param_types,)* #(mut #out_names: impl ::xla_aot::AsViewMut<#out_args>,)* #scratch_name: &mut Scratch) #ret_unit {
                into_views(
                    #ctx_arg
                    #(#param_views,)*
                    #(::xla_aot::AsViewMut::view_mut(&mut #out_names),)*
                    #scratch_name,
                )
            }

            #[doc = #doc_into_views]
            pub fn into_views(#ctx_param #(#param_names: #param_view_types,)* #(mut #out_names: ::xla_aot::TensorViewMut<'_, #out_args>,)* #scratch_name: &mut Scratch) #ret_unit {
                let (#(#lhs,)* #(#internal_outs,)*) = (#(#rhs,)* #(#out_names.as_mut_slice(),)*);
                #(let _ = #unread;)*
                #scratch_bind
                #ctx_bind
                #run_body
            }

            /// The fn's IR, as the macro checked it (decoded from the compact form the macro
            /// wrote, `xla_core::codec`).
            pub fn computation() -> ::xla_aot::__rt::xla_core::Computation {
                const IR: &[u8] = #computation;
                match ::xla_aot::__rt::xla_core::codec::decode(IR) {
                    ::core::result::Result::Ok(c) => c,
                    // Only a macro and a runtime of different xla-core versions get here.
                    ::core::result::Result::Err(e) => ::core::panic!("xla!: {}: {}", stringify!(#name), e),
                }
            }

            /// The fn as StableHLO text (MLIR), for XLA.
            pub fn stablehlo() -> ::std::string::String {
                ::xla_aot::__rt::xla_core::stablehlo::to_stablehlo(&computation())
            }

            #tuple_helper

            /// Runs the fn on literals (row-major elements); `Err` naming the argument, the
            /// declared and the given shape when the count, an element type, a rank, a
            /// dimension, a tuple's arity or an array's element count differs.
            pub fn run_literals(
                #lit_ctx_param
                args: &[::xla_aot::__rt::xla_core::Literal],
            ) -> ::core::result::Result<::xla_aot::__rt::xla_core::Literal, ::xla_aot::__rt::xla_core::Error> {
                if args.len() != #n_params_lit {
                    return ::core::result::Result::Err(::xla_aot::__rt::xla_core::Error::new(
                        stringify!(#name),
                        format!(#arity_msg, args.len()),
                    ));
                }
                #arg_checks
                #arg_binds
                #(let mut #lit_outs = <#out_types>::zeros();)*
                let mut scratch = Scratch::new();
                #lit_call
                ::core::result::Result::Ok(#lit_tree)
            }
        }
    })
}

/// Bindings converting argument `i` (a literal, possibly a tuple) to tensors, and the
/// expression passing them to `into`.
fn literal_arg(
    i: usize,
    shape: &Shape,
    path: &mut Vec<usize>,
    any_tuple: &mut bool,
) -> Result<(TokenStream, TokenStream), String> {
    match shape {
        Shape::Array(a) => {
            let t = tensor_type(a)?;
            let mut name = format!("a{i}");
            for p in path.iter() {
                name.push_str(&format!("_{p}"));
            }
            let v = format_ident!("{}", name);
            let il = lit_usize(i);
            let lit = if path.is_empty() {
                quote!(&args[#il])
            } else {
                *any_tuple = true;
                let p = path.iter().map(|&x| lit_usize(x));
                quote!(tuple_leaf(&args[#il], &[#(#p),*])?)
            };
            Ok((quote!(let #v = <#t>::from_literal(#lit)?;), quote!(&#v)))
        }
        Shape::Tuple(ts) => {
            let mut binds = TokenStream::new();
            let mut args = Vec::new();
            for (k, t) in ts.iter().enumerate() {
                path.push(k);
                let (b, a) = literal_arg(i, t, path, any_tuple)?;
                path.pop();
                binds.extend(b);
                args.push(a);
            }
            Ok((binds, quote!((#(#args,)*))))
        }
        // The argument checks before the bindings have seen a token here.
        Shape::Token => Ok((quote!(), quote!(::xla_aot::Token))),
    }
}

/// The result literal: `to_literal` of each output tensor, tuples as `Literal::Tuple`.
fn literal_tree<'a>(s: &Shape, next: &mut impl Iterator<Item = &'a Ident>) -> TokenStream {
    match s {
        Shape::Array(_) => match next.next() {
            Some(v) => quote!(#v.to_literal()),
            None => quote!(::xla_aot::__rt::xla_core::Literal::Token),
        },
        Shape::Tuple(ts) => {
            let e: Vec<TokenStream> = ts.iter().map(|t| literal_tree(t, next)).collect();
            quote!(::xla_aot::__rt::xla_core::Literal::Tuple(vec![#(#e),*]))
        }
        Shape::Token => quote!(::xla_aot::__rt::xla_core::Literal::Token),
    }
}
