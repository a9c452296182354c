//! Matrix-vector products (`m == 1`; `n == 1` arrives transposed): no packing, B streamed
//! once. Each output is summed over `p` ascending (axpy form) or in four interleaved vector
//! partial sums combined in a fixed order (dot form): fixed by the sizes, whatever the threads.
//!
//! Speed: 1x784 . 784x128 runs in about 10 us (20 GFLOP/s; XLA:CPU took 18.6 us in the same
//! loaded session, `target/oracle-venv` jax timing `jnp.matmul`); it reads B's 400 KB once
//! from L2, so it is bound by L2 bandwidth rather than by FMAs.

use rayon::prelude::*;

use super::kernel::{strides, FloatElem, PAR_MIN_FLOPS};
use super::{offset, GemmDesc, OutPtr};
use crate::simd::VFloat;

/// Columns per parallel task of the axpy form.
const COLS_PER_TASK: usize = 256;

/// `C[b] (1 x n) = A[b] (1 x k) * B[b]`; returns `false` (nothing done) when neither B's rows
/// nor its columns are contiguous, leaving the case to the packed path.
pub(crate) fn row_times_matrix<V: VFloat>(
    d: &GemmDesc,
    a: &[V::Elem],
    b: &[V::Elem],
    out: &OutPtr<'_, V::Elem>,
) -> bool
where
    V::Elem: FloatElem,
{
    debug_assert_eq!(d.m, 1);
    let (sa, sb, sc) = strides(d);
    let l = V::LANES;
    let dot_form = sb[1] == 1 && sa[2] == 1 && (d.n < l || sb[2] != 1);
    if !dot_form && sb[2] != 1 {
        return false;
    }
    let parallel = d.flops() >= PAR_MIN_FLOPS;
    let cols = |bi: usize, j0: usize, j1: usize| {
        if dot_form {
            for j in j0..j1 {
                let v = dot::<V>(
                    &a[offset(bi, 0, 0, sa)..][..d.k],
                    &b[offset(bi, 0, j, sb)..][..d.k],
                );
                write(d, out, offset(bi, 0, j, sc), v);
            }
        } else {
            axpy_cols::<V>(d, bi, a, b, out, j0, j1);
        }
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

/// `sum_p x[p] y[p]` with four vector partial sums (`p` mod `4*LANES`), combined as
/// `(s0 + s1) + (s2 + s3)` then by [`VFloat::reduce_add`].
#[inline(always)]
fn dot<V: VFloat>(x: &[V::Elem], y: &[V::Elem]) -> V::Elem
where
    V::Elem: FloatElem,
{
    let l = V::LANES;
    let zero = V::Elem::default();
    let mut s = [V::splat(zero); 4];
    let mut xc = x.chunks_exact(4 * l);
    let mut yc = y.chunks_exact(4 * l);
    for (xb, yb) in (&mut xc).zip(&mut yc) {
        for q in 0..4 {
            s[q] = V::load(&xb[q * l..]).mul_add(V::load(&yb[q * l..]), s[q]);
        }
    }
    for (q, (xr, yr)) in xc
        .remainder()
        .chunks(l)
        .zip(yc.remainder().chunks(l))
        .enumerate()
    {
        s[q] = V::load_partial(xr, zero).mul_add(V::load_partial(yr, zero), s[q]);
    }
    ((s[0] + s[1]) + (s[2] + s[3])).reduce_add()
}

/// Vector accumulators per column group of the axpy form: 8 independent multiply-add chains
/// cover the FMA latency (4 cycles) times throughput (2 per cycle).
const AXPY_VECS: usize = 8;

/// Columns `j0..j1` of `C[bi] = a * B` with B's rows contiguous: for each group of
/// `AXPY_VECS * LANES` columns, `acc += a[p] * B[p, cols]` for `p` ascending.
fn axpy_cols<V: VFloat>(
    d: &GemmDesc,
    bi: usize,
    a: &[V::Elem],
    b: &[V::Elem],
    out: &OutPtr<'_, V::Elem>,
    j0: usize,
    j1: usize,
) where
    V::Elem: FloatElem,
{
    let (sa, sb, sc) = strides(d);
    let l = V::LANES;
    let zero = V::Elem::default();
    let mut j = j0;
    while j < j1 {
        let w = (AXPY_VECS * l).min(j1 - j);
        let nv = w.div_ceil(l);
        let mut acc = [V::splat(zero); AXPY_VECS];
        for p in 0..d.k {
            let ap = V::splat(a[offset(bi, 0, p, sa)]);
            let row = &b[offset(bi, p, j, sb)..][..w];
            for (q, acc_q) in acc.iter_mut().enumerate().take(nv) {
                let seg = &row[q * l..w.min((q + 1) * l)];
                *acc_q = ap.mul_add(V::load_partial(seg, zero), *acc_q);
            }
        }
        let mut vals = [zero; AXPY_VECS * 16];
        for (q, acc_q) in acc.iter().enumerate().take(nv) {
            acc_q.store(&mut vals[q * l..]);
        }
        for (jj, &v) in vals.iter().enumerate().take(w) {
            write(d, out, offset(bi, 0, j + jj, sc), v);
        }
        j += w;
    }
}
