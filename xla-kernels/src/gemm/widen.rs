//! f16 / bf16 GEMM: operands widened to dense f32 (exact), the packed f32 kernel, each result
//! rounded once to the narrow type (XLA:CPU's dot on f16/bf16 also accumulates in f32).
//!
//! Why widen whole operands rather than convert inside the packing routines: the conversion is
//! `m k + k n + m n` elements against `m n k` multiply-adds, and with slice conversions (a
//! 16-bit shift for bf16, F16C through `half` for f16, both vectorised) and rows converted in
//! parallel it costs a few percent of a 1024^3 product (measured in `examples/gemm_types.rs`);
//! converting in the packing routines would couple every packing variant of the f32 kernel to
//! the narrow types. The dense f32 copies live in the [`GemmScratch`](super::GemmScratch), so a
//! warm scratch allocates nothing.
//!
//! Rounding: `C = round(A B)`; accumulating, `C = round(C + round(A B))` (the second rounding
//! is the one an unfused add in the narrow type makes).

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};
use rayon::prelude::*;

use super::kernel::{self, strides, Buffers, PAR_MIN_FLOPS};
use super::{offset, GemmDesc};

/// A 16-bit float type computed through f32.
pub(crate) trait Narrow: Copy + Default + Send + Sync + 'static {
    /// `dst[i] = src[i]` widened (exact).
    fn widen(src: &[Self], dst: &mut [f32]);
    /// `dst[i] = round(src[i])` to nearest even.
    fn narrow(src: &[f32], dst: &mut [Self]);
    /// One value widened (exact).
    fn to_f32(self) -> f32;
    /// One value rounded to nearest even.
    fn from_f32(x: f32) -> Self;
}

impl Narrow for f16 {
    fn widen(src: &[f16], dst: &mut [f32]) {
        src.convert_to_f32_slice(dst)
    }
    fn narrow(src: &[f32], dst: &mut [f16]) {
        dst.convert_from_f32_slice(src)
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

impl Narrow for bf16 {
    fn widen(src: &[bf16], dst: &mut [f32]) {
        // bf16 is the top half of an f32: a shift, which the compiler vectorises.
        for (d, s) in dst.iter_mut().zip(src) {
            *d = f32::from_bits(u32::from(s.to_bits()) << 16);
        }
    }
    fn narrow(src: &[f32], dst: &mut [bf16]) {
        dst.convert_from_f32_slice(src)
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}

/// Widened operands: A (`batch x m x k`), B (`batch x k x n`), C (`batch x m x n`), dense.
pub(crate) type Widened = [Vec<f32>; 3];

/// Grows `buf` to at least `len` (never shrinks, never re-zeroes: every element read later is
/// written first).
fn ensure_len(buf: &mut Vec<f32>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0.0);
    }
}

/// Rows of at least this many elements in total are converted on rayon (a fork/join costs
/// about as much as converting 16K elements).
const PAR_MIN_ELEMS: usize = 1 << 16;

/// Widens the `items x rows x cols` operand `x` (strides `s`) into dense `dst`.
fn widen_operand<T: Narrow>(x: &[T], s: [isize; 3], rows: usize, cols: usize, dst: &mut [f32]) {
    let row = |t: usize, out: &mut [f32]| {
        let (bi, i) = (t / rows, t % rows);
        let o = offset(bi, i, 0, s);
        if s[2] == 1 {
            T::widen(&x[o..o + cols], out);
        } else {
            for (j, v) in out.iter_mut().enumerate() {
                *v = x[offset(bi, i, j, s)].to_f32();
            }
        }
    };
    if dst.len() >= PAR_MIN_ELEMS {
        dst.par_chunks_exact_mut(cols)
            .enumerate()
            .for_each(|(t, out)| row(t, out));
    } else {
        dst.chunks_exact_mut(cols)
            .enumerate()
            .for_each(|(t, out)| row(t, out));
    }
}

/// Distinct batch items of an operand: 1 when it is broadcast (batch stride 0).
fn items(batch: usize, batch_stride: isize) -> usize {
    if batch_stride == 0 {
        1
    } else {
        batch
    }
}

/// `C = A B` (`+ C`) for f16/bf16 on validated strides with `batch, m, n > 0`.
pub(crate) fn gemm_narrow<T: Narrow>(
    d: &GemmDesc,
    a: &[T],
    b: &[T],
    c: &mut [T],
    real: &mut Buffers<f32>,
    w: &mut Widened,
) {
    let (sa, sb, sc) = strides(d);
    let (m, n, k) = (d.m, d.n, d.k);
    let [wa, wb, wc] = w;
    let (na, nb) = (items(d.batch, sa[0]), items(d.batch, sb[0]));
    ensure_len(wa, na * m * k);
    ensure_len(wb, nb * k * n);
    ensure_len(wc, d.batch * m * n);
    if k > 0 {
        widen_operand(a, sa, m, k, &mut wa[..na * m * k]);
        widen_operand(b, sb, k, n, &mut wb[..nb * k * n]);
    }
    let dense = GemmDesc {
        a_batch_stride: if na == 1 { 0 } else { (m * k) as isize },
        b_batch_stride: if nb == 1 { 0 } else { (k * n) as isize },
        ..GemmDesc::row_major(d.batch, m, n, k)
    };
    let wc = &mut wc[..d.batch * m * n];
    kernel::gemm_float::<crate::simd::F32V>(&dense, &wa[..na * m * k], &wb[..nb * k * n], wc, real);
    let parallel = d.flops() >= PAR_MIN_FLOPS && wc.len() >= PAR_MIN_ELEMS;
    if !d.accumulate && sc[2] == 1 {
        // Rows of C are contiguous: round whole rows with the slice conversion.
        let out = super::OutPtr::new(c);
        let row = |t: usize, vals: &[f32]| {
            let (bi, i) = (t / m, t % m);
            // SAFETY: row (bi, i) of C (n contiguous elements, inside the validated extent)
            // belongs to this task alone: C's strides were validated injective.
            let dst = unsafe { out.slice(offset(bi, i, 0, sc), n) };
            T::narrow(vals, dst);
        };
        if parallel {
            wc.par_chunks_exact(n)
                .enumerate()
                .for_each(|(t, v)| row(t, v));
        } else {
            wc.chunks_exact(n).enumerate().for_each(|(t, v)| row(t, v));
        }
        return;
    }
    let mut vals = wc.iter();
    for bi in 0..d.batch {
        for i in 0..m {
            for j in 0..n {
                let v = T::from_f32(*vals.next().expect("batch*m*n results"));
                let o = offset(bi, i, j, sc);
                c[o] = if d.accumulate {
                    T::from_f32(c[o].to_f32() + v.to_f32())
                } else {
                    v
                };
            }
        }
    }
}
