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
//! Speed (same method as in `complex`: XLA's `jnp.dot` on bfloat16/float16 alternated row by
//! row with `examples/gemm_types.rs`, twice, 2 threads, loaded machine): bf16 1024^3 XLA
//! 40.7-42.9 ms, ours 39.3-47.0 ms (0.87-1.09x: a tie within the noise); bf16 256^3 XLA
//! 476-534 us, ours 668-1008 us (0.5-0.7x, the f32 kernel's 256^3 gap, see `backend`);
//! f16 1024^3 XLA 38.9 / 84.1 ms, ours 42.7 / 98.4 ms (0.85-0.91x). In the same binary,
//! bf16 1024^3 and f32 1024^3 alternate within noise of each other (44 vs 51, 40 vs 32,
//! 29.5 vs 29.8 GFLOP/s): the conversions are not the limit, the f32 kernel is.
//!
//! Rounding: `C = round(A B)`; accumulating, `C = round(C + round(A B))` (the second rounding
//! is the one an unfused add in the narrow type makes).

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};
use rayon::prelude::*;

use super::kernel::{self, strides, Buffers, PAR_MIN_FLOPS};
use super::pack::ensure_len;
use super::{items, offset, GemmDesc};

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
    kernel::gemm_real(&dense, &wa[..na * m * k], &wb[..nb * k * n], wc, real);
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

#[cfg(test)]
mod tests {
    //! f16/bf16 against the definition: the f32 GEMM of the widened operands (dense,
    //! row-major) rounded once per element, bit for bit, on every operand layout, broadcast
    //! batches, accumulate, NaN-filled outputs, 1 and 2 threads; and within one narrow ulp of
    //! the exact sum.

    use half::{bf16, f16};

    use super::Narrow;
    use crate::gemm::{gemm, GemmDesc, GemmElem, GemmScratch};

    /// Strides `[batch, row, col]` and length for layout `l` of a `batch x rows x cols`
    /// operand: 0 row-major, 1 column-major, 2 padded rows, 3 no contiguous dimension,
    /// 4 broadcast over the batch (stride 0).
    fn layout(l: usize, batch: usize, rows: usize, cols: usize) -> ([isize; 3], usize) {
        let (r, c) = (rows as isize, cols as isize);
        let s = match l {
            0 => [r * c, c, 1],
            1 => [r * c, 1, r],
            2 => [r * (c + 3) + 5, c + 3, 1],
            3 => [2 * r * c, 2 * c, 2],
            _ => [0, c, 1],
        };
        (s, ((batch as isize * s[0]).max(1) + r * c * 2) as usize)
    }

    fn vals<T: Narrow>(len: usize, seed: u32) -> Vec<T> {
        (0..len as u32)
            .map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) ^ seed).wrapping_mul(40_503) >> 20;
                T::from_f32(x as f32 / 2048.0 - 1.0)
            })
            .collect()
    }

    fn off(bi: usize, i: usize, j: usize, s: [isize; 3]) -> usize {
        (bi as isize * s[0] + i as isize * s[1] + j as isize * s[2]) as usize
    }

    /// Runs one case through `gemm::<T>` and checks it against the definition.
    fn check<T: Narrow + GemmElem + std::fmt::Debug>(
        batch: usize,
        (m, n, k): (usize, usize, usize),
        (la, lb, lc): (usize, usize, usize),
        acc: bool,
    ) -> Vec<T> {
        let (sa, a_len) = layout(la, batch, m, k);
        let (sb, b_len) = layout(lb, batch, k, n);
        let (sc, c_len) = layout(lc.min(3), batch, m, n);
        let d = GemmDesc {
            accumulate: acc,
            ..GemmDesc::from_strides(batch, m, n, k, sa, sb, sc)
        };
        let a: Vec<T> = vals(a_len, 1);
        let b: Vec<T> = vals(b_len, 2);
        let c0: Vec<T> = if acc {
            vals(c_len, 3)
        } else {
            vec![T::from_f32(f32::NAN); c_len]
        };
        let mut c = c0.clone();
        gemm(&d, &a, &b, &mut c, &mut GemmScratch::new()).expect("valid case");
        // The definition: dense f32 copies, the f32 GEMM, one rounding.
        let mut wa = Vec::new();
        let mut wb = Vec::new();
        for bi in 0..batch {
            wa.extend((0..m * k).map(|t| a[off(bi, t / k, t % k, sa)].to_f32()));
            wb.extend((0..k * n).map(|t| b[off(bi, t / n, t % n, sb)].to_f32()));
        }
        let mut wc = vec![f32::NAN; batch * m * n];
        let dense = GemmDesc::row_major(batch, m, n, k);
        gemm(&dense, &wa, &wb, &mut wc, &mut GemmScratch::new()).expect("valid");
        let bits = |x: T| x.to_f32().to_bits();
        let mut touched = vec![false; c_len];
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let o = off(bi, i, j, sc);
                    touched[o] = true;
                    let r = T::from_f32(wc[(bi * m + i) * n + j]);
                    let want = if acc {
                        T::from_f32(c0[o].to_f32() + r.to_f32())
                    } else {
                        r
                    };
                    assert_eq!(bits(c[o]), bits(want), "{d:?} at ({bi},{i},{j})");
                    // And close to the exact sum (values are multiples of 2^-11 in [-1, 1)).
                    let exact: f64 = (0..k)
                        .map(|p| wa[(bi * m + i) * k + p] as f64 * wb[(bi * k + p) * n + j] as f64)
                        .sum();
                    let got = r.to_f32() as f64;
                    let ulp = (exact.abs().max(1e-3) * 2f64.powi(-7)).max(2f64.powi(-24));
                    assert!((got - exact).abs() <= ulp, "{d:?}: {got} vs exact {exact}");
                }
            }
        }
        for (o, t) in touched.into_iter().enumerate() {
            if !t {
                assert_eq!(
                    bits(c[o]),
                    bits(c0[o]),
                    "{d:?}: element {o} outside C written"
                );
            }
        }
        c
    }

    fn both(batch: usize, mnk: (usize, usize, usize), l: (usize, usize, usize), acc: bool) {
        check::<f16>(batch, mnk, l, acc);
        check::<bf16>(batch, mnk, l, acc);
    }

    #[test]
    fn sizes_around_the_blocks() {
        for &m in &[1, 2, 6, 7, 25, 121] {
            for &n in &[1, 3, 8, 17, 33] {
                for &k in &[0, 1, 5, 255, 257] {
                    both(1, (m, n, k), (0, 0, 0), (m + n + k) % 2 == 1);
                }
            }
        }
    }

    #[test]
    fn every_layout_and_broadcast() {
        for la in 0..5 {
            for lb in 0..5 {
                for lc in 0..4 {
                    both(3, (7, 9, 13), (la, lb, lc), la % 2 == 0);
                    both(2, (1, 20, 6), (la, lb, lc), lb % 2 == 1);
                }
            }
        }
    }

    #[test]
    fn large_and_identical_bits_on_one_and_two_threads() {
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| {
                    let x = check::<bf16>(2, (130, 150, 300), (0, 1, 0), false);
                    let y = check::<f16>(1, (300, 257, 64), (2, 0, 3), true);
                    let b = |v: &[_]| v.iter().map(|t: &bf16| t.to_bits()).collect::<Vec<_>>();
                    (b(&x), y.iter().map(|t| t.to_bits()).collect::<Vec<_>>())
                })
        };
        assert_eq!(run(1), run(2));
    }
}
