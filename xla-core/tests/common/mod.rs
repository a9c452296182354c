//! Builders the StableHLO round-trip tests share: parameters, scalar reducers, one-op
//! programs.

use std::sync::Arc;

use xla_core::builder::{Builder, XlaOp};
use xla_core::element::ElementType;
use xla_core::ir::BinaryOp;
use xla_core::{Computation, Shape};

/// Parameter `i` of `b`: an array of `ty` and `dims`, named `p{i}`.
pub fn param(b: &mut Builder, i: usize, ty: ElementType, dims: &[i64]) -> XlaOp {
    b.parameter(i, Shape::array(ty, dims), &format!("p{i}"))
        .unwrap()
}

/// `(a, b) -> a op b` on scalars of `ty`.
pub fn scalar_fn(ty: ElementType, op: BinaryOp) -> Arc<Computation> {
    let mut b = Builder::new(format!("{op:?}"));
    let (x, y) = (param(&mut b, 0, ty, &[]), param(&mut b, 1, ty, &[]));
    let r = b.binary(op, x, y, None).unwrap();
    Arc::new(b.build(r).unwrap())
}

/// A program of one op applied to parameters of the given types, if the builder accepts it.
pub fn one_op(
    name: &str,
    params: &[(ElementType, &[i64])],
    f: impl FnOnce(&mut Builder, &[XlaOp]) -> xla_core::Result<XlaOp>,
) -> Option<Computation> {
    let mut b = Builder::new(name);
    let ps: Vec<XlaOp> = params
        .iter()
        .enumerate()
        .map(|(i, (t, d))| param(&mut b, i, *t, d))
        .collect();
    let r = f(&mut b, &ps).ok()?;
    Some(b.build(r).unwrap())
}
