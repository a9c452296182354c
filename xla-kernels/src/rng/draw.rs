//! RngUniform and RngNormal: Philox words keyed by the call site's seed (counter 0), turned
//! into numbers by `xla_core::rng`'s per-element formulas in f64, so the evaluator and these
//! kernels agree bit for bit. Chunks of [`CHUNK`] outputs draw their words into a stack buffer:
//! no allocation.

use xla_core::rng as r;
use xla_core::{ElementType, RngDistribution};

use super::{block, Bits};
use crate::error::KernelError;
use crate::par;

/// Outputs per task and per stack buffer (a multiple of 32: whole 8-block Philox calls).
const CHUNK: usize = 1024;

/// An element type RngUniform or RngNormal draws.
pub trait Draw: Bits {
    /// Its element type.
    const TY: ElementType;
    /// Its bits, sign-extended (integers) as a word.
    fn to_word(self) -> u64;
    /// Its value (floats).
    fn to_f64(self) -> f64;
    /// `v` rounded to it (floats).
    fn from_f64(v: f64) -> Self;
}

macro_rules! draw_int {
    ($($t:ty: $ty:ident),*) => {$(
        impl Draw for $t {
            const TY: ElementType = ElementType::$ty;
            fn to_word(self) -> u64 { self as u64 }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
        }
    )*};
}
draw_int!(i32: S32, i64: S64, u32: U32, u64: U64);

macro_rules! draw_float {
    ($($t:ty: $ty:ident, |$x:ident| $to:expr, |$v:ident| $from:expr;)*) => {$(
        impl Draw for $t {
            const TY: ElementType = ElementType::$ty;
            fn to_word(self) -> u64 { 0 }
            fn to_f64(self) -> f64 { let $x = self; $to }
            fn from_f64($v: f64) -> Self { $from }
        }
    )*};
}
draw_float! {
    half::f16: F16, |x| x.to_f64(), |v| half::f16::from_f64(v);
    half::bf16: Bf16, |x| x.to_f64(), |v| half::bf16::from_f64(v);
    f32: F32, |x| f64::from(x), |v| v as f32;
    f64: F64, |x| x, |v| v;
}

/// `RngUniform(p0, p1)` or `RngNormal(p0, p1)` into `out`, keyed by `seed`: uniform floats
/// `a + (b - a)·u`, integers `a + bits % (b - a)`, normals by Box-Muller (`xla_core::rng`).
/// `Err` for a type the distribution does not draw.
pub fn rng<T: Draw>(
    distribution: RngDistribution,
    seed: u64,
    p0: T,
    p1: T,
    out: &mut [T],
) -> Result<(), KernelError> {
    if !xla_core::infer::rng_types(distribution).contains(&T::TY) {
        return Err(KernelError::invalid(
            "rng",
            format!("{} does not draw {}", distribution.name(), T::TY),
        ));
    }
    let int = T::TY.is_integral();
    let normal = distribution == RngDistribution::Normal;
    let (width, mantissa) = if int {
        (T::WIDTH, 0)
    } else {
        r::float_draw(T::TY, normal)
    };
    let key = r::split64(seed);
    let (a, b) = (p0.to_f64(), p1.to_f64());
    let (ia, ib) = (p0.to_word(), p1.to_word());
    // A task holds whole rows of CHUNK outputs (one inline call of all of them when small).
    par::rows(out, CHUNK, |row, block| {
        for (k, o) in block.chunks_mut(CHUNK).enumerate() {
            let mut words = [0u64; CHUNK];
            // Normal draws words in pairs: an odd tail still takes both words of its pair.
            let m = if normal {
                o.len().div_ceil(2) * 2
            } else {
                o.len()
            };
            fill_words(key, seed, (row + k) * CHUNK, width, &mut words[..m]);
            if normal {
                for (pair, w) in o.chunks_mut(2).zip(words.chunks_exact(2)) {
                    let z = r::normal_pair([w[0], w[1]], width, mantissa, a, b);
                    for (y, z) in pair.iter_mut().zip(z) {
                        *y = T::from_f64(z);
                    }
                }
            } else if int {
                for (y, &w) in o.iter_mut().zip(&words) {
                    *y = T::from_word(r::uniform_int(w, ia, ib, width));
                }
            } else {
                for (y, &w) in o.iter_mut().zip(&words) {
                    *y = T::from_f64(r::uniform_float(w, width, mantissa, a, b));
                }
            }
        }
    });
    Ok(())
}

/// Philox words `first..first + out.len()` of `width` bits (state `[seed, 0]`: counter 0 in
/// the low word, the key as the high word).
fn fill_words(key: [u32; 2], seed: u64, first: usize, width: u32, out: &mut [u64]) {
    if width == 64 {
        block::philox_fill(key, 0, seed, first / 2, out);
        return;
    }
    let mut w32 = [0u32; CHUNK];
    let w32 = &mut w32[..out.len()];
    block::philox_fill(key, 0, seed, first / 4, w32);
    let mask = (1u64 << width) - 1;
    for (o, &w) in out.iter_mut().zip(w32.iter()) {
        *o = u64::from(w) & mask;
    }
}
