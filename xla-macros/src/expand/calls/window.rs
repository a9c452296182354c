//! ReduceWindow as calls of `xla_kernels::window`: the window becomes a descriptor of
//! compile-time constants. One operand: `window::reduce_window` with the library's SIMD add,
//! max or min for f32/f64 (a reducer that is exactly `|a, b| a op b`), else the computation
//! inlined in a `Scalar` combiner; several operands: `window::visit` with the computation
//! inlined per tap over all outputs.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{BinaryOp, Computation, ElementType, Op, Window};

use super::super::codegen_rt::{lit_usize, rust_type};
use super::CallCode;

/// `&[a, b, ..]` of usize literals.
fn list(v: impl IntoIterator<Item = i64>) -> TokenStream {
    let v: Vec<TokenStream> = v.into_iter().map(lit_usize).collect();
    quote!(&[#(#v),*])
}

/// The library's vector combiner for `f`, when `f` is `|a, b| a op b` of f32 or f64.
fn simd_op(f: &Computation, ty: ElementType) -> Option<TokenStream> {
    if !matches!(ty, ElementType::F32 | ElementType::F64) || f.params.len() != 2 {
        return None;
    }
    let root = f.instr(f.root);
    let param = |k: usize| match root.operands.get(k).map(|&o| &f.instr(o).op) {
        Some(Op::Parameter { index, .. }) => Some(*index),
        _ => None,
    };
    if (param(0), param(1)) != (Some(0), Some(1)) {
        return None;
    }
    match root.op {
        Op::Binary(BinaryOp::Add) => Some(quote!(Add)),
        Op::Binary(BinaryOp::Max) => Some(quote!(Max)),
        Op::Binary(BinaryOp::Min) => Some(quote!(Min)),
        _ => None,
    }
}

/// `window::WindowDesc { .. }` of `window` over an operand of `operand` dims with `out`
/// window positions.
fn desc(window: &Window, operand: &[i64], out: &[i64]) -> TokenStream {
    let k = quote!(::xla_aot::__rt::xla_kernels::window);
    let (operand, out) = (list(operand.iter().copied()), list(out.iter().copied()));
    let size = list(window.dimensions.iter().copied());
    let strides = list(window.strides.iter().copied());
    let lows = window
        .padding
        .iter()
        .map(|&(lo, _)| proc_macro2::Literal::i64_suffixed(lo));
    let bd = list(window.base_dilations.iter().copied());
    let wd = list(window.window_dilations.iter().copied());
    quote!(#k::WindowDesc {
        operand: #operand,
        out: #out,
        dimensions: #size,
        strides: #strides,
        padding_low: &[#(#lows),*],
        base_dilations: #bd,
        window_dilations: #wd,
    })
}

/// A two-parameter scalar computation of `(ty, ty)` as a closure `|a: T, b: T| -> R`.
fn closure(f: &Computation, ty: ElementType, result: ElementType) -> Result<TokenStream, String> {
    let (stmts, outs) = super::super::inline::scalar_call(f, &[(quote!(a), ty), (quote!(b), ty)])?;
    let (t, r, o) = (rust_type(ty), rust_type(result), &outs[0]);
    Ok(quote!(|a: #t, b: #t| -> #r { #stmts #o }))
}

/// `w = SelectAndScatter(x, select, window, source, init, scatter)`.
pub(crate) fn select_and_scatter(
    ins: &[Ident],
    dims: &[Vec<i64>],
    ty: ElementType,
    window: &Window,
    select: &Computation,
    scatter: &Computation,
    w: &Ident,
) -> Result<CallCode, String> {
    let k = quote!(::xla_aot::__rt::xla_kernels::window);
    let desc = desc(window, &dims[0], &dims[1]);
    let select = closure(select, ty, ElementType::Pred)?;
    let scatter = closure(scatter, ty, ty)?;
    let (x, source, init) = (&ins[0], &ins[1], &ins[2]);
    let body = quote! {
        let desc = #desc;
        // Shape inference checked the window; the kernel cannot reject it.
        if #k::select_and_scatter(&desc, #x, #source, #init[0], #w, #select, #scatter).is_err() {
            panic!("xla!: internal error: the select_and_scatter kernel rejected its compile-time shapes")
        }
    };
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body,
    })
}

/// `(w..) = ReduceWindow(x.., init.., f, window)`.
pub(crate) fn reduce_window(
    ins: &[Ident],
    dims: &[Vec<i64>],
    out: &[i64],
    tys: &[ElementType],
    window: &Window,
    f: &Computation,
    ws: &[Ident],
) -> Result<CallCode, String> {
    let n = ws.len();
    let k = quote!(::xla_aot::__rt::xla_kernels::window);
    let (xs, inits) = (&ins[..n], &ins[n..]);
    let desc_fields = desc(window, &dims[0], out);
    let a: Vec<Ident> = (0..n).map(|i| format_ident!("a{}", i)).collect();
    let b: Vec<Ident> = (0..n).map(|i| format_ident!("b{}", i)).collect();
    let args: Vec<(TokenStream, ElementType)> = a
        .iter()
        .chain(&b)
        .zip(tys[..n].iter().chain(&tys[..n]))
        .map(|(v, &t)| (quote!(#v), t))
        .collect();
    let fail = quote!(panic!(
        "xla!: internal error: the reduce_window kernel rejected its compile-time shapes"
    ));
    // Shape inference checked the window; the kernel cannot reject it.
    let body = if n == 1 {
        let (x, i, w) = (&xs[0], &inits[0], &ws[0]);
        let combiner = match simd_op(f, tys[0]) {
            Some(op) => quote!(#k::Simd::#op),
            None => {
                let (stmts, outs) = super::super::inline::scalar_call(f, &args)?;
                let (a, b, r, t) = (&a[0], &b[0], &outs[0], rust_type(tys[0]));
                quote!(#k::Scalar(|#a: #t, #b: #t| -> #t { #stmts #r }))
            }
        };
        quote! {
            let desc = #desc_fields;
            if #k::reduce_window(&desc, #x, #i[0], #w, &#combiner).is_err() {
                #fail
            }
        }
    } else {
        let (stmts, outs) = super::super::inline::scalar_call(f, &args)?;
        if outs.len() != n {
            return Err("ReduceWindow: the computation returns the wrong number of values".into());
        }
        let r: Vec<Ident> = (0..n).map(|i| format_ident!("r{}", i)).collect();
        let (x0, w0) = (&xs[0], &ws[0]);
        quote! {
            let desc = #desc_fields;
            #(#ws.fill(#inits[0]);)*
            let (in_len, out_len) = (#x0.len(), #w0.len());
            let step = |o: usize, i: usize| {
                #(let #a = #ws[o];)*
                #(let #b = #xs[i];)*
                let (#(#r,)*) = { #stmts (#(#outs,)*) };
                #(#ws[o] = #r;)*
            };
            if #k::visit(&desc, in_len, out_len, step).is_err() {
                #fail
            }
        }
    };
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body,
    })
}
