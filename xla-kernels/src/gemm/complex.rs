//! Complex GEMM (c64, c128) as ONE real GEMM through the packed f32/f64 kernel.
//!
//! With `A` viewed as reals `A'` (`m x 2k`, `A'[i, 2p + s]` = re/im of `a_ip`) and `C` viewed as
//! reals `C'` (`m x 2n`), `C = A B` is exactly `C' = A' B'` for the real `2k x 2n` expansion
//! of B, each complex `b = x + iy` becoming the 2x2 block `[[x, y], [-y, x]]`:
//! `re c = sum_p re a re b - im a im b`, `im c = sum_p re a im b + im a re b`.
//! The flop count is the complex one (`8 m n k`), every flop runs in the tuned real kernel, and
//! A and C are used in place (row-major interleaved storage *is* `A'` and `C'`); only B is
//! rewritten (`4 k n` reals, a cost of order `k n` against `m n k` multiply-adds).
//!
//! For few rows (`m <= 32`) the expansion costs more than the product, and `split` is used
//! instead: `[P; Q] = [re A; im A] B'` with B's reals in place, then `C = P + i Q` recombined
//! (`re c = re P - im Q`, `im c = im P + re Q`).
//!
//! Why this design: the previous generic row loop ran c64 at about 1-2 GFLOP/s; this path runs
//! at the real kernel's speed (c64 1024^3 within noise of f32 1024^3's GFLOP/s in the same
//! run; the expansion is a few percent of it). The alternatives were
//! four real GEMMs on stride-2 views (needs a negated copy of `im A` or `im B` anyway, and
//! four passes over C) and the 3M method (25% fewer flops but three extra operand sums and a
//! weaker error bound than XLA's 4-multiplication products, so results would drift from
//! XLA's).
//!
//! Speed against XLA:CPU (jax 0.10.2 `jnp.dot` on complex64/complex128, jit, best of 3-300 calls)
//! and ours (`CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo run
//! --release -p xla-kernels --example gemm_types -- 3 <row>`, best of 3 rounds), the two
//! alternated row by row, twice; 2 threads, loaded machine (load average 6-7); ours / XLA:
//!
//! | product | XLA best | ours best | speed-up |
//! |---|---|---|---|
//! | c64 1024^3 | 239-240 ms | 180-194 ms | 1.24-1.33x |
//! | c64 256^3 | 2.67-2.70 ms | 1.94-2.23 ms | 1.2-1.4x |
//! | c64 64^3 | 66-69 us | 64 us | 1.0-1.1x |
//! | c64 1x784 * 784x128 | 53-55 us | 29-31 us | 1.8x |
//! | c64 8x784 * 784x128 | 175-178 us | 231-268 us | 0.66-0.76x |
//! | c128 1024^3 | 495-524 ms | 364-400 ms | 1.24-1.44x |
//!
//! c64 1024^3 runs at the f32 kernel's GFLOP/s of the same run (44-48 vs 36-49 here); the
//! 8x784x128 row is limited by the f32 kernel on 16 x 784 x 256 (the stacked real product).
//!
//! Rounding: each output part is one real dot product of `2k` terms (re/im products
//! interleaved, `p` ascending within the kernel's fixed k blocks), in the element's own real
//! precision, as XLA's own c64 dot sums in f32. Bits do not depend on the thread count (the
//! real kernel's guarantee; the expansion and copies are plain moves).
//!
//! Layouts: `A'` is a view when A's columns are contiguous (`a_col_stride == 1`) or `k == 1`,
//! else A is copied dense; `C'` is a view when C's columns are contiguous or `n == 1`; a
//! column-major C is computed as `C^T = B^T A^T` (then A is the expanded operand); any other C
//! goes through a dense scratch and is written back.

use core::ops::Neg;

use num_complex::Complex;
use rayon::prelude::*;

use super::kernel::{self, strides, Buffers, FloatElem, PAR_MIN_FLOPS};
use super::pack::ensure_len;
use super::{items, offset, GemmDesc};
use crate::simd::VFloat;

/// Scratch of the complex path for one real type: the expanded operand, a dense copy of the
/// other operand when it cannot be viewed, and a dense C when C cannot be viewed. Grown once,
/// reused (no allocation when warm).
pub(crate) struct ComplexBuffers<T> {
    expanded: Vec<T>,
    dense: Vec<T>,
    c: Vec<T>,
}

impl<T> Default for ComplexBuffers<T> {
    fn default() -> Self {
        ComplexBuffers {
            expanded: Vec::new(),
            dense: Vec::new(),
            c: Vec::new(),
        }
    }
}

/// The interleaved reals of a complex slice: `re(x[i])` at `2i`, `im(x[i])` at `2i + 1`.
pub(crate) fn as_reals<T>(x: &[Complex<T>]) -> &[T] {
    // SAFETY: `Complex<T>` is `#[repr(C)] struct { re: T, im: T }`: size `2 * size_of::<T>()`,
    // alignment of `T`, no padding, so `x.len()` complex values are exactly `2 * x.len()`
    // consecutive, initialised `T`s in the same allocation, borrowed for the same lifetime.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<T>(), 2 * x.len()) }
}

/// [`as_reals`] for a mutable slice.
pub(crate) fn as_reals_mut<T>(x: &mut [Complex<T>]) -> &mut [T] {
    // SAFETY: as in `as_reals`; the exclusive borrow of `x` moves to the result, and every bit
    // pattern written through it is a valid `T` (so a valid `Complex<T>`).
    unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<T>(), 2 * x.len()) }
}

/// The `rows x 2 cols` interleaved reals of the complex `batch x rows x cols` operand `x`
/// (strides `s`) and their strides: a view of `x` when its columns are contiguous (or there is
/// one column), else a dense copy per distinct batch item in `dense`.
fn interleaved<'a, T: Copy + Default>(
    x: &'a [Complex<T>],
    s: [isize; 3],
    batch: usize,
    rows: usize,
    cols: usize,
    dense: &'a mut Vec<T>,
) -> (&'a [T], [isize; 3]) {
    if s[2] == 1 || cols == 1 {
        return (as_reals(x), [2 * s[0], 2 * s[1], 1]);
    }
    let nx = items(batch, s[0]);
    ensure_len(dense, nx * rows * 2 * cols);
    for bi in 0..nx {
        for i in 0..rows {
            let row = &mut dense[(bi * rows + i) * 2 * cols..][..2 * cols];
            for (j, r) in row.chunks_exact_mut(2).enumerate() {
                let v = x[offset(bi, i, j, s)];
                r[0] = v.re;
                r[1] = v.im;
            }
        }
    }
    let batch_stride = if nx == 1 {
        0
    } else {
        (rows * 2 * cols) as isize
    };
    (
        &dense[..nx * rows * 2 * cols],
        [batch_stride, (2 * cols) as isize, 1],
    )
}

/// `C = A B` (`+ C`) for complex operands on validated strides with `batch, m, n > 0`.
pub(crate) fn gemm_complex<V: VFloat>(
    d: &GemmDesc,
    a: &[Complex<V::Elem>],
    b: &[Complex<V::Elem>],
    c: &mut [Complex<V::Elem>],
    real: &mut Buffers<V::Elem>,
    bufs: &mut ComplexBuffers<V::Elem>,
) where
    V::Elem: FloatElem + Neg<Output = V::Elem>,
{
    let zero = Complex::new(V::Elem::default(), V::Elem::default());
    if d.k == 0 {
        if !d.accumulate {
            let sc = strides(d).2;
            for bi in 0..d.batch {
                for i in 0..d.m {
                    for j in 0..d.n {
                        c[offset(bi, i, j, sc)] = zero;
                    }
                }
            }
        }
        return;
    }
    if d.m <= SPLIT_MAX_M {
        return split::<V>(d, a, b, c, real, bufs);
    }
    // A column-major C has contiguous rows only in C^T = B^T A^T.
    if d.c_col_stride != 1 && d.n > 1 && d.c_row_stride == 1 {
        let t = d.transposed();
        if t.m <= SPLIT_MAX_M {
            return split::<V>(&t, b, a, c, real, bufs);
        }
        return expanded::<V>(&t, b, a, c, real, bufs);
    }
    expanded::<V>(d, a, b, c, real, bufs)
}

/// Up to this many rows of A, `split` is used instead of expanding B: for few rows the
/// expansion (`4 k n` reals written, then read) costs more than the multiply itself, while the
/// split path reads B in place and its extra copies (A stacked, the `2m x 2n` result) are
/// small. Measured on c64 1x784x128: expanded 190-270 us, split 29-39 us (XLA 53-60 us).
const SPLIT_MAX_M: usize = 32;

/// Few rows: ONE real GEMM on B's reals in place, `[P; Q] = [re A; im A] B'` with `B'` = B
/// as `k x 2n` interleaved reals and A's parts stacked into a dense `2m x k` block, then
/// `C = (re P - im Q) + i (im P + re Q)`, where `re P` / `im P` are P's even / odd columns.
/// (Two calls on stride-2 views of A instead read B twice: 1.5-2x slower on 1x784x128 and
/// 8x784x128.)
fn split<V: VFloat>(
    d: &GemmDesc,
    a: &[Complex<V::Elem>],
    b: &[Complex<V::Elem>],
    c: &mut [Complex<V::Elem>],
    real: &mut Buffers<V::Elem>,
    bufs: &mut ComplexBuffers<V::Elem>,
) where
    V::Elem: FloatElem + Neg<Output = V::Elem>,
{
    let (sa, sb, sc) = strides(d);
    let (m, n, k) = (d.m, d.n, d.k);
    let ComplexBuffers {
        expanded: stacked,
        dense,
        c: pq,
    } = bufs;
    // B': k x 2n reals.
    let (b_reals, b_str) = interleaved(b, sb, d.batch, k, n, dense);
    // A stacked: rows 0..m are re(A), rows m..2m im(A), one dense 2m x k block per distinct
    // batch item (O(m k), small here), so ONE real GEMM reads B once.
    let na = items(d.batch, d.a_batch_stride);
    ensure_len(stacked, na * 2 * m * k);
    for bi in 0..na {
        for i in 0..m {
            let (re, im) = stacked[bi * 2 * m * k..][..2 * m * k].split_at_mut(m * k);
            for p in 0..k {
                let v = a[offset(bi, i, p, sa)];
                re[i * k + p] = v.re;
                im[i * k + p] = v.im;
            }
        }
    }
    let len = d.batch * 2 * m * 2 * n;
    ensure_len(pq, len);
    let rd = GemmDesc {
        batch: d.batch,
        m: 2 * m,
        n: 2 * n,
        k,
        a_batch_stride: if na == 1 { 0 } else { (2 * m * k) as isize },
        a_row_stride: k as isize,
        a_col_stride: 1,
        b_batch_stride: b_str[0],
        b_row_stride: b_str[1],
        b_col_stride: b_str[2],
        c_batch_stride: (2 * m * 2 * n) as isize,
        c_row_stride: (2 * n) as isize,
        c_col_stride: 1,
        accumulate: false,
    };
    kernel::gemm_real(
        &rd,
        &stacked[..na * 2 * m * k],
        b_reals,
        &mut pq[..len],
        real,
    );
    for bi in 0..d.batch {
        let (p_rows, q_rows) = pq[bi * 2 * m * 2 * n..][..2 * m * 2 * n].split_at(m * 2 * n);
        for i in 0..m {
            let p_row = p_rows[i * 2 * n..][..2 * n].chunks_exact(2);
            let q_row = q_rows[i * 2 * n..][..2 * n].chunks_exact(2);
            for (j, (p, q)) in p_row.zip(q_row).enumerate() {
                // `p + (-q)` is exactly `p - q` in IEEE arithmetic.
                let v = Complex::new(p[0] + -q[1], p[1] + q[0]);
                let o = offset(bi, i, j, sc);
                c[o] = if d.accumulate {
                    Complex::new(c[o].re + v.re, c[o].im + v.im)
                } else {
                    v
                };
            }
        }
    }
}

/// The real GEMM `C' = A' B'` for an orientation where C's columns are contiguous, or through
/// a dense C otherwise.
fn expanded<V: VFloat>(
    d: &GemmDesc,
    a: &[Complex<V::Elem>],
    b: &[Complex<V::Elem>],
    c: &mut [Complex<V::Elem>],
    real: &mut Buffers<V::Elem>,
    bufs: &mut ComplexBuffers<V::Elem>,
) where
    V::Elem: FloatElem + Neg<Output = V::Elem>,
{
    let (sa, _, sc) = strides(d);
    let (m, n, k) = (d.m, d.n, d.k);
    let ComplexBuffers {
        expanded: eb,
        dense,
        c: cbuf,
    } = bufs;

    // B': 2k x 2n per distinct batch item of B.
    let nb = items(d.batch, d.b_batch_stride);
    ensure_len(eb, nb * 4 * k * n);
    expand_b(d, b, &mut eb[..nb * 4 * k * n], nb);
    let eb_batch = if nb == 1 { 0 } else { (4 * k * n) as isize };

    // A': m x 2k reals.
    let (a_reals, a_str) = interleaved(a, sa, d.batch, m, k, dense);

    let real_desc = |c_str: [isize; 3], accumulate: bool| GemmDesc {
        batch: d.batch,
        m,
        n: 2 * n,
        k: 2 * k,
        a_batch_stride: a_str[0],
        a_row_stride: a_str[1],
        a_col_stride: a_str[2],
        b_batch_stride: eb_batch,
        b_row_stride: (2 * n) as isize,
        b_col_stride: 1,
        c_batch_stride: c_str[0],
        c_row_stride: c_str[1],
        c_col_stride: c_str[2],
        accumulate,
    };
    let eb = &eb[..nb * 4 * k * n];
    if sc[2] == 1 || n == 1 {
        let rd = real_desc([2 * sc[0], 2 * sc[1], 1], d.accumulate);
        kernel::gemm_real(&rd, a_reals, eb, as_reals_mut(c), real);
        return;
    }
    // C with no contiguous dimension: compute dense, then store (or add) element by element.
    let len = d.batch * m * 2 * n;
    ensure_len(cbuf, len);
    let rd = real_desc([(2 * m * n) as isize, (2 * n) as isize, 1], false);
    kernel::gemm_real(&rd, a_reals, eb, &mut cbuf[..len], real);
    let mut vals = cbuf[..len].chunks_exact(2);
    for bi in 0..d.batch {
        for i in 0..m {
            for j in 0..n {
                let x = vals.next().expect("batch*m*n results");
                let v = Complex::new(x[0], x[1]);
                let o = offset(bi, i, j, sc);
                c[o] = if d.accumulate {
                    Complex::new(c[o].re + v.re, c[o].im + v.im)
                } else {
                    v
                };
            }
        }
    }
}

/// Writes the real expansion of B's first `nb` batch items into `out` (`nb x 2k x 2n`): rows
/// `2p` and `2p + 1` of item `bi` are `[x, y, ...]` and `[-y, x, ...]` for `b_pj = x + iy`.
/// Rows run in parallel when the product is large (plain moves: the result is the same).
fn expand_b<T: FloatElem + Neg<Output = T>>(
    d: &GemmDesc,
    b: &[Complex<T>],
    out: &mut [T],
    nb: usize,
) {
    let sb = strides(d).1;
    let (k, n) = (d.k, d.n);
    let pair = |t: usize, rows: &mut [T]| {
        let (bi, p) = (t / k, t % k);
        let (r0, r1) = rows.split_at_mut(2 * n);
        let base = offset(bi, p, 0, sb);
        let put = |j: usize, v: Complex<T>, r0: &mut [T], r1: &mut [T]| {
            r0[2 * j] = v.re;
            r0[2 * j + 1] = v.im;
            r1[2 * j] = -v.im;
            r1[2 * j + 1] = v.re;
        };
        if sb[2] == 1 {
            for (j, &v) in b[base..base + n].iter().enumerate() {
                put(j, v, r0, r1);
            }
        } else {
            for j in 0..n {
                put(j, b[offset(bi, p, j, sb)], r0, r1);
            }
        }
    };
    let chunks = out.chunks_exact_mut(4 * n);
    debug_assert_eq!(chunks.len(), nb * k);
    if d.flops() >= PAR_MIN_FLOPS && nb * k * n >= 1 << 14 {
        out.par_chunks_exact_mut(4 * n)
            .enumerate()
            .for_each(|(t, rows)| pair(t, rows));
    } else {
        chunks.enumerate().for_each(|(t, rows)| pair(t, rows));
    }
}

#[cfg(test)]
mod tests {
    //! Complex GEMM against a naive f64 loop: odd sizes around the real kernel's blocks (the
    //! real problem is `m x 2k x 2n`), every operand layout, broadcast batch, accumulate,
    //! NaN-filled outputs, and identical bits on 1 and 2 threads.

    use num_complex::Complex;

    use super::{as_reals, as_reals_mut};
    use crate::gemm::{gemm, GemmDesc, GemmElem, GemmScratch};

    #[derive(Clone, Copy, Debug)]
    enum Layout {
        RowMajor,
        ColMajor,
        /// Row-major, 3 unused elements after each row and 5 after each matrix.
        Padded,
        /// Neither dimension contiguous: element `(i, j)` at `2 (i cols + j)`, gaps between.
        Spread,
    }

    const LAYOUTS: [Layout; 4] = [
        Layout::RowMajor,
        Layout::ColMajor,
        Layout::Padded,
        Layout::Spread,
    ];

    /// Strides `[batch, row, col]` and slice length of a `batch x rows x cols` operand.
    fn layout(l: Layout, batch: usize, rows: usize, cols: usize) -> ([isize; 3], usize) {
        let (r, c) = (rows as isize, cols as isize);
        let s = match l {
            Layout::RowMajor => [r * c, c, 1],
            Layout::ColMajor => [r * c, 1, r],
            Layout::Padded => [r * (c + 3) + 5, c + 3, 1],
            Layout::Spread => [2 * r * c, 2 * c, 2],
        };
        (s, (batch as isize * s[0]).max(1) as usize)
    }

    /// Deterministic pseudo-random complex values with parts in [-1, 1).
    fn fill(len: usize, seed: u64) -> Vec<Complex<f64>> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        };
        (0..len).map(|_| Complex::new(next(), next())).collect()
    }

    /// The element types under test, seen through f64.
    trait Cplx: GemmElem + PartialEq + std::fmt::Debug {
        /// Unit roundoff of the part type.
        const EPS: f64;
        fn from64(z: Complex<f64>) -> Self;
        fn to64(self) -> Complex<f64>;
        fn nan() -> Self;
    }

    impl Cplx for Complex<f32> {
        const EPS: f64 = f32::EPSILON as f64;
        fn from64(z: Complex<f64>) -> Self {
            Complex::new(z.re as f32, z.im as f32)
        }
        fn to64(self) -> Complex<f64> {
            Complex::new(self.re as f64, self.im as f64)
        }
        fn nan() -> Self {
            Complex::new(f32::NAN, f32::NAN)
        }
    }

    impl Cplx for Complex<f64> {
        const EPS: f64 = f64::EPSILON;
        fn from64(z: Complex<f64>) -> Self {
            z
        }
        fn to64(self) -> Complex<f64> {
            self
        }
        fn nan() -> Self {
            Complex::new(f64::NAN, f64::NAN)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn desc(
        batch: usize,
        m: usize,
        n: usize,
        k: usize,
        sa: [isize; 3],
        sb: [isize; 3],
        sc: [isize; 3],
        accumulate: bool,
    ) -> GemmDesc {
        GemmDesc {
            accumulate,
            ..GemmDesc::from_strides(batch, m, n, k, sa, sb, sc)
        }
    }

    fn off(bi: usize, i: usize, j: usize, s: [isize; 3]) -> usize {
        (bi as isize * s[0] + i as isize * s[1] + j as isize * s[2]) as usize
    }

    /// Runs one case and checks every addressed element of C against the naive sum (within
    /// `(2k + 2) eps sum_p |a_ip| |b_pj|`, plus `eps |c|` when accumulating) and every element
    /// C does not address is still NaN. Returns C.
    fn check<T: Cplx>(d: &GemmDesc, a_len: usize, b_len: usize, c_len: usize) -> Vec<T> {
        let a64 = fill(a_len, 1 + d.m as u64);
        let b64 = fill(b_len, 2 + d.n as u64);
        let a: Vec<T> = a64.iter().map(|&z| T::from64(z)).collect();
        let b: Vec<T> = b64.iter().map(|&z| T::from64(z)).collect();
        let mut c: Vec<T> = if d.accumulate {
            fill(c_len, 3).into_iter().map(T::from64).collect()
        } else {
            vec![T::nan(); c_len]
        };
        let c0 = c.clone();
        gemm(d, &a, &b, &mut c, &mut GemmScratch::new()).expect("valid case");
        let (sa, sb, sc) = (
            [d.a_batch_stride, d.a_row_stride, d.a_col_stride],
            [d.b_batch_stride, d.b_row_stride, d.b_col_stride],
            [d.c_batch_stride, d.c_row_stride, d.c_col_stride],
        );
        let mut touched = vec![false; c_len];
        for bi in 0..d.batch {
            for i in 0..d.m {
                for j in 0..d.n {
                    let (mut s, mut mag) = (Complex::new(0.0, 0.0), 0.0);
                    for p in 0..d.k {
                        let (x, y) = (a[off(bi, i, p, sa)].to64(), b[off(bi, p, j, sb)].to64());
                        s += x * y;
                        mag += x.norm() * y.norm();
                    }
                    let o = off(bi, i, j, sc);
                    touched[o] = true;
                    let old = c0[o].to64();
                    let want = if d.accumulate { old + s } else { s };
                    let tol = (2 * d.k + 2) as f64 * T::EPS * mag
                        + if d.accumulate {
                            2.0 * T::EPS * want.norm()
                        } else {
                            0.0
                        };
                    let got = c[o].to64();
                    assert!(
                        (got.re - want.re).abs() <= tol && (got.im - want.im).abs() <= tol,
                        "{d:?}: C[{bi},{i},{j}] = {got} vs {want} (tol {tol:e})"
                    );
                }
            }
        }
        for (o, &t) in touched.iter().enumerate() {
            if !t {
                assert_eq!(
                    c[o].to64().re.to_bits(),
                    c0[o].to64().re.to_bits(),
                    "{d:?}: element {o} outside C was written"
                );
            }
        }
        c
    }

    fn case<T: Cplx>(
        batch: usize,
        (m, n, k): (usize, usize, usize),
        (la, lb, lc): (Layout, Layout, Layout),
        acc: bool,
    ) -> Vec<T> {
        let (sa, a_len) = layout(la, batch, m, k);
        let (sb, b_len) = layout(lb, batch, k, n);
        let (sc, c_len) = layout(lc, batch, m, n);
        check::<T>(&desc(batch, m, n, k, sa, sb, sc, acc), a_len, b_len, c_len)
    }

    #[test]
    fn reals_view_covers_exactly_the_parts() {
        let mut z = vec![Complex::new(1.5f32, -2.0), Complex::new(3.0, 4.25)];
        assert_eq!(as_reals(&z), &[1.5, -2.0, 3.0, 4.25]);
        as_reals_mut(&mut z)[3] = 7.0;
        assert_eq!(z[1], Complex::new(3.0, 7.0));
        assert!(as_reals::<f64>(&[]).is_empty());
        let w = [Complex::new(1.0f64, 2.0); 3];
        assert_eq!(as_reals(&w).len(), 6);
        // The view ends where the slice ends: a sub-slice views only its own parts.
        assert_eq!(as_reals(&w[1..2]), &[1.0, 2.0]);
    }

    #[test]
    fn sizes_around_the_real_blocks() {
        // Real problem: m x 2k x 2n; KC = 256 reals = 128 complex, MR = 6, NR = 16 f32.
        // m <= SPLIT_MAX_M: the split path; above: B expanded.
        for &m in &[1, 2, 5, 6, 7, 13, 33, 38] {
            for &n in &[1, 3, 8, 9, 17] {
                for &k in &[0, 1, 2, 127, 128, 129] {
                    let acc = (m + n + k) % 2 == 0;
                    let ls = (Layout::RowMajor, Layout::RowMajor, Layout::RowMajor);
                    case::<Complex<f32>>(1, (m, n, k), ls, acc);
                    case::<Complex<f64>>(1, (m, n, k), ls, !acc);
                }
            }
        }
        // Past the row-block size and the parallel threshold.
        for &(m, n, k) in &[(121, 35, 200), (130, 70, 300), (64, 64, 64)] {
            let ls = (Layout::RowMajor, Layout::RowMajor, Layout::RowMajor);
            case::<Complex<f32>>(1, (m, n, k), ls, false);
            case::<Complex<f64>>(1, (m, n, k), ls, true);
        }
    }

    #[test]
    fn every_layout_combination() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for lc in LAYOUTS {
                    for &(m, n, k, acc) in &[
                        (7, 9, 13, false),
                        (1, 5, 4, true),
                        (6, 1, 3, true),
                        (40, 9, 13, true),
                        (35, 2, 20, false),
                    ] {
                        case::<Complex<f32>>(2, (m, n, k), (la, lb, lc), acc);
                        case::<Complex<f64>>(1, (m, n, k), (la, lb, lc), !acc);
                    }
                }
            }
        }
    }

    #[test]
    fn broadcast_operands_and_large_batches() {
        let (m, n, k) = (9, 20, 40);
        // B shared by every batch item (stride 0), then A shared.
        let d = desc(
            4,
            m,
            n,
            k,
            [(m * k) as isize, k as isize, 1],
            [0, n as isize, 1],
            [(m * n) as isize, n as isize, 1],
            false,
        );
        check::<Complex<f32>>(&d, 4 * m * k, k * n, 4 * m * n);
        let d = desc(
            4,
            m,
            n,
            k,
            [0, 1, m as isize],
            [(k * n) as isize, n as isize, 1],
            [(m * n) as isize, n as isize, 1],
            true,
        );
        check::<Complex<f64>>(&d, m * k, 4 * k * n, 4 * m * n);
        let ls = (Layout::RowMajor, Layout::RowMajor, Layout::RowMajor);
        case::<Complex<f32>>(16, (32, 32, 32), ls, false);
    }

    fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool")
            .install(f)
    }

    #[test]
    fn identical_bits_on_one_and_two_threads() {
        let ls = [
            (Layout::RowMajor, Layout::RowMajor, Layout::RowMajor),
            (Layout::ColMajor, Layout::Padded, Layout::ColMajor),
            (Layout::Spread, Layout::ColMajor, Layout::Spread),
        ];
        for l in ls {
            for &(batch, m, n, k) in &[
                (1, 150, 90, 300),
                (8, 40, 40, 40),
                (1, 1, 300, 500),
                (3, 20, 300, 200),
            ] {
                let one = with_threads(1, || case::<Complex<f32>>(batch, (m, n, k), l, false));
                let two = with_threads(2, || case::<Complex<f32>>(batch, (m, n, k), l, false));
                let bits = |v: &[Complex<f32>]| -> Vec<u32> {
                    as_reals(v).iter().map(|x| x.to_bits()).collect()
                };
                assert_eq!(bits(&one), bits(&two), "{batch}x{m}x{n}x{k} {l:?}");
            }
        }
    }

    #[test]
    fn warm_scratch_is_reused_across_shapes() {
        let mut s = GemmScratch::new();
        for &(m, n, k) in &[(50, 60, 70), (3, 2, 1), (50, 60, 70), (1, 1, 1)] {
            let d = GemmDesc::row_major(1, m, n, k);
            let a = vec![Complex::new(1.0f32, 1.0); m * k];
            let b = vec![Complex::new(2.0f32, -1.0); k * n];
            let mut c = vec![Complex::new(f32::NAN, 0.0); m * n];
            gemm(&d, &a, &b, &mut c, &mut s).expect("valid");
            // (1 + i)(2 - i) = 3 + i, summed k times (exact in f32).
            assert!(c
                .iter()
                .all(|&z| z == Complex::new(3.0 * k as f32, k as f32)));
        }
    }
}
