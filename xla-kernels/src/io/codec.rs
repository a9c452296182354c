//! Raw element bytes to and from [`ArrayData`], in either byte order, and the Fortran-order
//! copy. Shared by every format: they differ in their headers, not in how elements are stored.

use half::{bf16, f16};
use num_complex::Complex;
use xla_core::{ArrayData, ElementType};

/// Splits `bytes` into `N`-byte elements (in file order) and converts each; `big_endian`
/// elements are reversed first so `from_le` always sees little-endian bytes.
fn decode_units<const N: usize, T>(
    bytes: &[u8],
    big_endian: bool,
    from_le: fn([u8; N]) -> T,
) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|c| {
            let mut a = [0u8; N];
            a.copy_from_slice(c);
            if big_endian {
                a.reverse();
            }
            from_le(a)
        })
        .collect()
}

/// Pairs of components (real, imaginary) into complex numbers.
fn pairs<T: Copy>(parts: Vec<T>) -> Vec<Complex<T>> {
    parts
        .chunks_exact(2)
        .map(|p| Complex::new(p[0], p[1]))
        .collect()
}

/// Decodes `bytes` (a whole number of elements, checked by the caller) as elements of `ty`.
/// Complex numbers are two components, each in the given byte order, real first (numpy's and
/// safetensors' layout). `Err` names the first byte of a bool array that is not 0 or 1.
pub(crate) fn decode(ty: ElementType, big_endian: bool, bytes: &[u8]) -> Result<ArrayData, String> {
    let be = big_endian;
    Ok(match ty {
        ElementType::Pred => {
            // Any other byte would be an invalid bool; numpy itself only writes 0 and 1.
            if let Some(i) = bytes.iter().position(|&b| b > 1) {
                return Err(format!(
                    "element {i} of a bool array is the byte {:#04x}, not 0 or 1",
                    bytes[i]
                ));
            }
            ArrayData::Pred(bytes.iter().map(|&b| b == 1).collect())
        }
        ElementType::S8 => ArrayData::S8(decode_units(bytes, be, i8::from_le_bytes)),
        ElementType::S16 => ArrayData::S16(decode_units(bytes, be, i16::from_le_bytes)),
        ElementType::S32 => ArrayData::S32(decode_units(bytes, be, i32::from_le_bytes)),
        ElementType::S64 => ArrayData::S64(decode_units(bytes, be, i64::from_le_bytes)),
        ElementType::U8 => ArrayData::U8(bytes.to_vec()),
        ElementType::U16 => ArrayData::U16(decode_units(bytes, be, u16::from_le_bytes)),
        ElementType::U32 => ArrayData::U32(decode_units(bytes, be, u32::from_le_bytes)),
        ElementType::U64 => ArrayData::U64(decode_units(bytes, be, u64::from_le_bytes)),
        ElementType::F16 => ArrayData::F16(decode_units(bytes, be, |a| {
            f16::from_bits(u16::from_le_bytes(a))
        })),
        ElementType::Bf16 => ArrayData::Bf16(decode_units(bytes, be, |a| {
            bf16::from_bits(u16::from_le_bytes(a))
        })),
        ElementType::F32 => ArrayData::F32(decode_units(bytes, be, f32::from_le_bytes)),
        ElementType::F64 => ArrayData::F64(decode_units(bytes, be, f64::from_le_bytes)),
        ElementType::C64 => ArrayData::C64(pairs(decode_units(bytes, be, f32::from_le_bytes))),
        ElementType::C128 => ArrayData::C128(pairs(decode_units(bytes, be, f64::from_le_bytes))),
    })
}

/// Appends the elements of `data` to `out`, little-endian, in order.
pub(crate) fn encode(data: &ArrayData, out: &mut Vec<u8>) {
    macro_rules! le {
        ($v:expr, |$x:ident| $bytes:expr) => {{
            // The in-memory size of these types is their encoded size.
            out.reserve(std::mem::size_of_val(&$v[..]));
            for &$x in $v.iter() {
                out.extend_from_slice(&$bytes);
            }
        }};
    }
    match data {
        ArrayData::Pred(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        ArrayData::S8(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::S16(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::S32(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::S64(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::U8(v) => out.extend_from_slice(v),
        ArrayData::U16(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::U32(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::U64(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::F16(v) => le!(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::Bf16(v) => le!(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::F32(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::F64(v) => le!(v, |x| x.to_le_bytes()),
        ArrayData::C64(v) => le!(v, |x| {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&x.re.to_le_bytes());
            b[4..].copy_from_slice(&x.im.to_le_bytes());
            b
        }),
        ArrayData::C128(v) => le!(v, |x| {
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&x.re.to_le_bytes());
            b[8..].copy_from_slice(&x.im.to_le_bytes());
            b
        }),
    }
}

/// The elements of a Fortran-order (column-major) array of `dims`, `elem` bytes each, copied
/// into row-major order. Any rank (numpy allows 64, more than a `Tensor`'s 8). The caller has
/// checked `bytes.len() == product(dims) * elem`.
pub(crate) fn fortran_to_row_major(bytes: &[u8], dims: &[usize], elem: usize) -> Vec<u8> {
    let rank = dims.len();
    if rank < 2 || dims.contains(&0) {
        // Rank 0 and 1, and empty arrays, are the same in both orders.
        return bytes.to_vec();
    }
    // Column-major: dimension 0 varies fastest.
    let mut strides = vec![0usize; rank];
    let mut acc = elem;
    for (s, &d) in strides.iter_mut().zip(dims) {
        *s = acc;
        acc *= d;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut idx = vec![0usize; rank];
    let mut off = 0usize;
    // Visit logical indices in row-major order (last index fastest), reading at `off`.
    loop {
        out.extend_from_slice(&bytes[off..off + elem]);
        let mut d = rank;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            off += strides[d];
            if idx[d] < dims[d] {
                break;
            }
            off -= strides[d] * dims[d];
            idx[d] = 0;
        }
    }
}
