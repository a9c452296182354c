//! Two reductions of one operand space in one pass: a variadic Reduce of two f32 (f64)
//! operands whose reducer is `(a0, a1, b0, b1) -> (a0 op0 b0, a1 op1 b1)` (add, max or min),
//! its innermost operand dimension reduced (BatchNorm's sum and sum of squares). Each output
//! runs the single-output vector code's arithmetic exactly (four per-lane partial
//! accumulators, combined in the same order, then the scalar tail, then the init), so its
//! bits are those of a Reduce of its own; the operand's elements are read once for both.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::{BinaryOp, Computation, ElementType, Op};

use super::super::codegen_expr::{no_local, var, vector_stmts, vectorisable, Access};
use super::super::codegen_loops::Space;
use super::super::codegen_rt::{lanes_of, lit_usize, max_lanes, rust_type, vector_type, vfloat_of};
use super::super::fuse::{Expr, ExprId, Src};
use super::combiners;

/// What [`pair_rows`] reads of a reduce kernel.
pub(super) struct Pair<'a> {
    pub space: &'a Space,
    pub red: &'a [usize],
    pub vars: &'a [TokenStream],
    pub exprs: &'a [Expr],
    pub operands: &'a [ExprId],
    pub inits: &'a [Ident],
    pub binds: &'a TokenStream,
    pub g_used: bool,
    pub computation: &'a Computation,
    pub tys: &'a [ElementType],
    pub ws: &'a [Ident],
    pub out_n: i64,
    pub red_n: i64,
    pub per_task: i64,
    pub slice: &'a dyn Fn(&Src) -> TokenStream,
}

/// `(op0, op1)` when the reducer is `(a0, a1, b0, b1) -> (a0 op0 b0, a1 op1 b1)` with each op
/// add, max or min (either operand order).
fn pair_ops(c: &Computation) -> Option<[BinaryOp; 2]> {
    if c.params.len() != 4 {
        return None;
    }
    let root = c.instr(c.root);
    if !matches!(root.op, Op::Tuple) || root.operands.len() != 2 {
        return None;
    }
    let param = |id: xla_core::InstrId| match c.instr(id).op {
        Op::Parameter { index, .. } => Some(index),
        _ => None,
    };
    let mut ops = [BinaryOp::Add; 2];
    for (k, op) in ops.iter_mut().enumerate() {
        let e = c.instr(root.operands[k]);
        let Op::Binary(b) = e.op else { return None };
        if !matches!(b, BinaryOp::Add | BinaryOp::Max | BinaryOp::Min) || e.operands.len() != 2 {
            return None;
        }
        let mut ps = [param(e.operands[0])?, param(e.operands[1])?];
        ps.sort_unstable();
        if ps != [k, k + 2] {
            return None;
        }
        *op = b;
    }
    Some(ops)
}

/// The kernel's code, or `None` when the reduction is not of this form (then the general
/// variadic path runs).
pub(super) fn pair_rows(p: &Pair<'_>) -> Option<TokenStream> {
    let ops = pair_ops(p.computation)?;
    let t = p.tys[0];
    let rank = p.space.ext.len();
    let inner = rank.checked_sub(1)?;
    let vt = vector_type(t)?;
    let ok = p.tys.len() == 2
        && p.tys[1] == t
        && p.red.last() == Some(&inner)
        && p.space.ext[inner] >= max_lanes(t)
        && vectorisable(p.exprs, p.operands, t);
    if !ok {
        return None;
    }
    let vf = vfloat_of(&vt);
    let l = lanes_of(&vt);
    let rl = lit_usize(p.space.ext[inner]);
    let et = rust_type(t);
    let mut vars_v = p.vars.to_vec();
    vars_v[inner] = quote!(j);
    let acc_v = Access {
        slice: p.slice,
        vars: &vars_v,
        local: &no_local,
    };
    let v_stmts = vector_stmts(p.exprs, p.operands, &acc_v, &vt, inner);
    let xs: Vec<Ident> = p.operands.iter().map(|&e| var(e)).collect();
    let comb: Vec<_> = ops.iter().map(|&b| combiners(b, t, &vf)).collect();
    let v = |k: usize, u: usize| format_ident!("v{}_{}", k, u);
    let s = |k: usize| format_ident!("s{}", k);
    // One unrolled step: both outputs' accumulators `u` take their operand's vector.
    let step = |u: usize| -> TokenStream {
        let upd = (0..2).map(|k| {
            let (acc, x, vc) = (v(k, u), &xs[k], &comb[k].1);
            quote!(#acc = #vc(#acc, #x);)
        });
        quote!(#(#upd)*)
    };
    let unrolled = (0..4usize).map(|u| {
        let lane_off = if u == 0 {
            quote!()
        } else {
            let u = lit_usize(u);
            quote!(+ #u * #l)
        };
        let st = step(u);
        quote!({ let j = jb * 4 * #l #lane_off; #v_stmts #st })
    });
    let first_step = step(0);
    let fold = (0..2).map(|k| {
        let (x, sk, sc) = (&xs[k], s(k), &comb[k].3);
        quote! {
            let mut tail = [<#et as ::core::default::Default>::default(); #l];
            #vf::store(#x, &mut tail[..]);
            for q in lo..#l {
                #sk = #sc(#sk, tail[q]);
            }
        }
    });
    let inner_loops = quote! {
        for jb in 0..#rl / (4 * #l) { #(#unrolled)* }
        for jv in (#rl / (4 * #l)) * 4..#rl.div_ceil(#l) {
            let (j, lo) = window(jv, #l, #rl);
            #v_stmts
            if lo == 0 {
                #first_step
            } else {
                #(#fold)*
            }
        }
    };
    let mut loops = inner_loops;
    for &gi in p.red[..p.red.len() - 1].iter().rev() {
        let i = &p.vars[gi];
        let e = lit_usize(p.space.ext[gi]);
        loops = quote!(for #i in 0..#e { #loops });
    }
    let decls = (0..2).map(|k| {
        let id = &comb[k].0;
        let (a, b, c, d, sk) = (v(k, 0), v(k, 1), v(k, 2), v(k, 3), s(k));
        quote! {
            let mut #a = #vf::splat(#id); let mut #b = #vf::splat(#id);
            let mut #c = #vf::splat(#id); let mut #d = #vf::splat(#id);
            let mut #sk = #id;
        }
    });
    let results = (0..2).map(|k| {
        let (_, vc, vr, sc) = &comb[k];
        let (a, b, c, d, sk, init) = (v(k, 0), v(k, 1), v(k, 2), v(k, 3), s(k), &p.inits[k]);
        quote!(#sc(#init, #sc(#vr(#vc(#vc(#a, #b), #vc(#c, #d))), #sk)))
    });
    let per_output = quote!({ #(#decls)* #loops (#(#results,)*) });
    let (w0, w1) = (&p.ws[0], &p.ws[1]);
    let binds = p.binds;
    let pairs = quote!(b0.iter_mut().zip(b1.iter_mut()));
    let (first, iter, g_bind) = if p.g_used {
        (
            quote!(first),
            quote!((r, (o0, o1)) in #pairs.enumerate()),
            quote!(let g = first + r; #binds),
        )
    } else {
        (quote!(_first), quote!((o0, o1) in #pairs), quote!())
    };
    let pt = lit_usize(p.per_task);
    let work = lit_usize(p.out_n * p.red_n.max(1));
    Some(quote! {
        let kern = |#first: usize, b0: &mut [#et], b1: &mut [#et]| {
            for #iter {
                #g_bind
                let (r0, r1) = #per_output;
                *o0 = r0;
                *o1 = r1;
            }
        };
        if #work >= ::xla_aot::__rt::xla_kernels::par::PAR_MIN_ELEMENTS {
            use ::xla_aot::__rt::rayon::prelude::*;
            #w0.par_chunks_mut(#pt)
                .zip(#w1.par_chunks_mut(#pt))
                .enumerate()
                .for_each(|(b, (b0, b1))| kern(b * #pt, b0, b1));
        } else {
            kern(0, #w0, #w1);
        }
    })
}
