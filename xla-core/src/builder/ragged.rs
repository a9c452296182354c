//! RaggedDot on the builder and its expansion into primitive ops ([`expand_ragged_dot`]), the
//! one definition of its arithmetic, which the evaluator runs, the macro inlines when it does
//! not call its kernel, and the StableHLO export writes (XLA:CPU has no ragged-dot emitter for
//! modes 1 and 2; JAX lowers `jax.lax.ragged_dot_general` on CPU to the same masks and dot).

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::infer;
use crate::infer::ragged::{prefix_dims, RaggedMode};
use crate::ir::{
    BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, Op, RaggedDotDimensionNumbers,
};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

impl Builder {
    /// `RaggedDot(lhs, rhs, group_sizes)` with `dimension_numbers` (see [`Op::RaggedDot`]).
    pub fn ragged_dot(
        &mut self,
        [lhs, rhs, group_sizes]: [XlaOp; 3],
        dimension_numbers: &RaggedDotDimensionNumbers,
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let [l, r, g] = self.shapes([lhs, rhs, group_sizes])?;
        let out = infer::ragged_dot(l, r, g, dimension_numbers, preferred_element_type)?;
        let ids = vec![lhs.0, rhs.0, group_sizes.0];
        let op = Op::RaggedDot {
            dimension_numbers: dimension_numbers.clone(),
            preferred_element_type,
        };
        Ok(self.push(op, ids, Shape::Array(out)))
    }
}

/// The computation RaggedDot stands for on operands of `shapes` (lhs, rhs, group_sizes), as
/// JAX's CPU lowering writes it: group bounds `end = cumsum(gs)`, `start = end - gs` (in s64,
/// so no index wraps); an operand "masked" along its ragged dimension is broadcast to
/// `[g, ..]` with `x[j, .., i, ..]` kept where `start_j <= i < end_j` and zero elsewhere.
/// Mode 1: the masked lhs dotted with rhs, contracting the group dimension with rhs's (each
/// row sums its own group's products; the other groups add exact zeros). Mode 2: both
/// operands masked along the ragged contracting dimension, the group a batch dimension.
/// Mode 3: DotGeneral. `Err` when the shapes break a rule of [`infer::ragged_dot`].
pub fn expand_ragged_dot(
    shapes: &[&Shape],
    dn: &RaggedDotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<Computation> {
    let op = "RaggedDot";
    let [l, r, gs] = shapes else {
        let rule = format!(
            "takes (lhs, rhs, group_sizes), got {} operands",
            shapes.len()
        );
        return Err(Error::new(op, rule));
    };
    infer::ragged_dot(l, r, gs, dn, preferred_element_type)?;
    let (la, ra, ga) = (arr(l)?, arr(r)?, arr(gs)?);
    let (mode, ragged) = infer::ragged::mode(dn, la.rank());
    let mut b = Builder::new(op);
    let lhs = b.parameter(0, (*l).clone(), "lhs")?;
    let rhs = b.parameter(1, (*r).clone(), "rhs")?;
    let sizes = b.parameter(2, (*gs).clone(), "group_sizes")?;
    let d = &dn.dot;
    let incr = |v: &[i64]| v.iter().map(|x| x + 1).collect::<Vec<_>>();
    let root = match mode {
        RaggedMode::Batch => b.dot_general(lhs, rhs, d, preferred_element_type)?,
        RaggedMode::NonContracting => {
            let bounds = Bounds::new(&mut b, sizes, ga)?;
            let prefix = prefix_dims(dn, la.rank());
            let x = bounds.mask(&mut b, lhs, la, ragged, &prefix)?;
            let mut lc = incr(&d.lhs_contracting_dimensions);
            lc.push(0);
            let mut rc = d.rhs_contracting_dimensions.clone();
            rc.push(dn.rhs_group_dimensions[0]);
            let dot = DotDimensionNumbers {
                lhs_contracting_dimensions: lc,
                rhs_contracting_dimensions: rc,
                lhs_batch_dimensions: incr(&d.lhs_batch_dimensions),
                rhs_batch_dimensions: d.rhs_batch_dimensions.clone(),
            };
            b.dot_general(x, rhs, &dot, preferred_element_type)?
        }
        RaggedMode::Contracting => {
            let bounds = Bounds::new(&mut b, sizes, ga)?;
            let at = d
                .lhs_contracting_dimensions
                .iter()
                .position(|&c| c as usize == ragged);
            let rhs_ragged = d.rhs_contracting_dimensions[at.unwrap_or(0)] as usize;
            let rhs_dn = RaggedDotDimensionNumbers {
                dot: DotDimensionNumbers {
                    lhs_contracting_dimensions: d.rhs_contracting_dimensions.clone(),
                    rhs_contracting_dimensions: vec![],
                    lhs_batch_dimensions: d.rhs_batch_dimensions.clone(),
                    rhs_batch_dimensions: vec![],
                },
                lhs_ragged_dimensions: vec![rhs_ragged as i64],
                rhs_group_dimensions: vec![],
            };
            let x = bounds.mask(&mut b, lhs, la, ragged, &prefix_dims(dn, la.rank()))?;
            let y = bounds.mask(
                &mut b,
                rhs,
                ra,
                rhs_ragged,
                &prefix_dims(&rhs_dn, ra.rank()),
            )?;
            let mut lb = vec![0];
            lb.extend(incr(&d.lhs_batch_dimensions));
            let mut rb = vec![0];
            rb.extend(incr(&d.rhs_batch_dimensions));
            let dot = DotDimensionNumbers {
                lhs_contracting_dimensions: incr(&d.lhs_contracting_dimensions),
                rhs_contracting_dimensions: incr(&d.rhs_contracting_dimensions),
                lhs_batch_dimensions: lb,
                rhs_batch_dimensions: rb,
            };
            b.dot_general(x, y, &dot, preferred_element_type)?
        }
    };
    b.build(root)
}

fn arr(s: &Shape) -> Result<&ArrayShape> {
    s.as_array()
        .ok_or_else(|| Error::new("RaggedDot", format!("operands must be arrays, got {s}")))
}

/// Each group's index range: `start[.., j]` and `end[.., j]` (s64, shape of group_sizes).
struct Bounds {
    start: XlaOp,
    end: XlaOp,
    /// group_sizes's dims: `[g]` or `[prefix.., g]`.
    dims: Vec<i64>,
}

impl Bounds {
    fn new(b: &mut Builder, sizes: XlaOp, gs: &ArrayShape) -> Result<Self> {
        let sizes = b.convert(sizes, ElementType::S64)?;
        let end = cumsum_last(b, sizes, &gs.dims)?;
        let start = b.binary(BinaryOp::Sub, end, sizes, None)?;
        Ok(Bounds {
            start,
            end,
            dims: gs.dims.clone(),
        })
    }

    /// `x` broadcast to `[g, x..]`, zero outside each group's range of dimension `ragged`;
    /// `prefix` are x's dimensions a `[prefix.., g]` group_sizes is indexed by.
    fn mask(
        &self,
        b: &mut Builder,
        x: XlaOp,
        xa: &ArrayShape,
        ragged: usize,
        prefix: &[usize],
    ) -> Result<XlaOp> {
        let g = self.dims[self.dims.len() - 1];
        let mut dims = vec![g];
        dims.extend(&xa.dims);
        // group_sizes's dims land on the prefix dims (shifted past the group) and the group.
        let mut map: Vec<i64> = Vec::new();
        if self.dims.len() > 1 {
            map.extend(prefix.iter().map(|&p| p as i64 + 1));
        }
        map.push(0);
        let t = ElementType::S64;
        let row = b.iota(Shape::Array(ArrayShape::new(t, &dims)), ragged as i64 + 1)?;
        // BroadcastInDim wants increasing dimensions: group_sizes's axes put in that order.
        let mut perm: Vec<usize> = (0..map.len()).collect();
        perm.sort_by_key(|&i| map[i]);
        let sorted: Vec<i64> = perm.iter().map(|&i| map[i]).collect();
        let perm: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
        let spread = |b: &mut Builder, v: XlaOp| -> Result<XlaOp> {
            let v = b.transpose(v, &perm)?;
            b.broadcast_in_dim(v, &dims, &sorted)
        };
        let start = spread(b, self.start)?;
        let end = spread(b, self.end)?;
        let after = b.compare(ComparisonDirection::Le, false, start, row, None)?;
        let before = b.compare(ComparisonDirection::Lt, false, row, end, None)?;
        let inside = b.binary(BinaryOp::And, after, before, None)?;
        let spread: Vec<i64> = (1..=xa.rank() as i64).collect();
        let x = b.broadcast_in_dim(x, &dims, &spread)?;
        let zero = splat_zero(b, xa.ty, &dims)?;
        b.select(inside, x, zero)
    }
}

/// Zero of `ty` broadcast to `dims`.
fn splat_zero(b: &mut Builder, ty: ElementType, dims: &[i64]) -> Result<XlaOp> {
    let z = b.constant(Literal::zeros(&ArrayShape::new(ty, &[])));
    b.broadcast_in_dim(z, dims, &[])
}

/// Inclusive prefix sums of the s64 array `v[.., g]` along its last dimension:
/// `out[.., j] = sum(v[.., i] for i <= j)`, as a masked `[.., j, i]` array reduced over `i`
/// (integers: the order of the sum is immaterial).
fn cumsum_last(b: &mut Builder, v: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    let t = ElementType::S64;
    let p = dims.len() - 1;
    let g = dims[p];
    let mut sq = dims.to_vec();
    sq.push(g);
    let mut map: Vec<i64> = (0..p as i64).collect();
    map.push(p as i64 + 1);
    let rows = b.broadcast_in_dim(v, &sq, &map)?;
    let j = b.iota(Shape::Array(ArrayShape::new(t, &sq)), p as i64)?;
    let i = b.iota(Shape::Array(ArrayShape::new(t, &sq)), p as i64 + 1)?;
    let upto = b.compare(ComparisonDirection::Le, false, i, j, None)?;
    let zero = splat_zero(b, t, &sq)?;
    let terms = b.select(upto, rows, zero)?;
    let init = b.constant(Literal::zeros(&ArrayShape::new(t, &[])));
    let add = Arc::new(add_s64()?);
    b.reduce(&[terms], &[init], &add, &[p as i64 + 1])
}

/// `(a: s64[], b: s64[]) -> a + b`.
fn add_s64() -> Result<Computation> {
    let mut b = Builder::new("add");
    let x = b.parameter(0, Shape::scalar(ElementType::S64), "a")?;
    let y = b.parameter(1, Shape::scalar(ElementType::S64), "b")?;
    let s = b.binary(BinaryOp::Add, x, y, None)?;
    b.build(s)
}
