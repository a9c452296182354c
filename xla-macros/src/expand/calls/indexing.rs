//! Gather and Scatter as calls of `xla_kernels::gather` and `xla_kernels::scatter`: the
//! dimension numbers become a descriptor of compile-time constants; Scatter's update
//! computation is inlined as scalar code in the closure the kernel calls per run.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{Computation, ElementType, GatherDimensionNumbers, ScatterDimensionNumbers};

use super::super::codegen_rt::lit_usize;
use super::CallCode;

/// `&[a, b, ..]` of usize literals.
fn list(v: impl IntoIterator<Item = i64>) -> TokenStream {
    let v: Vec<TokenStream> = v.into_iter().map(lit_usize).collect();
    quote!(&[#(#v),*])
}

/// The dimensions of `rank` in none of `out`, ascending.
fn remaining(rank: usize, out: &[&[i64]]) -> Vec<i64> {
    (0..rank as i64)
        .filter(|d| !out.iter().any(|o| o.contains(d)))
        .collect()
}

/// `Starts { dims, index_vector_dim, map, batching }` for an index array of `dims`.
fn starts(dims: &[i64], ivd: i64, map: &[i64], batching: (&[i64], &[i64])) -> TokenStream {
    let mut expanded = dims.to_vec();
    if ivd as usize == dims.len() {
        expanded.push(1);
    }
    let (d, m, v) = (list(expanded), list(map.iter().copied()), lit_usize(ivd));
    let pairs: Vec<TokenStream> = batching
        .0
        .iter()
        .zip(batching.1)
        .map(|(&a, &b)| {
            let (a, b) = (lit_usize(a), lit_usize(b));
            quote!((#a, #b))
        })
        .collect();
    quote!(::xla_aot::__rt::xla_kernels::gather::Starts {
        dims: #d,
        index_vector_dim: #v,
        map: #m,
        batching: &[#(#pairs),*],
    })
}

/// `w = Gather(x, indices)`: one kernel call, every dimension a constant.
pub(crate) fn gather(
    ins: &[Ident],
    dims: &[Vec<i64>],
    out: &[i64],
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    w: &Ident,
) -> CallCode {
    let k = quote!(::xla_aot::__rt::xla_kernels::gather);
    let st = starts(
        &dims[1],
        dn.index_vector_dim,
        &dn.start_index_map,
        (&dn.operand_batching_dims, &dn.start_indices_batching_dims),
    );
    let window = remaining(
        dims[0].len(),
        &[&dn.collapsed_slice_dims, &dn.operand_batching_dims],
    );
    let (operand, sizes, out, offset, window) = (
        list(dims[0].iter().copied()),
        list(slice_sizes.iter().copied()),
        list(out.iter().copied()),
        list(dn.offset_dims.iter().copied()),
        list(window),
    );
    // The inputs arrive cut to their values' lengths (`calls::call_kernel`).
    let (x, i) = (&ins[0], &ins[1]);
    CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            let desc = #k::GatherDesc {
                operand: #operand,
                starts: #st,
                slice_sizes: #sizes,
                out: #out,
                offset_dims: #offset,
                window_dims: #window,
            };
            // Shape inference checked the descriptor; the kernel cannot reject it.
            if #k::gather(&desc, #x, #i, #w).is_err() {
                panic!("xla!: internal error: the gather kernel rejected its compile-time shapes");
            }
        },
    }
}

/// `(w..) = Scatter(x.., indices, updates.., f)`: the operands copied to the outputs, then
/// `f` applied run by run in the kernel's order (the combination inlined).
pub(crate) fn scatter(
    ins: &[Ident],
    dims: &[Vec<i64>],
    tys: &[ElementType],
    dn: &ScatterDimensionNumbers,
    f: &Computation,
    ws: &[Ident],
) -> Result<CallCode, String> {
    let n = ws.len();
    let k = quote!(::xla_aot::__rt::xla_kernels::scatter);
    // The inputs arrive cut to their values' lengths (`calls::call_kernel`).
    let (xs, idx) = (&ins[..n], &ins[n]);
    let us: Vec<Ident> = (0..n).map(|k| format_ident!("u{}", k)).collect();
    let bind_us = (0..n).map(|k| {
        let (u, x) = (&us[k], &ins[n + 1 + k]);
        quote!(let #u = #x;)
    });
    let st = starts(
        &dims[n],
        dn.index_vector_dim,
        &dn.scatter_dims_to_operand_dims,
        (&dn.input_batching_dims, &dn.scatter_indices_batching_dims),
    );
    let window = remaining(
        dims[0].len(),
        &[&dn.inserted_window_dims, &dn.input_batching_dims],
    );
    let (operand, updates, uwin, window) = (
        list(dims[0].iter().copied()),
        list(dims[n + 1].iter().copied()),
        list(dn.update_window_dims.iter().copied()),
        list(window),
    );
    let apply = apply_run(f, &tys[..n], ws, &us)?;
    let (w0, u0) = (&ws[0], &us[0]);
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body: quote! {
            #(::xla_aot::__rt::xla_kernels::par::copy(#ws, #xs);)*
            #(#bind_us)*
            let desc = #k::ScatterDesc {
                operand: #operand,
                starts: #st,
                updates: #updates,
                update_window_dims: #uwin,
                window_dims: #window,
            };
            let (out_len, updates_len) = (#w0.len(), #u0.len());
            // Shape inference checked the descriptor; the kernel cannot reject it.
            if #k::scatter(&desc, out_len, #idx, updates_len, #apply).is_err() {
                panic!("xla!: internal error: the scatter kernel rejected its compile-time shapes");
            }
        },
    })
}

/// The closure `|o, u, n|` combining `w_k[o..o + n]` with `u_k[u..u + n]` by `f` (current
/// values first, then updates).
fn apply_run(
    f: &Computation,
    tys: &[ElementType],
    ws: &[Ident],
    us: &[Ident],
) -> Result<TokenStream, String> {
    let n = ws.len();
    let a: Vec<Ident> = (0..n).map(|i| format_ident!("a{}", i)).collect();
    let b: Vec<Ident> = (0..n).map(|i| format_ident!("b{}", i)).collect();
    let args: Vec<(TokenStream, ElementType)> = a
        .iter()
        .chain(&b)
        .zip(tys.iter().chain(tys))
        .map(|(v, &t)| (quote!(#v), t))
        .collect();
    let (stmts, outs) = super::super::inline::scalar_call(f, &args)?;
    if outs.len() != n {
        return Err("Scatter: the update computation returns the wrong number of values".into());
    }
    let r: Vec<Ident> = (0..n).map(|i| format_ident!("r{}", i)).collect();
    let combine = quote!(let (#(#r,)*) = { #stmts (#(#outs,)*) };);
    Ok(if n == 1 {
        let (w, u, a, b, r) = (&ws[0], &us[0], &a[0], &b[0], &r[0]);
        quote!(|o: usize, u: usize, n: usize| {
            for (d, s) in #w[o..o + n].iter_mut().zip(&#u[u..u + n]) {
                let (#a, #b) = (*d, *s);
                #combine
                *d = #r;
            }
        })
    } else {
        quote!(|o: usize, u: usize, n: usize| {
            for i in 0..n {
                #(let #a = #ws[o + i];)*
                #(let #b = #us[u + i];)*
                #combine
                #(#ws[o + i] = #r;)*
            }
        })
    })
}
