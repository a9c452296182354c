//! RaggedDot as a call of `xla_kernels::gemm::ragged::ragged_dot`: one GEMM per group on its
//! row range (mode 1) or `k` range (mode 2), on the dense row-major inputs addressed by
//! strides, so the work is one dense product's. The forms the kernel takes: at most one batch
//! dimension, one contracting dimension, one free dimension per side (the lhs's the ragged one
//! in mode 1), group sizes `[g]` or `[batch, g]`, no widened result. Anything else (and mode 3,
//! which is a DotGeneral) is inlined by graph.rs as `xla_core::builder::expand_ragged_dot`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::infer::ragged::{mode, RaggedMode};
use xla_core::{ElementType, RaggedDotDimensionNumbers, Shape};

use super::super::codegen_rt::lit_usize;
use super::{CallCode, ScratchField};

/// The kernel's description, fixed at compile time (`xla_kernels::gemm::ragged::RaggedDesc`).
#[derive(Clone, Debug)]
pub(crate) struct RaggedPlan {
    rows: bool,
    batch: i64,
    m: i64,
    k: i64,
    n: i64,
    groups: i64,
    a: [i64; 3],
    b: [i64; 3],
    b_group: i64,
    sizes_per_batch: bool,
}

/// Row-major strides of `dims`.
fn strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1];
    }
    s
}

/// The one dimension of `0..rank` in none of `taken`, if exactly one.
fn only_free(rank: usize, taken: &[&[i64]]) -> Option<usize> {
    let free: Vec<usize> = (0..rank)
        .filter(|&d| taken.iter().all(|t| !t.contains(&(d as i64))))
        .collect();
    (free.len() == 1).then(|| free[0])
}

/// The kernel's plan for a checked RaggedDot of operand `shapes` and result `out`, or `None`
/// when its form is not one the kernel takes (see the module).
pub(crate) fn plan(
    shapes: &[&Shape],
    dn: &RaggedDotDimensionNumbers,
    preferred: Option<ElementType>,
    out: &Shape,
) -> Option<RaggedPlan> {
    let [l, r, gs] = shapes else { return None };
    let (l, r, gs) = (l.as_array()?, r.as_array()?, gs.as_array()?);
    let d = &dn.dot;
    let one = |v: &[i64]| v.len() <= 1;
    let same_type = preferred.is_none_or(|t| t == l.ty) && out.as_array()?.ty == l.ty;
    if !same_type || !one(&d.lhs_batch_dimensions) || d.lhs_contracting_dimensions.len() != 1 {
        return None;
    }
    let (mode, ragged) = mode(dn, l.rank());
    let rows = match mode {
        RaggedMode::NonContracting => true,
        RaggedMode::Contracting => false,
        RaggedMode::Batch => return None,
    };
    let group: &[i64] = &dn.rhs_group_dimensions;
    let lf = only_free(
        l.rank(),
        &[&d.lhs_batch_dimensions, &d.lhs_contracting_dimensions],
    )?;
    let rf = only_free(
        r.rank(),
        &[
            &d.rhs_batch_dimensions,
            &d.rhs_contracting_dimensions,
            group,
        ],
    )?;
    if rows && lf != ragged {
        return None;
    }
    let (sl, sr) = (strides(&l.dims), strides(&r.dims));
    let (lc, rc) = (
        d.lhs_contracting_dimensions[0] as usize,
        d.rhs_contracting_dimensions[0] as usize,
    );
    let (lb, rb) = (
        d.lhs_batch_dimensions.first(),
        d.rhs_batch_dimensions.first(),
    );
    let batch_stride = |b: Option<&i64>, s: &[i64]| b.map_or(0, |&b| s[b as usize]);
    let batch = lb.map_or(1, |&b| l.dims[b as usize]);
    let g = gs.dims[gs.rank() - 1];
    Some(RaggedPlan {
        rows,
        batch,
        m: l.dims[lf],
        k: l.dims[lc],
        n: r.dims[rf],
        groups: g,
        a: [batch_stride(lb, &sl), sl[lf], sl[lc]],
        b: [batch_stride(rb, &sr), sr[rc], sr[rf]],
        b_group: group.first().map_or(0, |&x| sr[x as usize]),
        sizes_per_batch: gs.rank() > 1,
    })
}

/// `w = RaggedDot(lhs, rhs, group_sizes)` on `p` (the sizes' integer type read as i64 by the
/// kernel).
pub(crate) fn ragged_dot(ins: &[Ident], p: &RaggedPlan, w: &Ident) -> CallCode {
    let rg = quote!(::xla_aot::__rt::xla_kernels::gemm::ragged);
    let u = |x: i64| lit_usize(x);
    let mode = if p.rows {
        quote!(#rg::RaggedMode::Rows)
    } else {
        quote!(#rg::RaggedMode::Contracting)
    };
    let (batch, m, k, n, g) = (u(p.batch), u(p.m), u(p.k), u(p.n), u(p.groups));
    let a: Vec<TokenStream> = p.a.iter().map(|&x| u(x)).collect();
    let b: Vec<TokenStream> = p.b.iter().map(|&x| u(x)).collect();
    let (bg, per) = (u(p.b_group), p.sizes_per_batch);
    let (x, y, s) = (&ins[0], &ins[1], &ins[2]);
    CallCode {
        scratch: vec![ScratchField {
            name: format_ident!("gemm"),
            ty: quote!(::xla_aot::__rt::xla_kernels::gemm::GemmScratch),
            init: quote!(::xla_aot::__rt::xla_kernels::gemm::GemmScratch::new()),
            shared: true,
        }],
        items: quote!(),
        body: quote! {
            let desc = #rg::RaggedDesc {
                mode: #mode,
                batch: #batch,
                m: #m,
                k: #k,
                n: #n,
                groups: #g,
                a: [#(#a),*],
                b: [#(#b),*],
                b_group: #bg,
                sizes_per_batch: #per,
            };
            // Shape inference checked the shapes: the kernel cannot reject them (group sizes
            // are clamped, never refused).
            if #rg::ragged_dot(&desc, #x, #y, #s, #w, gemm).is_err() {
                panic!("xla!: internal error: the ragged_dot kernel rejected its compile-time shapes");
            }
        },
    }
}
