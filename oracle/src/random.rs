//! Deterministic random literals for oracle tests (splitmix64; no dependency, same values on
//! every machine and run).

use num_complex::Complex;
use xla_core::{ArrayData, ArrayShape, ElementType, Literal};

/// How to draw elements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    /// Integers: any bit pattern; floats: uniform in [-10, 10]; pred: a fair coin.
    Any,
    /// Uniform in [lo, hi] (integers: the integers in it, clamped to the type's range; pred: a
    /// fair coin). E.g. `Range(0.01, 100.0)` for log/sqrt, `Range(-5.0, 5.0)` for exp.
    Range(f64, f64),
    /// Like `Any`, with about a quarter of the elements special: for floats 0, -0, ±inf, NaN,
    /// ±max, ±1; for integers 0, 1, -1, min, max. No subnormals: XLA:CPU runs with
    /// flush-to-zero and denormals-are-zero, so a subnormal input is read as 0 there (see
    /// `Dist::Subnormal`).
    Special,
    /// Like `Special` plus ±min normal and the smallest subnormals, for tests of the
    /// flush-to-zero behaviour itself.
    Subnormal,
    /// Any bit pattern, floats included (NaN payloads, subnormals): for bitcasts and
    /// reduce_precision.
    Bits,
}

/// splitmix64: a small, good, seedable generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True for about a quarter of the draws.
    fn special(&mut self) -> bool {
        self.next().is_multiple_of(4)
    }
}

/// A float of component type `ty` (f16, bf16, f32, f64), drawn as f64 and rounded to `ty`
/// by the caller; special values are picked from the type's own extremes.
fn float(r: &mut Rng, ty: ElementType, dist: Dist) -> f64 {
    let (max, min_normal, min_sub) = match ty {
        ElementType::F16 => (65504.0, 6.103_515_625e-5, 5.960_464_477_539_063e-8),
        ElementType::Bf16 => (
            3.389_531_389_251_535_5e38,
            f32::MIN_POSITIVE as f64,
            9.183_549_615_799_121e-41,
        ),
        ElementType::F32 => (
            f32::MAX as f64,
            f32::MIN_POSITIVE as f64,
            f32::from_bits(1) as f64,
        ),
        _ => (f64::MAX, f64::MIN_POSITIVE, f64::from_bits(1)),
    };
    match dist {
        Dist::Any | Dist::Bits => r.unit() * 20.0 - 10.0,
        Dist::Range(lo, hi) => lo + r.unit() * (hi - lo),
        Dist::Special | Dist::Subnormal => {
            let normal = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                max,
                -max,
                1.0,
                -1.0,
            ];
            let tiny = [min_normal, -min_normal, min_sub, -min_sub];
            if !r.special() {
                r.unit() * 20.0 - 10.0
            } else if dist == Dist::Subnormal && r.next().is_multiple_of(2) {
                tiny[r.below(tiny.len())]
            } else {
                normal[r.below(normal.len())]
            }
        }
    }
}

/// An integer of type `ty` as raw bits (two's complement, truncated by the caller).
fn int(r: &mut Rng, ty: ElementType, dist: Dist) -> u64 {
    let bits = ty.bit_width();
    let (min, max): (i128, i128) = if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match dist {
        Dist::Any | Dist::Bits => r.next(),
        Dist::Range(lo, hi) => {
            let lo = (lo.ceil() as i128).clamp(min, max);
            let hi = (hi.floor() as i128).clamp(lo, max);
            let span = (hi - lo + 1) as u128;
            (lo + (r.next() as u128 % span) as i128) as u64
        }
        Dist::Special | Dist::Subnormal => {
            if r.special() {
                let s = [0, 1, -1, min, max];
                s[r.below(s.len())] as u64
            } else {
                r.next()
            }
        }
    }
}

/// A literal of `shape` with elements drawn from `dist`, the same for the same `seed`.
pub fn random_literal(shape: &ArrayShape, seed: u64, dist: Dist) -> Literal {
    let mut r = Rng(seed ^ 0x5EED_0F0A_C1E5);
    let n = shape.element_count().max(0) as usize;
    let bits = matches!(dist, Dist::Bits);
    let data = match shape.ty {
        ElementType::Pred => ArrayData::Pred((0..n).map(|_| r.next() & 1 == 1).collect()),
        ElementType::S8 => {
            ArrayData::S8((0..n).map(|_| int(&mut r, shape.ty, dist) as i8).collect())
        }
        ElementType::S16 => {
            ArrayData::S16((0..n).map(|_| int(&mut r, shape.ty, dist) as i16).collect())
        }
        ElementType::S32 => {
            ArrayData::S32((0..n).map(|_| int(&mut r, shape.ty, dist) as i32).collect())
        }
        ElementType::S64 => {
            ArrayData::S64((0..n).map(|_| int(&mut r, shape.ty, dist) as i64).collect())
        }
        ElementType::U8 => {
            ArrayData::U8((0..n).map(|_| int(&mut r, shape.ty, dist) as u8).collect())
        }
        ElementType::U16 => {
            ArrayData::U16((0..n).map(|_| int(&mut r, shape.ty, dist) as u16).collect())
        }
        ElementType::U32 => {
            ArrayData::U32((0..n).map(|_| int(&mut r, shape.ty, dist) as u32).collect())
        }
        ElementType::U64 => ArrayData::U64((0..n).map(|_| int(&mut r, shape.ty, dist)).collect()),
        ElementType::F16 => ArrayData::F16(
            (0..n)
                .map(|_| {
                    if bits {
                        half::f16::from_bits(r.next() as u16)
                    } else {
                        half::f16::from_f64(float(&mut r, shape.ty, dist))
                    }
                })
                .collect(),
        ),
        ElementType::Bf16 => ArrayData::Bf16(
            (0..n)
                .map(|_| {
                    if bits {
                        half::bf16::from_bits(r.next() as u16)
                    } else {
                        half::bf16::from_f64(float(&mut r, shape.ty, dist))
                    }
                })
                .collect(),
        ),
        ElementType::F32 => ArrayData::F32((0..n).map(|_| f32_of(&mut r, dist)).collect()),
        ElementType::F64 => ArrayData::F64((0..n).map(|_| f64_of(&mut r, dist)).collect()),
        ElementType::C64 => ArrayData::C64(
            (0..n)
                .map(|_| Complex::new(f32_of(&mut r, dist), f32_of(&mut r, dist)))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            (0..n)
                .map(|_| Complex::new(f64_of(&mut r, dist), f64_of(&mut r, dist)))
                .collect(),
        ),
    };
    Literal::Array {
        shape: ArrayShape::new(shape.ty, &shape.dims),
        data,
    }
}

fn f32_of(r: &mut Rng, dist: Dist) -> f32 {
    if matches!(dist, Dist::Bits) {
        f32::from_bits(r.next() as u32)
    } else {
        float(r, ElementType::F32, dist) as f32
    }
}

fn f64_of(r: &mut Rng, dist: Dist) -> f64 {
    if matches!(dist, Dist::Bits) {
        f64::from_bits(r.next())
    } else {
        float(r, ElementType::F64, dist)
    }
}

/// The integers of an s32 literal as `ty` when `ty` is a float or complex type (complex: the
/// integer plus `(x % 3)·i`), so sums and products of small values stay exact and every
/// summation order gives the same bits; `None` for other types (draw those directly).
pub fn ints_as(ty: ElementType, ints: &Literal) -> Option<Literal> {
    let (shape, _) = ints.as_array()?;
    let v = ints.as_slice::<i32>()?;
    let dims = &shape.dims;
    let f = |x: i32| f64::from(x);
    let lit = match ty {
        ElementType::F16 => {
            Literal::from_vec(dims, v.iter().map(|&x| half::f16::from_f64(f(x))).collect())
        }
        ElementType::Bf16 => Literal::from_vec(
            dims,
            v.iter().map(|&x| half::bf16::from_f64(f(x))).collect(),
        ),
        ElementType::F32 => Literal::from_vec(dims, v.iter().map(|&x| x as f32).collect()),
        ElementType::F64 => Literal::from_vec(dims, v.iter().map(|&x| f(x)).collect()),
        ElementType::C64 => Literal::from_vec(
            dims,
            v.iter()
                .map(|&x| Complex::new(x as f32, (x % 3) as f32))
                .collect(),
        ),
        ElementType::C128 => Literal::from_vec(
            dims,
            v.iter().map(|&x| Complex::new(f(x), f(x % 3))).collect(),
        ),
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64 => return None,
    };
    lit.ok()
}

/// An index literal of integer type `ty` and shape `dims` holding `v` (negative values of
/// unsigned types wrap to huge ones, far out of range): start indices for Gather, Scatter and
/// the dynamic slices. Panics on a non-integer `ty` (a test's own mistake).
pub fn index_literal(ty: ElementType, dims: &[i64], v: &[i64]) -> Literal {
    use ElementType::*;
    macro_rules! lit {
        ($t:ty) => {
            Literal::from_vec(dims, v.iter().map(|&x| x as $t).collect())
        };
    }
    match ty {
        S8 => lit!(i8),
        S16 => lit!(i16),
        S32 => lit!(i32),
        S64 => lit!(i64),
        U8 => lit!(u8),
        U16 => lit!(u16),
        U32 => lit!(u32),
        U64 => lit!(u64),
        _ => panic!("{ty} is not an index type"),
    }
    .expect("index literal")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let s = ArrayShape::new(ElementType::F32, &[64]);
        let a = random_literal(&s, 1, Dist::Range(0.5, 2.0));
        assert_eq!(a, random_literal(&s, 1, Dist::Range(0.5, 2.0)));
        assert_ne!(a, random_literal(&s, 2, Dist::Range(0.5, 2.0)));
        assert!(a
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .all(|&x| (0.5..=2.0).contains(&x)));
        let i = random_literal(
            &ArrayShape::new(ElementType::U8, &[200]),
            3,
            Dist::Range(0.0, 9.0),
        );
        assert!(i.as_slice::<u8>().unwrap().iter().all(|&x| x <= 9));
        assert!(i.as_slice::<u8>().unwrap().contains(&9));
    }

    #[test]
    fn special_includes_nan_inf_and_negative_zero() {
        let a = random_literal(&ArrayShape::new(ElementType::F64, &[400]), 9, Dist::Special);
        let v = a.as_slice::<f64>().unwrap();
        assert!(v.iter().any(|x| x.is_nan()));
        assert!(v.iter().any(|x| x.is_infinite()));
        assert!(v.iter().any(|x| *x == 0.0 && x.is_sign_negative()));
        let s = random_literal(&ArrayShape::new(ElementType::S16, &[400]), 9, Dist::Special);
        assert!(s.as_slice::<i16>().unwrap().contains(&i16::MIN));
    }
}
