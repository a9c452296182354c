//! Scan's fast path: a cumulative sum, max or min (`|x, c| (c op x, c op x)`, the form
//! `jnp.cumsum` takes as a Scan) as one call of `xla_kernels::window::cumulative_scan`, the op
//! inlined as scalar code (the element semantics of every other path). Any other `to_apply`
//! is lowered by `graph.rs` as the While of `xla_core::builder::expand_scan`.

use proc_macro2::Ident;
use quote::quote;
use xla_core::builder::Builder;
use xla_core::{BinaryOp, Computation, ElementType, Op, Shape};

use super::super::codegen_rt::{lit_usize, rust_type};
use super::CallCode;

/// `Some((op, carry_first))` when `to_apply` (one input, one carry) returns `(r, r)` with
/// `r = c op x` (`carry_first`) or `x op c`, `op` add, max or min, `x` and `c` of one shape.
pub(crate) fn cumulative_op(
    to_apply: &Computation,
    n_operands: usize,
    num_carries: usize,
) -> Option<(BinaryOp, bool)> {
    if n_operands != 2 || num_carries != 1 || to_apply.params.len() != 2 {
        return None;
    }
    if to_apply.params[0] != to_apply.params[1] {
        return None;
    }
    let root = to_apply.instr(to_apply.root);
    let (Op::Tuple, [a, b]) = (&root.op, root.operands.as_slice()) else {
        return None;
    };
    if a != b {
        return None;
    }
    let r = to_apply.instr(*a);
    let op = match r.op {
        Op::Binary(op @ (BinaryOp::Add | BinaryOp::Max | BinaryOp::Min)) => op,
        _ => return None,
    };
    let param = |k: usize| match r.operands.get(k).map(|&o| &to_apply.instr(o).op) {
        Some(Op::Parameter { index, .. }) => Some(*index),
        _ => None,
    };
    match (param(0)?, param(1)?) {
        (1, 0) => Some((op, true)),
        (0, 1) => Some((op, false)),
        _ => None,
    }
}

/// `(y, carry) = Scan(x, init)` cumulative by `op` along `dim`.
pub(crate) fn cum_scan(
    ins: &[Ident],
    dims: &[i64],
    ty: ElementType,
    (op, carry_first): (BinaryOp, bool),
    dim: usize,
    reverse: bool,
    ws: &[Ident],
) -> Result<CallCode, String> {
    let k = quote!(::xla_aot::__rt::xla_kernels::window);
    let (outer, n, inner) = (
        dims[..dim].iter().product::<i64>(),
        dims[dim],
        dims[dim + 1..].iter().product::<i64>(),
    );
    let (outer, n, inner) = (lit_usize(outer), lit_usize(n), lit_usize(inner));
    // `|acc, x| acc op x` (or `x op acc`) as one scalar computation, inlined.
    let f = {
        let mut b = Builder::new("cumulative");
        let acc = b
            .parameter(0, Shape::scalar(ty), "acc")
            .map_err(|e| e.to_string())?;
        let x = b
            .parameter(1, Shape::scalar(ty), "x")
            .map_err(|e| e.to_string())?;
        let (l, r) = if carry_first { (acc, x) } else { (x, acc) };
        let root = b.binary(op, l, r, None).map_err(|e| e.to_string())?;
        b.build(root).map_err(|e| e.to_string())?
    };
    let (stmts, outs) = super::super::inline::scalar_call(&f, &[(quote!(a), ty), (quote!(b), ty)])?;
    let (t, r) = (rust_type(ty), &outs[0]);
    let (x, init, y, c) = (&ins[0], &ins[1], &ws[0], &ws[1]);
    let body = quote! {
        let dims = #k::ScanDims { outer: #outer, n: #n, inner: #inner };
        if #k::cumulative_scan(dims, #x, #init, #reverse, #y, #c, |a: #t, b: #t| -> #t { #stmts #r })
            .is_err()
        {
            panic!("xla!: internal error: the cumulative_scan kernel rejected its compile-time shapes")
        }
    };
    Ok(CallCode {
        scratch: Vec::new(),
        items: quote!(),
        body,
    })
}
