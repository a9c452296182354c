//! RngBitGenerator, RngUniform and RngNormal through the scalar reference streams of
//! [`crate::rng`]: bits of the output's width reinterpreted as its type, uniform and normal
//! numbers computed in f64 and rounded once to the type.

use super::{array, dims_usize, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{RandomAlgorithm, RngDistribution};
use crate::literal::{ArrayData, Literal};
use crate::rng;
use crate::shape::{ArrayShape, Shape};

/// `bits` (the low `ty`-width bits of each word) as an array of `ty`.
fn from_bits(ty: ElementType, bits: &[u64]) -> Option<ArrayData> {
    use half::{bf16, f16};
    let v = bits.iter().copied();
    Some(match ty {
        ElementType::S8 => ArrayData::S8(v.map(|b| b as u8 as i8).collect()),
        ElementType::S16 => ArrayData::S16(v.map(|b| b as u16 as i16).collect()),
        ElementType::S32 => ArrayData::S32(v.map(|b| b as u32 as i32).collect()),
        ElementType::S64 => ArrayData::S64(v.map(|b| b as i64).collect()),
        ElementType::U8 => ArrayData::U8(v.map(|b| b as u8).collect()),
        ElementType::U16 => ArrayData::U16(v.map(|b| b as u16).collect()),
        ElementType::U32 => ArrayData::U32(v.map(|b| b as u32).collect()),
        ElementType::U64 => ArrayData::U64(v.collect()),
        ElementType::F16 => ArrayData::F16(v.map(|b| f16::from_bits(b as u16)).collect()),
        ElementType::Bf16 => ArrayData::Bf16(v.map(|b| bf16::from_bits(b as u16)).collect()),
        ElementType::F32 => ArrayData::F32(v.map(|b| f32::from_bits(b as u32)).collect()),
        ElementType::F64 => ArrayData::F64(v.map(f64::from_bits).collect()),
        ElementType::Pred | ElementType::C64 | ElementType::C128 => return None,
    })
}

/// `f64` values rounded to the float type `ty`.
fn from_f64(ty: ElementType, v: &[f64]) -> Option<ArrayData> {
    use half::{bf16, f16};
    let v = v.iter().copied();
    Some(match ty {
        ElementType::F16 => ArrayData::F16(v.map(f16::from_f64).collect()),
        ElementType::Bf16 => ArrayData::Bf16(v.map(bf16::from_f64).collect()),
        ElementType::F32 => ArrayData::F32(v.map(|x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(v.collect()),
        _ => return None,
    })
}

/// The one element of a scalar literal: its bits (integers, sign-extended to 64) and its value
/// (floats).
fn scalar(ctx: &Ctx<'_>, lit: &Literal) -> Result<(u64, f64)> {
    let (_, data) = array(ctx, lit)?;
    let one = match data {
        ArrayData::S32(v) => v.first().map(|&x| (x as u32 as u64, 0.0)),
        ArrayData::S64(v) => v.first().map(|&x| (x as u64, 0.0)),
        ArrayData::U32(v) => v.first().map(|&x| (u64::from(x), 0.0)),
        ArrayData::U64(v) => v.first().map(|&x| (x, 0.0)),
        ArrayData::F16(v) => v.first().map(|&x| (0, x.to_f64())),
        ArrayData::Bf16(v) => v.first().map(|&x| (0, x.to_f64())),
        ArrayData::F32(v) => v.first().map(|&x| (0, f64::from(x))),
        ArrayData::F64(v) => v.first().map(|&x| (0, x)),
        _ => None,
    };
    one.ok_or_else(|| {
        ctx.err(format!(
            "a parameter of type {} is not a scalar it draws",
            data.element_type()
        ))
    })
}

/// `RngBitGenerator(state)`: the tuple `(new_state, bits)`.
pub(super) fn bit_generator(
    ctx: &Ctx<'_>,
    state: &Literal,
    algorithm: RandomAlgorithm,
) -> Result<Literal> {
    let (_, data) = array(ctx, state)?;
    let ArrayData::U64(words) = data else {
        return Err(ctx.err(format!(
            "the state holds {} elements, not u64",
            data.element_type()
        )));
    };
    let out = match &ctx.instr.shape {
        Shape::Tuple(parts) => parts.get(1).and_then(Shape::as_array),
        _ => None,
    }
    .ok_or_else(|| {
        ctx.err(format!(
            "result shape {} is not (state, bits)",
            ctx.instr.shape
        ))
    })?;
    if !(2..=3).contains(&words.len()) {
        return Err(ctx.err(format!("the state has {} words, not 2 or 3", words.len())));
    }
    let dims = dims_usize(ctx, &out.dims)?;
    let (new_state, bits) = rng::bit_generator(algorithm, words, &dims, out.ty.bit_width());
    let data = from_bits(out.ty, &bits)
        .ok_or_else(|| ctx.err(format!("{} bits are not generated", out.ty)))?;
    Ok(Literal::Tuple(vec![
        Literal::Array {
            shape: ArrayShape::new(ElementType::U64, &[new_state.len() as i64]),
            data: ArrayData::U64(new_state),
        },
        Literal::Array {
            shape: out.clone(),
            data,
        },
    ]))
}

/// `RngUniform(a, b)` / `RngNormal(mu, sigma)` of the instruction's shape, keyed by `seed`.
pub(super) fn rng(
    ctx: &Ctx<'_>,
    distribution: RngDistribution,
    seed: u64,
    p0: &Literal,
    p1: &Literal,
) -> Result<Literal> {
    let out = ctx.out_array()?.clone();
    let n: usize = dims_usize(ctx, &out.dims)?.iter().product();
    let ((ia, fa), (ib, fb)) = (scalar(ctx, p0)?, scalar(ctx, p1)?);
    let ty = out.ty;
    let data = match distribution {
        RngDistribution::Uniform if ty.is_integral() => {
            let w = ty.bit_width();
            let bits = rng::distribution_bits(seed, n, w);
            let v: Vec<u64> = bits
                .iter()
                .map(|&x| rng::uniform_int(x, ia, ib, w))
                .collect();
            from_bits(ty, &v)
        }
        RngDistribution::Uniform => {
            let (w, m) = rng::float_draw(ty, false);
            let bits = rng::distribution_bits(seed, n, w);
            let v: Vec<f64> = bits
                .iter()
                .map(|&x| rng::uniform_float(x, w, m, fa, fb))
                .collect();
            from_f64(ty, &v)
        }
        RngDistribution::Normal => {
            let (w, m) = rng::float_draw(ty, true);
            let bits = rng::distribution_bits(seed, n.div_ceil(2) * 2, w);
            let v: Vec<f64> = bits
                .chunks_exact(2)
                .flat_map(|p| rng::normal_pair([p[0], p[1]], w, m, fa, fb))
                .take(n)
                .collect();
            from_f64(ty, &v)
        }
    }
    .ok_or_else(|| ctx.err(format!("{} draws no {ty}", distribution.name())))?;
    Ok(Literal::Array { shape: out, data })
}
