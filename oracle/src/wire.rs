//! Literals to and from the oracle's wire format: row-major little-endian bytes, pred as one
//! byte per element, complex as (re, im) pairs.

use num_complex::Complex;
use xla_core::{ArrayData, ArrayShape, ElementType, Literal};

/// The little-endian bytes of `data`.
pub fn to_bytes(data: &ArrayData) -> Vec<u8> {
    fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|&x| f(x)).collect()
    }
    match data {
        ArrayData::Pred(v) => v.iter().map(|&b| b as u8).collect(),
        ArrayData::S8(v) => le(v, i8::to_le_bytes),
        ArrayData::S16(v) => le(v, i16::to_le_bytes),
        ArrayData::S32(v) => le(v, i32::to_le_bytes),
        ArrayData::S64(v) => le(v, i64::to_le_bytes),
        ArrayData::U8(v) => v.clone(),
        ArrayData::U16(v) => le(v, u16::to_le_bytes),
        ArrayData::U32(v) => le(v, u32::to_le_bytes),
        ArrayData::U64(v) => le(v, u64::to_le_bytes),
        ArrayData::F16(v) => le(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::Bf16(v) => le(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::F32(v) => le(v, f32::to_le_bytes),
        ArrayData::F64(v) => le(v, f64::to_le_bytes),
        ArrayData::C64(v) => v
            .iter()
            .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()])
            .flatten()
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()])
            .flatten()
            .collect(),
    }
}

/// An array literal of element type `ty` and dimensions `dims` from little-endian bytes.
pub fn from_bytes(ty: ElementType, dims: &[i64], bytes: &[u8]) -> Result<Literal, String> {
    let shape = ArrayShape::new(ty, dims);
    let n = shape.element_count() as usize;
    if bytes.len() != n * ty.byte_width() {
        return Err(format!(
            "{} bytes for {}",
            bytes.len(),
            xla_core::Shape::Array(shape)
        ));
    }
    fn chunks<const N: usize, T>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        b.chunks_exact(N)
            .map(|c| f(c.try_into().unwrap_or([0; N])))
            .collect()
    }
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(bytes.iter().map(|&b| b != 0).collect()),
        ElementType::S8 => ArrayData::S8(chunks(bytes, i8::from_le_bytes)),
        ElementType::S16 => ArrayData::S16(chunks(bytes, i16::from_le_bytes)),
        ElementType::S32 => ArrayData::S32(chunks(bytes, i32::from_le_bytes)),
        ElementType::S64 => ArrayData::S64(chunks(bytes, i64::from_le_bytes)),
        ElementType::U8 => ArrayData::U8(bytes.to_vec()),
        ElementType::U16 => ArrayData::U16(chunks(bytes, u16::from_le_bytes)),
        ElementType::U32 => ArrayData::U32(chunks(bytes, u32::from_le_bytes)),
        ElementType::U64 => ArrayData::U64(chunks(bytes, u64::from_le_bytes)),
        ElementType::F16 => ArrayData::F16(chunks(bytes, |b| {
            half::f16::from_bits(u16::from_le_bytes(b))
        })),
        ElementType::Bf16 => ArrayData::Bf16(chunks(bytes, |b| {
            half::bf16::from_bits(u16::from_le_bytes(b))
        })),
        ElementType::F32 => ArrayData::F32(chunks(bytes, f32::from_le_bytes)),
        ElementType::F64 => ArrayData::F64(chunks(bytes, f64::from_le_bytes)),
        ElementType::C64 => ArrayData::C64(chunks(bytes, |b: [u8; 8]| {
            let (re, im) = b.split_at(4);
            Complex::new(
                f32::from_le_bytes(re.try_into().unwrap_or([0; 4])),
                f32::from_le_bytes(im.try_into().unwrap_or([0; 4])),
            )
        })),
        ElementType::C128 => ArrayData::C128(chunks(bytes, |b: [u8; 16]| {
            let (re, im) = b.split_at(8);
            Complex::new(
                f64::from_le_bytes(re.try_into().unwrap_or([0; 8])),
                f64::from_le_bytes(im.try_into().unwrap_or([0; 8])),
            )
        })),
    };
    Ok(Literal::Array { shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_every_type() {
        for ty in ElementType::ALL {
            let lit = crate::random::random_literal(
                &ArrayShape::new(ty, &[3, 2]),
                7,
                crate::random::Dist::Special,
            );
            let (shape, data) = lit.as_array().unwrap();
            let bytes = to_bytes(data);
            assert_eq!(bytes.len(), 6 * ty.byte_width(), "{ty}");
            let back = from_bytes(ty, &shape.dims, &bytes).unwrap();
            assert_eq!(to_bytes(back.as_array().unwrap().1), bytes, "{ty}");
        }
        assert!(from_bytes(ElementType::F32, &[2], &[0; 7]).is_err());
    }
}
