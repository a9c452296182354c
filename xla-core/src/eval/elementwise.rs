//! Elementwise ops: unary, binary (incl. `Complex`), compare, select, clamp, conversions,
//! reduce-precision, and iota (elementwise in its output index).

use super::{array, dims_usize, row_major_strides, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{BinaryOp, ComparisonDirection, UnaryOp};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::{make_complex, unary_result_type, Scalar, UnaryResult, Value};
use crate::shape::ArrayShape;
use crate::{with_array_data, with_element_type};

/// `Iota`: element at `idx` is `idx[dimension]`, converted to the element type.
pub(super) fn iota(ctx: &Ctx<'_>, dimension: usize) -> Result<Literal> {
    let shape = ctx.out_array()?;
    let dims = dims_usize(ctx, &shape.dims)?;
    if dimension >= dims.len() {
        return Err(ctx.err(format!(
            "iota dimension {dimension} out of range for {shape}"
        )));
    }
    let count: usize = dims.iter().product();
    let stride = row_major_strides(&dims)[dimension];
    let size = dims[dimension];
    let data = with_element_type!(shape.ty, T => {
        <T as ArrayElement>::wrap(
            (0..count).map(|i| <T as Scalar>::from_value(Value::Int(((i / stride) % size) as i128))).collect(),
        )
    });
    Ok(Literal::Array {
        shape: shape.clone(),
        data,
    })
}

/// Apply a unary op to a slice; the result type follows [`UnaryResult`].
fn unary_slice<T: Scalar>(op: UnaryOp, v: &[T]) -> ArrayData {
    if v.is_empty() {
        return ArrayData::zeros(unary_result_type(op, T::TYPE), 0);
    }
    // The op is fixed, so every element lands in the same vector (the others never allocate).
    let mut same = Vec::new();
    let mut real = Vec::new();
    let mut pred = Vec::new();
    for &x in v {
        match T::unary_any(op, x) {
            UnaryResult::Same(y) => same.push(y),
            UnaryResult::Real(r) => real.push(r),
            UnaryResult::Pred(p) => pred.push(p),
        }
    }
    if !real.is_empty() {
        <T::Real as ArrayElement>::wrap(real)
    } else if !pred.is_empty() {
        bool::wrap(pred)
    } else {
        T::wrap(same)
    }
}

/// One-operand elementwise op.
pub(super) fn unary(ctx: &Ctx<'_>, op: UnaryOp, operand: &Literal) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = with_array_data!(data, v: T => unary_slice::<T>(op, v));
    Ok(Literal::Array {
        shape: shape.with_type(out.element_type()),
        data: out,
    })
}

/// Check that two operands have the same dimensions and element type.
fn same_array<'a>(
    ctx: &Ctx<'_>,
    lhs: &'a Literal,
    rhs: &'a Literal,
) -> Result<(&'a ArrayShape, &'a ArrayData, &'a ArrayData)> {
    let (ls, ld) = array(ctx, lhs)?;
    let (rs, rd) = array(ctx, rhs)?;
    if ls.ty != rs.ty || ls.dims != rs.dims {
        return Err(ctx.err(format!("operands must have equal shapes: {ls} vs {rs}")));
    }
    Ok((ls, ld, rd))
}

/// The elements of `data` as `T` (the caller matched `T` on a same-typed operand).
fn typed<'a, T: ArrayElement>(ctx: &Ctx<'_>, data: &'a ArrayData) -> Result<&'a [T]> {
    T::unwrap(data).ok_or_else(|| {
        ctx.err(format!(
            "expected {} data, got {}",
            T::TYPE,
            data.element_type()
        ))
    })
}

/// Two-operand elementwise op on operands of equal shapes.
pub(super) fn binary(ctx: &Ctx<'_>, op: BinaryOp, lhs: &Literal, rhs: &Literal) -> Result<Literal> {
    let (shape, ld, rd) = same_array(ctx, lhs, rhs)?;
    let data = match op {
        BinaryOp::Complex => match (ld, rd) {
            (ArrayData::F32(re), ArrayData::F32(im)) => ArrayData::C64(
                re.iter()
                    .zip(im)
                    .map(|(&a, &b)| make_complex(a, b))
                    .collect(),
            ),
            (ArrayData::F64(re), ArrayData::F64(im)) => ArrayData::C128(
                re.iter()
                    .zip(im)
                    .map(|(&a, &b)| make_complex(a, b))
                    .collect(),
            ),
            _ => return Err(ctx.err(format!("Complex needs f32 or f64 parts, got {shape}"))),
        },
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::Max
        | BinaryOp::Min
        | BinaryOp::Pow
        | BinaryOp::Atan2
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical => with_array_data!(ld, a: T => {
            let b = typed::<T>(ctx, rd)?;
            T::wrap(a.iter().zip(b).map(|(&x, &y)| <T as Scalar>::binary(op, x, y)).collect())
        }),
    };
    Ok(Literal::Array {
        shape: shape.with_type(data.element_type()),
        data,
    })
}

/// Elementwise comparison into pred, IEEE or total order.
pub(super) fn compare(
    ctx: &Ctx<'_>,
    direction: ComparisonDirection,
    total_order: bool,
    lhs: &Literal,
    rhs: &Literal,
) -> Result<Literal> {
    let (shape, ld, rd) = same_array(ctx, lhs, rhs)?;
    let out: Vec<bool> = with_array_data!(ld, a: T => {
        let b = typed::<T>(ctx, rd)?;
        if total_order {
            a.iter().zip(b).map(|(&x, &y)| x.compare_total(y, direction)).collect()
        } else {
            a.iter().zip(b).map(|(&x, &y)| x.compare(y, direction)).collect()
        }
    });
    Ok(Literal::Array {
        shape: shape.with_type(ElementType::Pred),
        data: ArrayData::Pred(out),
    })
}

/// Element `i` of an operand that is either full-size or a scalar broadcast to any size.
fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 {
        v[0]
    } else {
        v[i]
    }
}

/// Whether `s` is a scalar or has the dims of `full`.
fn scalar_or_same(s: &ArrayShape, full: &ArrayShape) -> bool {
    s.dims.is_empty() || s.dims == full.dims
}

/// `Select(pred, on_true, on_false)`; a scalar pred selects whole arrays.
pub(super) fn select(
    ctx: &Ctx<'_>,
    pred: &Literal,
    on_true: &Literal,
    on_false: &Literal,
) -> Result<Literal> {
    let (shape, td, fd) = same_array(ctx, on_true, on_false)?;
    let (ps, pd) = array(ctx, pred)?;
    let p = match pd {
        ArrayData::Pred(p) if scalar_or_same(ps, shape) => p,
        _ => {
            return Err(ctx.err(format!(
                "pred must be pred[] or pred with the operands' dims: {ps} vs {shape}"
            )))
        }
    };
    let n = td.len();
    let data = with_array_data!(td, t: T => {
        let f = typed::<T>(ctx, fd)?;
        T::wrap((0..n).map(|i| <T as Scalar>::select(at(p, i), t[i], f[i])).collect())
    });
    Ok(Literal::Array {
        shape: shape.clone(),
        data,
    })
}

/// `Clamp(min, operand, max)`; the bounds may be scalars.
pub(super) fn clamp(ctx: &Ctx<'_>, lo: &Literal, x: &Literal, hi: &Literal) -> Result<Literal> {
    let (shape, xd) = array(ctx, x)?;
    let (ls, ld) = array(ctx, lo)?;
    let (hs, hd) = array(ctx, hi)?;
    for b in [ls, hs] {
        if b.ty != shape.ty || !scalar_or_same(b, shape) {
            return Err(ctx.err(format!(
                "bounds must be scalars or have the operand's shape: {b} vs {shape}"
            )));
        }
    }
    let n = xd.len();
    let data = with_array_data!(xd, v: T => {
        let l = typed::<T>(ctx, ld)?;
        let h = typed::<T>(ctx, hd)?;
        T::wrap((0..n).map(|i| <T as Scalar>::clamp(at(l, i), v[i], at(h, i))).collect())
    });
    Ok(Literal::Array {
        shape: shape.clone(),
        data,
    })
}

/// `ConvertElementType` of raw data to `ty`.
pub(crate) fn convert_data(data: &ArrayData, ty: ElementType) -> ArrayData {
    if data.element_type() == ty {
        return data.clone();
    }
    with_array_data!(data, v: T => {
        with_element_type!(ty, U => <U as ArrayElement>::wrap(v.iter().map(|&x| x.convert::<U>()).collect()))
    })
}

/// `BitcastConvertType`: same width elementwise; a narrower result gains a minor dimension of
/// `in_width / out_width` elements, a wider one consumes the operand's minor dimension. All
/// cases are the same little-endian byte stream read back in the new type.
pub(super) fn bitcast_convert(ctx: &Ctx<'_>, operand: &Literal) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = ctx.out_array()?;
    let (wi, wo) = (shape.ty.byte_width(), out.ty.byte_width());
    let out_count: usize = dims_usize(ctx, &out.dims)?.iter().product();
    let dims_ok = if wi == wo {
        out.dims == shape.dims
    } else if wi > wo {
        out.dims.split_last() == Some((&((wi / wo) as i64), &shape.dims[..]))
    } else {
        shape.dims.split_last() == Some((&((wo / wi) as i64), &out.dims[..]))
    };
    if !dims_ok || data.len() * wi != out_count * wo {
        return Err(ctx.err(format!("cannot bitcast {shape} to {out}")));
    }
    let mut bytes = Vec::with_capacity(data.len() * wi);
    with_array_data!(data, v: T => {
        for &x in v {
            bytes.extend_from_slice(&x.to_bits().to_le_bytes()[..wi]);
        }
    });
    let data = with_element_type!(out.ty, U => {
        <U as ArrayElement>::wrap(
            bytes
                .chunks_exact(wo)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b[..wo].copy_from_slice(c);
                    <U as Scalar>::from_bits(u128::from_le_bytes(b))
                })
                .collect(),
        )
    });
    Ok(Literal::Array {
        shape: out.clone(),
        data,
    })
}

/// `ReducePrecision` elementwise.
pub(super) fn reduce_precision(
    ctx: &Ctx<'_>,
    operand: &Literal,
    exponent_bits: u32,
    mantissa_bits: u32,
) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = with_array_data!(data, v: T => {
        T::wrap(v.iter().map(|&x| x.reduce_precision(exponent_bits, mantissa_bits)).collect())
    });
    Ok(Literal::Array {
        shape: shape.clone(),
        data: out,
    })
}
