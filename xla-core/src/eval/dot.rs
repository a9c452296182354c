//! `DotGeneral`: `out[b, i, j] = sum_k lhs[b, i, k] * rhs[b, k, j]` with batch dims `b`, lhs
//! free dims `i`, rhs free dims `j` (each in operand order) and contracting dims `k`.
//!
//! Operands are first converted to the compute type (`infer::dot_compute_type`: the more precise
//! of the operands' type and the result type, which is the preferred element type when one was
//! given); the sum is accumulated in it, except f16/bf16 which accumulate in f32 and round once
//! at the end (as XLA:CPU), and then converted to the result type. The sum runs sequentially
//! over `k` in row-major order.

use super::elementwise::convert_data;
use super::{array, dims_usize, row_major_strides, strided_offsets, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::DotDimensionNumbers;
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::with_array_data;

/// Validated dimension numbers of one operand, as `usize`.
struct Side {
    dims: Vec<usize>,
    strides: Vec<usize>,
    batch: Vec<usize>,
    contracting: Vec<usize>,
    free: Vec<usize>,
}

impl Side {
    /// Check that `batch` and `contracting` are distinct, in-range dimensions of `shape`.
    fn new(
        ctx: &Ctx<'_>,
        which: &str,
        shape: &ArrayShape,
        batch: &[i64],
        contracting: &[i64],
    ) -> Result<Side> {
        let dims = dims_usize(ctx, &shape.dims)?;
        let rank = dims.len();
        let mut used = vec![false; rank];
        let mut take = |list: &[i64], what: &str| -> Result<Vec<usize>> {
            list.iter()
                .map(|&d| match usize::try_from(d).ok().filter(|&d| d < rank) {
                    Some(d) if !used[d] => {
                        used[d] = true;
                        Ok(d)
                    }
                    _ => Err(ctx.err(format!(
                        "{which} {what} dimensions {list:?} must be distinct dimensions of {shape}"
                    ))),
                })
                .collect()
        };
        let batch = take(batch, "batch")?;
        let contracting = take(contracting, "contracting")?;
        let free = (0..rank).filter(|&d| !used[d]).collect();
        let strides = row_major_strides(&dims);
        Ok(Side {
            dims,
            strides,
            batch,
            contracting,
            free,
        })
    }

    /// Sizes and strides of the listed dimensions.
    fn pick(&self, list: &[usize]) -> (Vec<usize>, Vec<usize>) {
        list.iter()
            .map(|&d| (self.dims[d], self.strides[d]))
            .unzip()
    }

    /// Offsets of every position of the listed dimensions, row-major.
    fn offsets(&self, list: &[usize]) -> Vec<usize> {
        let (sizes, strides) = self.pick(list);
        strided_offsets(&sizes, &strides)
    }
}

/// `DotGeneral(lhs, rhs, dimension_numbers)` into the instruction's element type.
pub(super) fn dot_general(
    ctx: &Ctx<'_>,
    lhs: &Literal,
    rhs: &Literal,
    dnums: &DotDimensionNumbers,
) -> Result<Literal> {
    let (ls, ld) = array(ctx, lhs)?;
    let (rs, rd) = array(ctx, rhs)?;
    let out_ty = ctx.out_array()?.ty;
    if ls.ty != rs.ty {
        return Err(ctx.err(format!(
            "operands must have the same element type: {ls} vs {rs}"
        )));
    }
    let l = Side::new(
        ctx,
        "lhs",
        ls,
        &dnums.lhs_batch_dimensions,
        &dnums.lhs_contracting_dimensions,
    )?;
    let r = Side::new(
        ctx,
        "rhs",
        rs,
        &dnums.rhs_batch_dimensions,
        &dnums.rhs_contracting_dimensions,
    )?;
    let (lb, _) = l.pick(&l.batch);
    let (rb, _) = r.pick(&r.batch);
    let (lc, _) = l.pick(&l.contracting);
    let (rc, _) = r.pick(&r.contracting);
    if lb != rb {
        return Err(ctx.err(format!("batch dimension sizes differ: {ls} vs {rs}")));
    }
    if lc != rc {
        return Err(ctx.err(format!("contracting dimension sizes differ: {ls} vs {rs}")));
    }

    // Result dims: batch, lhs free, rhs free.
    let (lf, _) = l.pick(&l.free);
    let (rf, _) = r.pick(&r.free);
    let out_dims: Vec<i64> = lb.iter().chain(&lf).chain(&rf).map(|&d| d as i64).collect();

    // XLA's compute type (the more precise of operand and result types), then f16/bf16 sum in
    // f32 and round once (as XLA:CPU).
    let (compute_ty, acc_ty) = accumulation_types(ls.ty, out_ty);
    // Operands to the compute type (rounding there first, as XLA), then to the accumulator's.
    let widen = |d: &ArrayData| convert_data(&convert_data(d, compute_ty), acc_ty);
    let (la, ra) = (widen(ld), widen(rd));

    let batch = l
        .offsets(&l.batch)
        .into_iter()
        .zip(r.offsets(&r.batch))
        .collect::<Vec<_>>();
    let contract = l
        .offsets(&l.contracting)
        .into_iter()
        .zip(r.offsets(&r.contracting))
        .collect::<Vec<_>>();
    let lfree = l.offsets(&l.free);
    let rfree = r.offsets(&r.free);

    let acc = with_array_data!(&la, a: T => {
        let b = T::unwrap(&ra).ok_or_else(|| ctx.err("operand conversion failed"))?;
        let mut out = Vec::with_capacity(batch.len() * lfree.len() * rfree.len());
        for &(lbo, rbo) in &batch {
            for &lo in &lfree {
                for &ro in &rfree {
                    let (l0, r0) = (lbo + lo, rbo + ro);
                    let sum = contract
                        .iter()
                        .fold(T::ZERO, |s, &(lk, rk)| s.add(a[l0 + lk].mul(b[r0 + rk])));
                    out.push(sum);
                }
            }
        }
        <T as ArrayElement>::wrap(out)
    });
    // Round to the compute type once, then convert to the result type (a float product
    // truncated to an integer result, a wider product narrowed).
    let data = convert_data(&convert_data(&acc, compute_ty), out_ty);
    Ok(Literal::Array {
        shape: ArrayShape::new(out_ty, &out_dims),
        data,
    })
}

/// The types a product sums in, shared by DotGeneral and Convolution: XLA's compute type (the
/// more precise of operand and result types, `infer::dot_compute_type`), and the accumulator's,
/// f32 for f16/bf16 (summed in f32 and rounded once, as XLA:CPU), the compute type otherwise.
pub(super) fn accumulation_types(
    operand: ElementType,
    out: ElementType,
) -> (ElementType, ElementType) {
    let compute_ty = crate::infer::dot_compute_type(operand, out);
    let acc_ty = match compute_ty {
        ElementType::F16 | ElementType::Bf16 => ElementType::F32,
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::F32
        | ElementType::F64
        | ElementType::C64
        | ElementType::C128 => compute_ty,
    };
    (compute_ty, acc_ty)
}
