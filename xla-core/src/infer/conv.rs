//! Convolution: `ConvGeneralDilated` and the surface forms that lower to it (`Conv`,
//! `ConvWithGeneralPadding`, `ConvWithGeneralDimensions`, `ConvGeneral`).
//!
//! With `n` spatial dimensions, lhs (the input) and rhs (the kernel) have rank `n + 2`; the
//! dimension numbers say which dimension is the batch, feature and each spatial one of the
//! input, the input-feature, output-feature and each spatial one of the kernel, and where the
//! output puts its batch, feature and spatial dimensions. Output sizes (XLA's
//! `InferConvolveShape`):
//!
//! - batch: `input batch / batch_group_count`;
//! - feature: the kernel's output features;
//! - spatial `i`: the number of window positions, `0` if the dilated window is larger than the
//!   padded dilated input, else `(padded - dilated window) / stride + 1`, where
//!   `dilated(x, d) = (x - 1) * d + 1` (`0` for `x = 0`) and
//!   `padded = low + dilated(input, lhs_dilation) + high`.
//!
//! Errors name the op (`ConvGeneralDilated` unless a surface form is being built), the rule,
//! both operand shapes (`f32[1,5,5,3] vs f32[3,3,4,8]`) and the attribute or operand to blame.

use super::dot::dot_general_named;
use super::{expect_array, list};
use crate::element::ElementType;
use crate::error::{count, Blame, Error, Result};
use crate::ir::{ConvDimensionNumbers, ConvWindow, DotDimensionNumbers};
use crate::shape::{ArrayShape, Shape};

/// The shorthand padding of `Conv` and `ConvWithGeneralDimensions` (XLA's `Padding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Zeros added so that each output spatial size is `ceil(input / stride)`: the output has
    /// the input's spatial shape when the stride is 1. An odd total puts the extra element on
    /// the high side.
    Same,
    /// No padding: only windows that fit entirely inside the input.
    Valid,
}

/// The `(low, high)` padding of each spatial dimension for `kind` (XLA's `MakePadding`):
/// `Valid` is all zeros; `Same` pads `max((ceil(in / stride) - 1) * stride + window - in, 0)`
/// elements in total, half (rounded down) low and the rest high. Entries beyond the shortest of
/// the three lists are ignored and a stride below 1 counts as 1 (the builder checks both
/// before calling this).
pub fn padding_for(
    kind: Padding,
    input_spatial: &[i64],
    window: &[i64],
    strides: &[i64],
) -> Vec<(i64, i64)> {
    match kind {
        Padding::Valid => vec![(0, 0); window.len()],
        Padding::Same => input_spatial
            .iter()
            .zip(window)
            .zip(strides)
            .map(|((&input, &window), &stride)| {
                let stride = stride.max(1);
                let input_size = input.max(0);
                let out = input_size / stride + i64::from(input_size % stride != 0);
                let total = out
                    .saturating_sub(1)
                    .saturating_mul(stride)
                    .saturating_add(window)
                    .saturating_sub(input)
                    .max(0);
                (total / 2, total - total / 2)
            })
            .collect(),
    }
}

/// The dimension numbers `Conv` and `ConvWithGeneralPadding` use (XLA's
/// `CreateDefaultConvDimensionNumbers`): input `[batch, feature, spatial...]`, kernel
/// `[output feature, input feature, spatial...]`, output `[batch, feature, spatial...]`.
pub fn default_dimension_numbers(num_spatial_dims: usize) -> ConvDimensionNumbers {
    let spatial: Vec<i64> = (2..num_spatial_dims as i64 + 2).collect();
    ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 1,
        input_spatial_dimensions: spatial.clone(),
        kernel_output_feature_dimension: 0,
        kernel_input_feature_dimension: 1,
        kernel_spatial_dimensions: spatial.clone(),
        output_batch_dimension: 0,
        output_feature_dimension: 1,
        output_spatial_dimensions: spatial,
    }
}

/// `ConvGeneralDilated(lhs, rhs, window, dimension_numbers, feature_group_count,
/// batch_group_count, preferred_element_type)`: every rule of XLA's `InferConvolveShape` (and
/// of the builder's `VerifyConvolution` and `InferWindowFromDimensions`) and the result shape.
pub fn convolution(
    lhs: &Shape,
    rhs: &Shape,
    window: &ConvWindow,
    dn: &ConvDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    preferred_element_type: Option<ElementType>,
) -> Result<Shape> {
    convolution_named(
        "ConvGeneralDilated",
        lhs,
        rhs,
        window,
        dn,
        feature_group_count,
        batch_group_count,
        preferred_element_type,
    )
    .map(Shape::Array)
}

/// The explicit padding of a convolution written with [`Padding`] (`Conv`,
/// `ConvWithGeneralDimensions`): checks what computing it needs (array operands of equal rank
/// at least 2, the spatial dimension numbers, one stride of at least 1 per spatial dimension),
/// then [`padding_for`] on the input's and kernel's spatial sizes. `op` names the surface form
/// in errors.
pub fn explicit_padding(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    window_strides: &[i64],
    padding: Padding,
    dn: &ConvDimensionNumbers,
) -> Result<Vec<(i64, i64)>> {
    let (l, r) = operands(op, lhs, rhs)?;
    check_dimension_numbers(op, l, r, dn)?;
    let n = l.rank() - 2;
    check_window_list(
        op,
        "window_strides",
        &list(window_strides),
        window_strides.len(),
        n,
        l,
        r,
    )?;
    check_at_least_one(op, "window_strides", window_strides, l, r)?;
    let sizes = |a: &ArrayShape, dims: &[i64]| -> Vec<i64> {
        dims.iter().map(|&d| a.dims[d as usize]).collect()
    };
    Ok(padding_for(
        padding,
        &sizes(l, &dn.input_spatial_dimensions),
        &sizes(r, &dn.kernel_spatial_dimensions),
        window_strides,
    ))
}

/// `(lhs vs rhs)` for messages.
fn vs(l: &ArrayShape, r: &ArrayShape) -> String {
    format!("({l} vs {r})")
}

/// Both operands as arrays of equal rank, at least 2.
fn operands<'a>(
    op: &str,
    lhs: &'a Shape,
    rhs: &'a Shape,
) -> Result<(&'a ArrayShape, &'a ArrayShape)> {
    let l = expect_array(op, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op, "rhs", rhs, Blame::Operand(1))?;
    if l.rank() != r.rank() {
        return Err(Error::new(
            op,
            format!(
                "lhs and rhs must have the same rank, got {} and {} {}",
                l.rank(),
                r.rank(),
                vs(l, r)
            ),
        )
        .blame(Blame::Operand(1)));
    }
    if l.rank() < 2 {
        return Err(Error::new(
            op,
            format!(
                "operands must have rank at least 2 (batch and feature dimensions), got rank {} {}",
                l.rank(),
                vs(l, r)
            ),
        )
        .blame(Blame::Operand(0)));
    }
    Ok((l, r))
}

/// One operand's roles: `(attribute, its value)` for the two scalar roles, then the spatial
/// list; each dimension in range and used once.
fn check_roles(
    op: &str,
    side: &str,
    shape: &ArrayShape,
    (l, r): (&ArrayShape, &ArrayShape),
    scalars: [(&'static str, i64); 2],
    spatial: (&'static str, &[i64]),
) -> Result<()> {
    let rank = shape.rank();
    let n = rank - 2;
    let (spatial_attr, spatial_dims) = spatial;
    // The dimension numbers are one attribute (`dimension_numbers`) in every front end.
    let blame = || Blame::Attribute("dimension_numbers");
    if spatial_dims.len() != n {
        let example = match rank {
            3 => " such as `[NWC, WIO, NWC]`",
            4 => " such as `[NHWC, HWIO, NHWC]`",
            5 => " such as `[NDHWC, DHWIO, NDHWC]`",
            _ => "",
        };
        return Err(Error::new(
            op,
            format!(
                "dimension_numbers: {spatial_attr} {} has {} but rank-{rank} operands have {} {}",
                list(spatial_dims),
                count(spatial_dims.len(), "entry", "entries"),
                count(n, "spatial dimension", "spatial dimensions"),
                vs(l, r)
            ),
        )
        .blame(blame())
        .help(format!(
            "dimension_numbers name every dimension of the operands: rank-{rank} operands take \
             {rank} letters per spec{example}"
        )));
    }
    let roles = scalars
        .iter()
        .map(|&(attr, d)| (attr.to_string(), d))
        .chain(
            spatial_dims
                .iter()
                .enumerate()
                .map(|(i, &d)| (format!("{spatial_attr}[{i}]"), d)),
        );
    let mut seen: Vec<Option<String>> = vec![None; rank];
    for (name, d) in roles {
        let Some(slot) = usize::try_from(d).ok().and_then(|u| seen.get_mut(u)) else {
            return Err(Error::new(
                op,
                format!(
                    "dimension_numbers: {name} = {d} is out of range for the rank-{rank} {side} {}",
                    vs(l, r)
                ),
            )
            .blame(blame()));
        };
        if let Some(prev) = slot {
            return Err(Error::new(
                op,
                format!(
                    "dimension_numbers: {name} and {prev} both name {side} dimension {d}; each \
                     dimension must have one role {}",
                    vs(l, r)
                ),
            )
            .blame(blame()));
        }
        *slot = Some(name);
    }
    Ok(())
}

/// Every dimension number of `dn` in range and used once per operand (and output).
fn check_dimension_numbers(
    op: &str,
    l: &ArrayShape,
    r: &ArrayShape,
    dn: &ConvDimensionNumbers,
) -> Result<()> {
    check_roles(
        op,
        "lhs",
        l,
        (l, r),
        [
            ("input_batch_dimension", dn.input_batch_dimension),
            ("input_feature_dimension", dn.input_feature_dimension),
        ],
        ("input_spatial_dimensions", &dn.input_spatial_dimensions),
    )?;
    check_roles(
        op,
        "rhs",
        r,
        (l, r),
        [
            (
                "kernel_input_feature_dimension",
                dn.kernel_input_feature_dimension,
            ),
            (
                "kernel_output_feature_dimension",
                dn.kernel_output_feature_dimension,
            ),
        ],
        ("kernel_spatial_dimensions", &dn.kernel_spatial_dimensions),
    )?;
    // The output has the operands' rank.
    check_roles(
        op,
        "output",
        l,
        (l, r),
        [
            ("output_batch_dimension", dn.output_batch_dimension),
            ("output_feature_dimension", dn.output_feature_dimension),
        ],
        ("output_spatial_dimensions", &dn.output_spatial_dimensions),
    )
}

/// A window attribute has one entry per spatial dimension.
fn check_window_list(
    op: &str,
    attr: &'static str,
    shown: &str,
    len: usize,
    n: usize,
    l: &ArrayShape,
    r: &ArrayShape,
) -> Result<()> {
    if len == n {
        return Ok(());
    }
    Err(Error::new(
        op,
        format!(
            "{attr} {shown} has {}, expected {n} (one per spatial dimension) {}",
            count(len, "entry", "entries"),
            vs(l, r)
        ),
    )
    .blame(Blame::Attribute(attr)))
}

/// Strides and dilations are at least 1.
fn check_at_least_one(
    op: &str,
    attr: &'static str,
    values: &[i64],
    l: &ArrayShape,
    r: &ArrayShape,
) -> Result<()> {
    match values.iter().enumerate().find(|(_, &v)| v < 1) {
        None => Ok(()),
        Some((i, v)) => Err(Error::new(
            op,
            format!("{attr}[{i}] = {v} must be at least 1 {}", vs(l, r)),
        )
        .blame(Blame::Attribute(attr))),
    }
}

/// `(x - 1) * d + 1`, or 0 for `x = 0`; `None` on overflow.
fn dilated(x: i64, d: i64) -> Option<i64> {
    if x == 0 {
        Some(0)
    } else {
        x.checked_sub(1)?.checked_mul(d)?.checked_add(1)
    }
}

/// Window positions along one dimension: 0 if the window does not fit, else
/// `(bound - window) / stride + 1` (XLA's `StridedBound`).
fn window_positions(bound: i64, window: i64, stride: i64) -> i64 {
    if bound == 0 || window > bound {
        0
    } else {
        (bound - window) / stride + 1
    }
}

/// [`convolution`] with the user-facing op name `op` (the surface forms name themselves).
#[allow(clippy::too_many_arguments)]
pub(crate) fn convolution_named(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    window: &ConvWindow,
    dn: &ConvDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    preferred_element_type: Option<ElementType>,
) -> Result<ArrayShape> {
    let (l, r) = operands(op, lhs, rhs)?;
    check_dimension_numbers(op, l, r, dn)?;
    let n = l.rank() - 2;

    for (attr, v) in [
        ("feature_group_count", feature_group_count),
        ("batch_group_count", batch_group_count),
    ] {
        if v < 1 {
            return Err(
                Error::new(op, format!("{attr} = {v} must be at least 1 {}", vs(l, r)))
                    .blame(Blame::Attribute(attr)),
            );
        }
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return Err(Error::new(
            op,
            format!(
                "feature_group_count = {feature_group_count} and batch_group_count = \
                 {batch_group_count}: at most one of them may exceed 1 {}",
                vs(l, r)
            ),
        )
        .blame(Blame::Attribute("batch_group_count")));
    }

    let padding_shown = format!(
        "[{}]",
        window
            .padding
            .iter()
            .map(|(lo, hi)| format!("({lo}, {hi})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let reversal_shown = format!("{:?}", window.window_reversal);
    for (attr, shown, len) in [
        (
            "window_strides",
            list(&window.strides),
            window.strides.len(),
        ),
        ("padding", padding_shown, window.padding.len()),
        (
            "lhs_dilation",
            list(&window.lhs_dilation),
            window.lhs_dilation.len(),
        ),
        (
            "rhs_dilation",
            list(&window.rhs_dilation),
            window.rhs_dilation.len(),
        ),
        (
            "window_reversal",
            reversal_shown,
            window.window_reversal.len(),
        ),
    ] {
        check_window_list(op, attr, &shown, len, n, l, r)?;
    }
    check_at_least_one(op, "window_strides", &window.strides, l, r)?;
    check_at_least_one(op, "lhs_dilation", &window.lhs_dilation, l, r)?;
    check_at_least_one(op, "rhs_dilation", &window.rhs_dilation, l, r)?;

    if l.ty != r.ty {
        return Err(Error::new(
            op,
            format!("operands must have the same element type {}", vs(l, r)),
        )
        .blame(Blame::Operand(1)));
    }

    let dim = |a: &ArrayShape, d: i64| a.dims[d as usize];
    let (batch, features) = (
        dim(l, dn.input_batch_dimension),
        dim(l, dn.input_feature_dimension),
    );
    let (kernel_in, kernel_out) = (
        dim(r, dn.kernel_input_feature_dimension),
        dim(r, dn.kernel_output_feature_dimension),
    );
    if kernel_in.checked_mul(feature_group_count) != Some(features) {
        let mut e = Error::new(
            op,
            format!(
                "the kernel's input features (rhs dimension {} = {kernel_in}) times \
                 feature_group_count {feature_group_count} must equal the input features (lhs \
                 dimension {} = {features}) {}",
                dn.kernel_input_feature_dimension,
                dn.input_feature_dimension,
                vs(l, r)
            ),
        )
        .blame(if feature_group_count > 1 {
            Blame::Attribute("feature_group_count")
        } else {
            Blame::Operand(1)
        });
        if feature_group_count == 1 && kernel_in > 0 && features % kernel_in == 0 {
            e = e.help(format!(
                "a grouped convolution with feature_group_count = {} takes these shapes",
                features / kernel_in
            ));
        }
        return Err(e);
    }
    for (attr, groups) in [
        ("feature_group_count", feature_group_count),
        ("batch_group_count", batch_group_count),
    ] {
        if kernel_out % groups != 0 {
            return Err(Error::new(
                op,
                format!(
                    "the kernel's output features (rhs dimension {} = {kernel_out}) must be a \
                     multiple of {attr} {groups} {}",
                    dn.kernel_output_feature_dimension,
                    vs(l, r)
                ),
            )
            .blame(Blame::Attribute(attr)));
        }
    }
    if batch % batch_group_count != 0 {
        return Err(Error::new(
            op,
            format!(
                "the input batch (lhs dimension {} = {batch}) must be a multiple of \
                 batch_group_count {batch_group_count} {}",
                dn.input_batch_dimension,
                vs(l, r)
            ),
        )
        .blame(Blame::Attribute("batch_group_count")));
    }
    if r.dynamic[dn.kernel_output_feature_dimension as usize] {
        return Err(Error::new(
            op,
            format!(
                "the kernel's output-feature dimension (rhs dimension {}) must not be dynamic {}",
                dn.kernel_output_feature_dimension,
                vs(l, r)
            ),
        )
        .blame(Blame::Operand(1)));
    }

    let mut out = ArrayShape::new(l.ty, &vec![0; l.rank()]);
    let ob = dn.output_batch_dimension as usize;
    out.dims[ob] = batch / batch_group_count;
    out.dynamic[ob] = l.dynamic[dn.input_batch_dimension as usize];
    out.dims[dn.output_feature_dimension as usize] = kernel_out;
    for i in 0..n {
        let (ld, kd) = (
            dn.input_spatial_dimensions[i],
            dn.kernel_spatial_dimensions[i],
        );
        let (input, kernel) = (dim(l, ld), dim(r, kd));
        if kernel < 1 {
            return Err(Error::new(
                op,
                format!(
                    "kernel spatial dimension {i} (rhs dimension {kd}) has size {kernel}; a \
                     window needs at least one element {}",
                    vs(l, r)
                ),
            )
            .blame(Blame::Operand(1)));
        }
        let (lo, hi) = window.padding[i];
        let (ldil, rdil) = (window.lhs_dilation[i], window.rhs_dilation[i]);
        let overflow = |attr: &'static str, what: String| {
            Error::new(
                op,
                format!(
                    "spatial dimension {i}: {what} overflows i64 (more than 2^63 - 1 elements) {}",
                    vs(l, r)
                ),
            )
            .blame(Blame::Attribute(attr))
        };
        let input_what = || format!("the input (lhs dimension {ld} = {input}) dilated by {ldil}");
        let base = dilated(input, ldil).ok_or_else(|| overflow("lhs_dilation", input_what()))?;
        let padded = base
            .checked_add(lo)
            .and_then(|v| v.checked_add(hi))
            .ok_or_else(|| {
                overflow(
                    "padding",
                    format!("{} and padded by ({lo}, {hi})", input_what()),
                )
            })?;
        if padded < 0 {
            return Err(Error::new(
                op,
                format!(
                    "spatial dimension {i}: the input (lhs dimension {ld} = {input}) dilated by \
                     {ldil} and padded by ({lo}, {hi}) has negative size {padded} {}",
                    vs(l, r)
                ),
            )
            .blame(Blame::Attribute("padding")));
        }
        let taps = dilated(kernel, rdil).ok_or_else(|| {
            overflow(
                "rhs_dilation",
                format!("the kernel (rhs dimension {kd} = {kernel}) dilated by {rdil}"),
            )
        })?;
        let od = dn.output_spatial_dimensions[i] as usize;
        out.dims[od] = window_positions(padded, taps, window.strides[i]);
        out.dynamic[od] = l.dynamic[ld as usize] || r.dynamic[kd as usize];
    }

    // The preferred element type follows DotGeneral's rule (XLA's `MaybeUpcast` for both).
    let scalar = Shape::Array(ArrayShape::scalar(l.ty));
    let no_dims = DotDimensionNumbers::default();
    out.ty = dot_general_named(op, &scalar, &scalar, &no_dims, preferred_element_type)
        .map_err(|e| Error {
            message: format!("{} {}", e.message, vs(l, r)),
            ..e
        })?
        .ty;
    out.validate().map_err(|e| {
        Error::new(op, format!("result {}: {} {}", out, e.message, vs(l, r)))
            .blame(Blame::Attribute("padding"))
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests;
