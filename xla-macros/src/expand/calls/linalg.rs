//! Cholesky and TriangularSolve as calls of `xla_kernels::linalg` on the dense row-major
//! inputs, the kernel's scratch (one slot per parallel task) kept in the fn's `Scratch`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::ir::TransposeA;
use xla_core::ElementType;

use super::super::codegen_rt::{lit_usize, rust_type};
use super::{CallCode, ScratchField};

/// The scratch field of the linalg kernels for element type `ty`.
fn scratch(ty: ElementType) -> ScratchField {
    let t = rust_type(ty);
    let l = quote!(::xla_aot::__rt::xla_kernels::linalg);
    ScratchField {
        name: format_ident!("linalg"),
        ty: quote!(#l::LinalgScratch<#t>),
        init: quote!(#l::LinalgScratch::new()),
        shared: false,
    }
}

/// `(batch, rows, cols)` of a rank >= 2 array's matrices.
fn matrices(dims: &[i64]) -> (TokenStream, TokenStream, TokenStream) {
    let r = dims.len();
    let batch: i64 = dims[..r - 2].iter().product();
    (
        lit_usize(batch),
        lit_usize(dims[r - 2]),
        lit_usize(dims[r - 1]),
    )
}

/// `w = Cholesky(x, lower)`.
pub(crate) fn cholesky(
    x: &Ident,
    dims: &[i64],
    ty: ElementType,
    lower: bool,
    w: &Ident,
) -> CallCode {
    let (batch, n, _) = matrices(dims);
    CallCode {
        scratch: vec![scratch(ty)],
        items: quote!(),
        body: quote! {
            // Shape inference checked the shapes: the kernel cannot reject them.
            if ::xla_aot::__rt::xla_kernels::linalg::cholesky(#x, #w, #batch, #n, #lower, linalg).is_err() {
                panic!("xla!: internal error: the cholesky kernel rejected its compile-time shape");
            }
        },
    }
}

/// `w = TriangularSolve(a, b, ..)`.
pub(crate) fn triangular_solve(
    ins: &[Ident],
    dims: &[Vec<i64>],
    ty: ElementType,
    (left_side, lower, unit_diagonal): (bool, bool, bool),
    t: TransposeA,
    w: &Ident,
) -> CallCode {
    let l = quote!(::xla_aot::__rt::xla_kernels::linalg);
    let (batch, m, _) = matrices(&dims[0]);
    let (_, rows, cols) = matrices(&dims[1]);
    let k = if left_side { cols } else { rows };
    let t = match t {
        TransposeA::NoTranspose => quote!(#l::Transpose::No),
        TransposeA::Transpose => quote!(#l::Transpose::Transpose),
        TransposeA::Adjoint => quote!(#l::Transpose::Adjoint),
    };
    let (a, b) = (&ins[0], &ins[1]);
    CallCode {
        scratch: vec![scratch(ty)],
        items: quote!(),
        body: quote! {
            let sizes = (#batch, #m, #k);
            let flags = (#left_side, #lower, #unit_diagonal);
            // Shape inference checked the shapes: the kernel cannot reject them.
            if #l::triangular_solve(#a, #b, #w, sizes, flags, #t, linalg).is_err() {
                panic!("xla!: internal error: the triangular_solve kernel rejected its compile-time shapes");
            }
        },
    }
}
