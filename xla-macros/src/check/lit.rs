//! Scalar literals of the surface (`2`, `-0.5`, `true`, `f32::MAX`) turned into typed
//! [`Literal`]s, with an error instead of a silent wrap or rounding to infinity.

use num_complex::Complex;
use xla_core::{ArrayData, ArrayShape, ElementType, Literal};

use crate::parse::Scalar;

/// A literal's value in type `ty`, or why it does not fit.
pub fn scalar_literal(value: Scalar, ty: ElementType) -> Result<Literal, String> {
    array_literal(&[value], ty, &[]).map_err(|(_, m)| m)
}

/// An array literal of `dims` from row-major `values`; the error names the index of the first
/// value that does not fit.
pub fn array_literal(
    values: &[Scalar],
    ty: ElementType,
    dims: &[i64],
) -> Result<Literal, (usize, String)> {
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(collect(values, to_bool)?),
        ElementType::S8 => ArrayData::S8(collect(values, |v| to_int(v, ty))?),
        ElementType::S16 => ArrayData::S16(collect(values, |v| to_int(v, ty))?),
        ElementType::S32 => ArrayData::S32(collect(values, |v| to_int(v, ty))?),
        ElementType::S64 => ArrayData::S64(collect(values, |v| to_int(v, ty))?),
        ElementType::U8 => ArrayData::U8(collect(values, |v| to_int(v, ty))?),
        ElementType::U16 => ArrayData::U16(collect(values, |v| to_int(v, ty))?),
        ElementType::U32 => ArrayData::U32(collect(values, |v| to_int(v, ty))?),
        ElementType::U64 => ArrayData::U64(collect(values, |v| to_int(v, ty))?),
        ElementType::F16 => ArrayData::F16(collect(values, |v| {
            to_float(v, ty).map(half::f16::from_f64)
        })?),
        ElementType::Bf16 => ArrayData::Bf16(collect(values, |v| {
            to_float(v, ty).map(half::bf16::from_f64)
        })?),
        ElementType::F32 => ArrayData::F32(collect(values, |v| to_float(v, ty).map(|x| x as f32))?),
        ElementType::F64 => ArrayData::F64(collect(values, |v| to_float(v, ty))?),
        ElementType::C64 => ArrayData::C64(collect(values, |v| {
            to_float(v, ty).map(|x| Complex::new(x as f32, 0.0))
        })?),
        ElementType::C128 => ArrayData::C128(collect(values, |v| {
            to_float(v, ty).map(|x| Complex::new(x, 0.0))
        })?),
    };
    Ok(Literal::Array {
        shape: ArrayShape::new(ty, dims),
        data,
    })
}

fn collect<T>(
    values: &[Scalar],
    f: impl Fn(Scalar) -> Result<T, String>,
) -> Result<Vec<T>, (usize, String)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| f(v).map_err(|m| (i, m)))
        .collect()
}

fn to_bool(v: Scalar) -> Result<bool, String> {
    match v {
        Scalar::Bool(b) => Ok(b),
        Scalar::Int(_) | Scalar::Float(_) => {
            Err("is not a pred value: pred is written `true` or `false`".into())
        }
    }
}

fn to_int<T: TryFrom<i128>>(v: Scalar, ty: ElementType) -> Result<T, String> {
    match v {
        Scalar::Int(i) => T::try_from(i).map_err(|_| {
            let (lo, hi) = int_range(ty);
            format!("does not fit in {ty} (range {lo}..={hi})")
        }),
        Scalar::Float(_) => Err(format!("is a float but {ty} is an integer type")),
        Scalar::Bool(_) => Err(format!("is a pred value, not {ty}")),
    }
}

/// The value range of an integer type, for messages.
fn int_range(ty: ElementType) -> (i128, i128) {
    let bits = ty.bit_width();
    if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The value as f64; a finite value beyond `max` (the type's largest finite value) is an error
/// rather than an infinity.
fn to_float(v: Scalar, ty: ElementType) -> Result<f64, String> {
    // The component's limit for complex types; xla-core owns the formats.
    let max = ty
        .complex_component()
        .unwrap_or(ty)
        .largest_finite()
        .unwrap_or(f64::MAX);
    let x = match v {
        Scalar::Float(f) => f,
        Scalar::Int(i) => i as f64,
        Scalar::Bool(_) => return Err(format!("is a pred value, not {ty}")),
    };
    // Values that round to MAX are fine; only those past the rounding boundary overflow. The
    // boundary is within half an ulp of max, so a relative margin of 2^-12 is safe for f16 and up.
    if x.is_finite() && x.abs() > max * (1.0 + 1.0 / 4096.0) {
        return Err(format!("is beyond the largest finite {ty} ({max:e})"));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_convert_or_explain() {
        assert_eq!(
            scalar_literal(Scalar::Int(2), ElementType::F32),
            Ok(Literal::scalar(2.0f32))
        );
        assert_eq!(
            scalar_literal(Scalar::Float(-0.5), ElementType::F64),
            Ok(Literal::scalar(-0.5f64))
        );
        assert_eq!(
            scalar_literal(Scalar::Int(255), ElementType::U8),
            Ok(Literal::scalar(255u8))
        );
        assert_eq!(
            scalar_literal(Scalar::Bool(true), ElementType::Pred),
            Ok(Literal::scalar(true))
        );
        assert_eq!(
            scalar_literal(Scalar::Float(1.5), ElementType::C64),
            Ok(Literal::scalar(Complex::new(1.5f32, 0.0)))
        );
        assert_eq!(
            scalar_literal(Scalar::Float(f64::NEG_INFINITY), ElementType::F16),
            Ok(Literal::scalar(half::f16::NEG_INFINITY))
        );
        let err = |v, t| scalar_literal(v, t).err().unwrap_or_default();
        assert!(
            err(Scalar::Int(256), ElementType::U8).contains("does not fit in u8 (range 0..=255)")
        );
        assert!(err(Scalar::Int(-1), ElementType::U32).contains("does not fit in u32"));
        assert!(err(Scalar::Float(1.5), ElementType::S32)
            .contains("is a float but s32 is an integer type"));
        assert!(err(Scalar::Int(1), ElementType::Pred).contains("true"));
        assert!(
            err(Scalar::Float(1e300), ElementType::F32).contains("beyond the largest finite f32")
        );
        assert!(err(Scalar::Float(70000.0), ElementType::F16).contains("f16"));
        assert!(err(Scalar::Bool(true), ElementType::F32).contains("pred"));
    }

    #[test]
    fn arrays_report_the_bad_index() {
        let vals = [Scalar::Int(1), Scalar::Int(2), Scalar::Int(300)];
        assert_eq!(
            array_literal(&vals, ElementType::S8, &[3])
                .err()
                .map(|e| e.0),
            Some(2)
        );
        let ok = array_literal(&vals, ElementType::S32, &[3]);
        assert_eq!(
            ok,
            Literal::from_vec(&[3], vec![1i32, 2, 300]).map_err(|_| (0, String::new()))
        );
    }
}
