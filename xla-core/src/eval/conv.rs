//! `ConvGeneralDilated`, computed directly from its definition: for every output element
//! `(b, o, s...)` with `k = o / (O / feature_group_count)` and `g = o / (O /
//! batch_group_count)`,
//!
//! `out[b, o, s] = sum_{i, t} lhs[g * B' + b, k * I' + i, p(s, t)] * rhs[o, i, t']`
//!
//! over the kernel's input features `i < I'` and spatial taps `t`, where `B'` is the output
//! batch, `t' = K - 1 - t` along reversed dimensions (`t` otherwise), and the input position
//! `p = s * stride + t * rhs_dilation - low padding` counts in the dilated input: positions in
//! the padding or in a dilation hole contribute nothing (zeros). Dimensions are placed by the
//! dimension numbers; everything is checked first by `crate::infer::convolution`, so a malformed
//! instruction gives an `Err`, never a panic.
//!
//! The element types follow DotGeneral (`super::dot`, matching XLA:CPU): operands are converted
//! to the compute type (`infer::dot_compute_type` of the operand and result types), the sum is
//! accumulated in it except that f16/bf16 accumulate in f32 and round once, then the sum is
//! converted to the result type. Pred sums are `or`s of `and`s; integers wrap.

use super::elementwise::convert_data;
use super::{array, dims_usize, row_major_strides, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{ConvDimensionNumbers, ConvWindow};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::{ArrayShape, Shape};
use crate::with_array_data;

/// What one spatial dimension needs: for each (output position, tap) the input index, if the
/// tap lands on an input element (not padding, not a dilation hole).
struct Spatial {
    /// `input[o * taps + t]`.
    input: Vec<Option<usize>>,
    /// Kernel taps along this dimension.
    taps: usize,
    /// Whether the kernel is read backwards along it.
    reversed: bool,
}

impl Spatial {
    fn new(input: usize, taps: usize, out: usize, window: &ConvWindow, i: usize) -> Spatial {
        // Every value below is bounded by the inferred (valid) sizes, so i128 cannot overflow.
        let (stride, lhs_dil, rhs_dil) = (
            i128::from(window.strides[i]),
            i128::from(window.lhs_dilation[i]),
            i128::from(window.rhs_dilation[i]),
        );
        let low = i128::from(window.padding[i].0);
        let mut map = Vec::with_capacity(out * taps);
        for o in 0..out as i128 {
            for t in 0..taps as i128 {
                let p = o * stride + t * rhs_dil - low;
                let hit = (p >= 0 && p % lhs_dil == 0)
                    .then(|| p / lhs_dil)
                    .filter(|&q| q < input as i128)
                    .map(|q| q as usize);
                map.push(hit);
            }
        }
        Spatial {
            input: map,
            taps,
            reversed: window.window_reversal[i],
        }
    }
}

/// The instruction's convolution into its element type.
pub(super) fn convolution(
    ctx: &Ctx<'_>,
    lhs: &Literal,
    rhs: &Literal,
    window: &ConvWindow,
    dn: &ConvDimensionNumbers,
    groups: (i64, i64),
    preferred_element_type: Option<ElementType>,
) -> Result<Literal> {
    let (ls, ld) = array(ctx, lhs)?;
    let (rs, rd) = array(ctx, rhs)?;
    let out_ty = ctx.out_array()?.ty;
    let (feature_group_count, batch_group_count) = groups;
    let inferred = crate::infer::convolution(
        &Shape::Array(ls.clone()),
        &Shape::Array(rs.clone()),
        window,
        dn,
        feature_group_count,
        batch_group_count,
        preferred_element_type,
    )
    .map_err(|e| ctx.err(e.message))?;
    let out_dims = match &inferred {
        Shape::Array(a) => a.dims.clone(),
        Shape::Tuple(_) | Shape::Token => return Err(ctx.err("inference gave a non-array")),
    };

    // All dimension numbers are valid, distinct dimensions now.
    let u = |d: i64| d as usize;
    let (l_dims, r_dims, o_dims) = (
        dims_usize(ctx, &ls.dims)?,
        dims_usize(ctx, &rs.dims)?,
        dims_usize(ctx, &out_dims)?,
    );
    let (l_str, r_str) = (row_major_strides(&l_dims), row_major_strides(&r_dims));
    let n = dn.input_spatial_dimensions.len();
    let spatial: Vec<Spatial> = (0..n)
        .map(|i| {
            Spatial::new(
                l_dims[u(dn.input_spatial_dimensions[i])],
                r_dims[u(dn.kernel_spatial_dimensions[i])],
                o_dims[u(dn.output_spatial_dimensions[i])],
                window,
                i,
            )
        })
        .collect();
    let kernel_in = r_dims[u(dn.kernel_input_feature_dimension)];
    let out_features = o_dims[u(dn.output_feature_dimension)];
    let out_batch = o_dims[u(dn.output_batch_dimension)];
    // Output features per group (the counts are at least 1 and divide the features).
    let per_feature_group = out_features / feature_group_count as usize;
    let per_batch_group = out_features / batch_group_count as usize;

    // Every kernel tap: its offset into rhs (reversal applied) and its index per dimension.
    let tap_count: usize = spatial.iter().map(|s| s.taps).product();
    let mut taps: Vec<(usize, Vec<usize>)> = Vec::with_capacity(tap_count);
    let mut t = vec![0usize; n];
    for _ in 0..tap_count {
        let offset = (0..n)
            .map(|i| {
                let k = if spatial[i].reversed {
                    spatial[i].taps - 1 - t[i]
                } else {
                    t[i]
                };
                k * r_str[u(dn.kernel_spatial_dimensions[i])]
            })
            .sum();
        taps.push((offset, t.clone()));
        for i in (0..n).rev() {
            t[i] += 1;
            if t[i] < spatial[i].taps {
                break;
            }
            t[i] = 0;
        }
    }

    // As DotGeneral: the compute type, and f16/bf16 summed in f32.
    let (compute_ty, acc_ty) = super::dot::accumulation_types(ls.ty, out_ty);
    let widen = |d: &ArrayData| convert_data(&convert_data(d, compute_ty), acc_ty);
    let (la, ra) = (widen(ld), widen(rd));

    let count: usize = o_dims.iter().product();
    let rank = o_dims.len();
    let acc = with_array_data!(&la, a: T => {
        let b = T::unwrap(&ra).ok_or_else(|| ctx.err("operand conversion failed"))?;
        let mut out = Vec::with_capacity(count);
        let mut idx = vec![0usize; rank];
        for _ in 0..count {
            let (ob, of) = (idx[u(dn.output_batch_dimension)], idx[u(dn.output_feature_dimension)]);
            let feature_group = of / per_feature_group;
            let batch_group = of / per_batch_group;
            let lhs_base = (batch_group * out_batch + ob) * l_str[u(dn.input_batch_dimension)]
                + feature_group * kernel_in * l_str[u(dn.input_feature_dimension)];
            let rhs_base = of * r_str[u(dn.kernel_output_feature_dimension)];
            let mut sum = T::ZERO;
            'tap: for (r_tap, tap) in &taps {
                let mut l_off = lhs_base;
                for (i, s) in spatial.iter().enumerate() {
                    let o = idx[u(dn.output_spatial_dimensions[i])];
                    match s.input[o * s.taps + tap[i]] {
                        Some(p) => l_off += p * l_str[u(dn.input_spatial_dimensions[i])],
                        None => continue 'tap,
                    }
                }
                for z in 0..kernel_in {
                    let x = a[l_off + z * l_str[u(dn.input_feature_dimension)]];
                    let w = b[rhs_base + r_tap + z * r_str[u(dn.kernel_input_feature_dimension)]];
                    sum = sum.add(x.mul(w));
                }
            }
            out.push(sum);
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < o_dims[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        <T as ArrayElement>::wrap(out)
    });
    let data = convert_data(&convert_data(&acc, compute_ty), out_ty);
    Ok(Literal::Array {
        shape: ArrayShape::new(out_ty, &out_dims),
        data,
    })
}

#[cfg(test)]
mod tests;
