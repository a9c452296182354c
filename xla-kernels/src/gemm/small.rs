//! Matrix-vector products (`m == 1`; `n == 1` arrives transposed): no packing, B streamed
//! once. Each output is summed over `p` ascending (axpy form) or in four interleaved vector
//! partial sums combined in a fixed order (dot form): fixed by the sizes, whatever the threads.
//!
//! Speed: 1x784 . 784x128 runs in about 10 us (20 GFLOP/s; XLA:CPU took 18.6 us in the same
//! loaded session, `target/oracle-venv` jax timing `jnp.matmul`); it reads B's 400 KB once
//! from L2, so it is bound by L2 bandwidth rather than by FMAs.

use rayon::prelude::*;

use super::isa::Isa;
use super::kernel::{strides, FloatElem, PAR_MIN_FLOPS};
use super::{offset, GemmDesc, OutPtr};

/// Columns per parallel task of the axpy form.
const COLS_PER_TASK: usize = 256;

/// `C[b] (1 x n) = A[b] (1 x k) * B[b]`; returns `false` (nothing done) when neither B's rows
/// nor its columns are contiguous, leaving the case to the packed path.
pub(crate) fn row_times_matrix<S: Isa>(
    isa: S,
    d: &GemmDesc,
    a: &[S::E],
    b: &[S::E],
    out: &OutPtr<'_, S::E>,
) -> bool {
    debug_assert_eq!(d.m, 1);
    let (sa, sb, sc) = strides(d);
    // Below a quarter of the dot form's sums (one AVX2 vector) of columns, the axpy form would
    // run partial vectors only. A constant, not the lanes of `S`: the form decides the order.
    let dot_form = sb[1] == 1 && sa[2] == 1 && (d.n < S::E::DOT_SUMS / 4 || sb[2] != 1);
    if !dot_form && sb[2] != 1 {
        return false;
    }
    let parallel = d.flops() >= PAR_MIN_FLOPS;
    let cols = |bi: usize, j0: usize, j1: usize| {
        isa.vectorize(
            #[inline(always)]
            || {
                if dot_form {
                    for j in j0..j1 {
                        let v = dot(
                            isa,
                            &a[offset(bi, 0, 0, sa)..][..d.k],
                            &b[offset(bi, 0, j, sb)..][..d.k],
                        );
                        write(d, out, offset(bi, 0, j, sc), v);
                    }
                } else {
                    axpy_cols(isa, d, bi, a, b, out, j0, j1);
                }
            },
        )
    };
    let chunks = d.n.div_ceil(COLS_PER_TASK);
    if parallel && d.batch * chunks > 1 {
        (0..d.batch * chunks).into_par_iter().for_each(|t| {
            let (bi, ch) = (t / chunks, t % chunks);
            cols(bi, ch * COLS_PER_TASK, ((ch + 1) * COLS_PER_TASK).min(d.n));
        });
    } else {
        (0..d.batch).for_each(|bi| cols(bi, 0, d.n));
    }
    true
}

/// Stores `v` into C (or adds it when accumulating).
#[inline(always)]
fn write<T: FloatElem>(d: &GemmDesc, out: &OutPtr<'_, T>, o: usize, v: T) {
    // SAFETY: element `o` belongs to the calling task's column range only (C's strides
    // validated injective).
    unsafe {
        let v = if d.accumulate { out.get(o) + v } else { v };
        out.set(o, v);
    }
}

/// `sum_p x[p] y[p]` as `G = DOT_SUMS` partial sums `s_q` (`p = q mod G`, ascending), held in
/// `G / LANES` vectors, combined by [`combine`]: the same order for every vector width.
#[inline(always)]
fn dot<S: Isa>(isa: S, x: &[S::E], y: &[S::E]) -> S::E {
    let (l, g) = (S::LANES, S::E::DOT_SUMS);
    const { assert!(S::LANES * 4 >= S::E::DOT_SUMS && S::E::DOT_SUMS <= 32) };
    let zero = S::E::default();
    let mut s = [isa.splat(zero); 4];
    let nv = g / l;
    let mut xc = x.chunks_exact(g);
    let mut yc = y.chunks_exact(g);
    for (xb, yb) in (&mut xc).zip(&mut yc) {
        for (q, s_q) in s.iter_mut().enumerate().take(nv) {
            *s_q = isa.mul_add(isa.load(&xb[q * l..]), isa.load(&yb[q * l..]), *s_q);
        }
    }
    let tails = xc.remainder().chunks(l).zip(yc.remainder().chunks(l));
    for (s_q, (xr, yr)) in s.iter_mut().zip(tails) {
        *s_q = isa.mul_add(isa.load_partial(xr), isa.load_partial(yr), *s_q);
    }
    let mut sums = [zero; 32];
    for (q, &s_q) in s.iter().enumerate().take(nv) {
        isa.store(s_q, &mut sums[q * l..]);
    }
    combine(&mut sums[..g])
}

/// The `G` partial sums as `t_j = (s_j + s_{j+G/4}) + (s_{j+G/2} + s_{j+3G/4})` for `j < G/4`,
/// then `t_j += t_{j+h}` for `h = G/8, G/16, .., 1`: the order the AVX2-wide build always
/// used (four vectors added pairwise, then a lane-halving tree).
#[inline(always)]
fn combine<T: FloatElem>(s: &mut [T]) -> T {
    let q = s.len() / 4;
    for j in 0..q {
        s[j] = (s[j] + s[j + q]) + (s[j + 2 * q] + s[j + 3 * q]);
    }
    let mut h = q / 2;
    while h > 0 {
        for j in 0..h {
            s[j] = s[j] + s[j + h];
        }
        h /= 2;
    }
    s[0]
}

/// Vector accumulators per column group of the axpy form: 8 independent multiply-add chains
/// cover the FMA latency (4 cycles) times throughput (2 per cycle).
const AXPY_VECS: usize = 8;

/// Columns `j0..j1` of `C[bi] = a * B` with B's rows contiguous: for each group of
/// `AXPY_VECS * LANES` columns, `acc += a[p] * B[p, cols]` for `p` ascending.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn axpy_cols<S: Isa>(
    isa: S,
    d: &GemmDesc,
    bi: usize,
    a: &[S::E],
    b: &[S::E],
    out: &OutPtr<'_, S::E>,
    j0: usize,
    j1: usize,
) {
    let (sa, sb, sc) = strides(d);
    let l = S::LANES;
    let zero = S::E::default();
    let mut j = j0;
    while j < j1 {
        let w = (AXPY_VECS * l).min(j1 - j);
        let nv = w.div_ceil(l);
        let mut acc = [isa.splat(zero); AXPY_VECS];
        for p in 0..d.k {
            let ap = isa.splat(a[offset(bi, 0, p, sa)]);
            let row = &b[offset(bi, p, j, sb)..][..w];
            for (q, acc_q) in acc.iter_mut().enumerate().take(nv) {
                let seg = &row[q * l..w.min((q + 1) * l)];
                *acc_q = isa.mul_add(ap, isa.load_partial(seg), *acc_q);
            }
        }
        let mut vals = [zero; AXPY_VECS * 16];
        for (q, &acc_q) in acc.iter().enumerate().take(nv) {
            isa.store(acc_q, &mut vals[q * l..]);
        }
        for (jj, &v) in vals.iter().enumerate().take(w) {
            write(d, out, offset(bi, 0, j + jj, sc), v);
        }
        j += w;
    }
}
