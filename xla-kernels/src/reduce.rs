//! Fast paths for the commonest reductions of a row-major `rows x cols` matrix: over each row
//! (`out[r] = op_c x[r, c]`) and over each column (`out[c] = op_r x[r, c]`), for sum and XLA's
//! NaN-propagating max/min, on any [`VFloat`] (f32 via [`F32V`](crate::simd::F32V), f64 via
//! [`F64V`](crate::simd::F64V)).
//!
//! Orders are fixed by `cols` alone (whatever the thread count): a row is folded into
//! `ROW_VECS` vector accumulators (element `c` into accumulator `(c / LANES) % ROW_VECS`, lane
//! `c % LANES`, ascending `c`; the tail padded with the identity), combined pairwise, then
//! across lanes by the fixed tree of [`VFloat::reduce_add`]. A column is folded in ascending
//! `r`. Threads split rows (row reductions) or column groups (column reductions).

use rayon::prelude::*;

use crate::error::{element_count, KernelError};
use crate::par::{PAR_BLOCK_ELEMENTS, PAR_MIN_ELEMENTS};
use crate::simd::VFloat;

/// Vector accumulators per row: enough independent add chains to hide the add latency.
const ROW_VECS: usize = 4;
/// Column-group width of column reductions, in vectors.
const COL_VECS: usize = 8;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// `a + b`, from +0.
    Sum,
    /// XLA max (NaN propagates, `-0 < +0`), from -inf.
    Max,
    /// XLA min (NaN propagates, `-0 < +0`), from +inf.
    Min,
}

/// The reduction's vector op and identity for lane type `V`.
#[inline(always)]
fn combine<V: VFloat>(op: ReduceOp, a: V, b: V) -> V {
    match op {
        ReduceOp::Sum => a + b,
        ReduceOp::Max => a.max_xla(b),
        ReduceOp::Min => a.min_xla(b),
    }
}

#[inline(always)]
fn identity<V: VFloat>(op: ReduceOp) -> V
where
    V::Elem: From<f32>,
{
    V::splat(V::Elem::from(match op {
        ReduceOp::Sum => 0.0,
        ReduceOp::Max => f32::NEG_INFINITY,
        ReduceOp::Min => f32::INFINITY,
    }))
}

#[inline(always)]
fn across_lanes<V: VFloat>(op: ReduceOp, v: V) -> V::Elem {
    match op {
        ReduceOp::Sum => v.reduce_add(),
        ReduceOp::Max => v.reduce_max_xla(),
        ReduceOp::Min => v.reduce_min_xla(),
    }
}

fn check(
    x: usize,
    rows: usize,
    cols: usize,
    out: usize,
    want_out: usize,
) -> Result<(), KernelError> {
    let need = element_count("reduce", &[rows, cols])?;
    KernelError::check_len("reduce", "input", need, x)?;
    KernelError::check_len("reduce", "out", want_out, out)
}

/// One row folded in the documented order.
#[inline(always)]
fn reduce_row<V: VFloat>(op: ReduceOp, row: &[V::Elem]) -> V::Elem
where
    V::Elem: From<f32>,
{
    let l = V::LANES;
    let id = identity::<V>(op);
    let mut acc = [id; ROW_VECS];
    let mut chunks = row.chunks_exact(ROW_VECS * l);
    for ch in &mut chunks {
        for (q, a) in acc.iter_mut().enumerate() {
            *a = combine(op, *a, V::load(&ch[q * l..]));
        }
    }
    let fill = id.lane(0);
    for (q, part) in chunks.remainder().chunks(l).enumerate() {
        acc[q] = combine(op, acc[q], V::load_partial(part, fill));
    }
    let v = combine(op, combine(op, acc[0], acc[1]), combine(op, acc[2], acc[3]));
    across_lanes(op, v)
}

/// `out[r] = op over c of x[r * cols + c]` for a row-major `rows x cols` `x`; `cols == 0`
/// gives the identity (0, -inf or +inf).
pub fn reduce_rows<V: VFloat>(
    op: ReduceOp,
    x: &[V::Elem],
    rows: usize,
    cols: usize,
    out: &mut [V::Elem],
) -> Result<(), KernelError>
where
    V::Elem: From<f32>,
{
    check(x.len(), rows, cols, out.len(), rows)?;
    if cols == 0 {
        out.fill(identity::<V>(op).lane(0));
        return Ok(());
    }
    let run = |first: usize, block: &mut [V::Elem]| {
        for (r, o) in block.iter_mut().enumerate() {
            let start = (first + r) * cols;
            *o = reduce_row::<V>(op, &x[start..start + cols]);
        }
    };
    if x.len() < PAR_MIN_ELEMENTS || rows < 2 {
        run(0, out);
    } else {
        let per = (PAR_BLOCK_ELEMENTS / cols).max(1);
        out.par_chunks_mut(per)
            .enumerate()
            .for_each(|(i, b)| run(i * per, b));
    }
    Ok(())
}

/// `out[c] = op over r of x[r * cols + c]` (ascending `r`) for a row-major `rows x cols` `x`;
/// `rows == 0` gives the identity.
pub fn reduce_cols<V: VFloat>(
    op: ReduceOp,
    x: &[V::Elem],
    rows: usize,
    cols: usize,
    out: &mut [V::Elem],
) -> Result<(), KernelError>
where
    V::Elem: From<f32>,
{
    check(x.len(), rows, cols, out.len(), cols)?;
    let l = V::LANES;
    let group = COL_VECS * l;
    let run = |c0: usize, block: &mut [V::Elem]| {
        let w = block.len();
        let nv = w.div_ceil(l);
        let mut acc = [identity::<V>(op); COL_VECS];
        let fill = acc[0].lane(0);
        for r in 0..rows {
            let row = &x[r * cols + c0..r * cols + c0 + w];
            for (q, a) in acc.iter_mut().enumerate().take(nv) {
                *a = combine(
                    op,
                    *a,
                    V::load_partial(&row[q * l..w.min((q + 1) * l)], fill),
                );
            }
        }
        for (q, a) in acc.iter().enumerate().take(nv) {
            a.store_partial(&mut block[q * l..w.min((q + 1) * l)]);
        }
    };
    if x.len() < PAR_MIN_ELEMENTS || cols <= group {
        out.chunks_mut(group)
            .enumerate()
            .for_each(|(i, b)| run(i * group, b));
    } else {
        out.par_chunks_mut(group)
            .enumerate()
            .for_each(|(i, b)| run(i * group, b));
    }
    Ok(())
}

/// [`reduce_rows`] with [`ReduceOp::Sum`] on f32.
pub fn sum_rows_f32(
    x: &[f32],
    rows: usize,
    cols: usize,
    out: &mut [f32],
) -> Result<(), KernelError> {
    reduce_rows::<crate::simd::F32V>(ReduceOp::Sum, x, rows, cols, out)
}

/// [`reduce_cols`] with [`ReduceOp::Sum`] on f32.
pub fn sum_cols_f32(
    x: &[f32],
    rows: usize,
    cols: usize,
    out: &mut [f32],
) -> Result<(), KernelError> {
    reduce_cols::<crate::simd::F32V>(ReduceOp::Sum, x, rows, cols, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::{F32V, F64V};
    use xla_core::scalar::Scalar;

    fn data(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0 + 1.0 / (i + 1) as f32)
            .collect()
    }

    fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("pool")
            .install(f)
    }

    #[test]
    fn rows_and_cols_match_a_naive_loop() {
        for &(rows, cols) in &[
            (1usize, 1usize),
            (3, 7),
            (5, 31),
            (2, 33),
            (17, 64),
            (300, 129),
            (1, 100_003),
            (40_000, 3),
        ] {
            let x = data(rows * cols);
            let mut r = vec![f32::NAN; rows];
            let mut c = vec![f32::NAN; cols];
            sum_rows_f32(&x, rows, cols, &mut r).unwrap();
            sum_cols_f32(&x, rows, cols, &mut c).unwrap();
            for (i, &got) in r.iter().enumerate() {
                let row = &x[i * cols..(i + 1) * cols];
                let want: f64 = row.iter().map(|&v| v as f64).sum();
                let mag: f64 = row.iter().map(|&v| v.abs() as f64).sum();
                assert!(
                    (got as f64 - want).abs() <= 1e-6 * mag * (cols as f64).log2().max(1.0),
                    "row {i}: {got} vs {want}"
                );
            }
            for (j, &got) in c.iter().enumerate() {
                // Ascending r in f32: exactly the sequential loop.
                let want = (0..rows).fold(0.0f32, |s, i| s + x[i * cols + j]);
                assert_eq!(got.to_bits(), want.to_bits(), "col {j}");
            }
            let mut mx = vec![0.0f32; rows];
            reduce_rows::<F32V>(ReduceOp::Max, &x, rows, cols, &mut mx).unwrap();
            let mut mn = vec![0.0f32; cols];
            reduce_cols::<F32V>(ReduceOp::Min, &x, rows, cols, &mut mn).unwrap();
            for (i, &got) in mx.iter().enumerate() {
                let want = x[i * cols..(i + 1) * cols]
                    .iter()
                    .fold(f32::NEG_INFINITY, |m, &v| <f32 as Scalar>::max(m, v));
                assert_eq!(got, want);
            }
            for (j, &got) in mn.iter().enumerate() {
                let want = (0..rows).fold(f32::INFINITY, |m, i| {
                    <f32 as Scalar>::min(m, x[i * cols + j])
                });
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn nan_and_signed_zero_follow_xla() {
        let x = [1.0f64, f64::NAN, 3.0, -0.0, 0.0, -0.0, 2.0, -1.0, -0.0];
        let mut out = [0.0f64; 3];
        reduce_rows::<F64V>(ReduceOp::Max, &x, 3, 3, &mut out).unwrap();
        assert!(out[0].is_nan());
        assert_eq!(out[1].to_bits(), 0.0f64.to_bits());
        assert_eq!(out[2], 2.0);
        reduce_rows::<F64V>(ReduceOp::Min, &x, 3, 3, &mut out).unwrap();
        assert!(out[0].is_nan());
        assert_eq!(out[1].to_bits(), (-0.0f64).to_bits());
        let mut e = [7.0f64; 2];
        reduce_rows::<F64V>(ReduceOp::Max, &[], 2, 0, &mut e).unwrap();
        assert_eq!(e, [f64::NEG_INFINITY; 2]);
        reduce_cols::<F64V>(ReduceOp::Sum, &[], 0, 2, &mut e).unwrap();
        assert_eq!(e, [0.0; 2]);
    }

    #[test]
    fn identical_bits_on_one_and_two_threads() {
        for &(rows, cols) in &[(1000usize, 1000usize), (3, 200_000), (200_000, 5)] {
            let x = data(rows * cols);
            let run = |t| {
                with_threads(t, || {
                    let mut r = vec![0.0f32; rows];
                    let mut c = vec![0.0f32; cols];
                    sum_rows_f32(&x, rows, cols, &mut r).unwrap();
                    sum_cols_f32(&x, rows, cols, &mut c).unwrap();
                    (r, c)
                })
            };
            let (a, b) = (run(1), run(2));
            assert!(a
                .0
                .iter()
                .zip(&b.0)
                .all(|(p, q)| p.to_bits() == q.to_bits()));
            assert!(a
                .1
                .iter()
                .zip(&b.1)
                .all(|(p, q)| p.to_bits() == q.to_bits()));
        }
    }

    #[test]
    fn bad_sizes_are_errors() {
        let x = data(24);
        let mut out = vec![0.0f32; 6];
        assert!(sum_rows_f32(&x, 6, 4, &mut out).is_ok());
        let e = sum_rows_f32(&x[..23], 6, 4, &mut out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "reduce: buffer `input` has 23 elements but its shape holds 24"
        );
        assert!(sum_rows_f32(&x, 6, 4, &mut out[..5]).is_err());
        assert!(sum_cols_f32(&x, 6, 4, &mut out).is_err());
        assert!(sum_rows_f32(&x, usize::MAX, 2, &mut out).is_err());
    }
}
