//! Reduce over any set of dimensions of a row-major array of any rank: `out[kept] = init (+)
//! x[kept, r_0] (+) x[kept, r_1] (+) ...` over the reduced indices `r` (the kept dims in order
//! form the output shape). ([`crate::reduce`] has the plain 2-D row/column kernels; this
//! module takes any rank, any set of dims, an init value, and user combiners.)
//!
//! - [`reduce_fast`]: f32 / f64 sum, max, min (XLA max/min: NaN propagates, -0 < +0) with
//!   [`VFloat`] vectors. The shape is first simplified (extent-1 dims dropped, adjacent kept
//!   or reduced dims merged); then `[K, R]` (rows) reduces each contiguous row, `[K1, R, K2]`
//!   (columns) accumulates whole rows of `K2` lanes, and any other pattern is transposed to
//!   `[kept.., reduced..]` first (one scratch copy, then rows).
//! - [`reduce`]: any element type and combiner (monomorphized closure), in index order.
//! - [`reduce_indexed`]: variadic reduces (argmax, ...): the accumulator is any `Copy` type,
//!   built from each element's flat input index by a `load` closure that reads any number of
//!   operands.
//!
//! Determinism: every output's association order is fixed by the sizes alone. A row is cut into
//! blocks of [`ROW_BLOCK`] elements combined in the fixed tree of [`par::reduce_blocks`]; a
//! column output folds its rows in order. Threads only change which outputs (or which subtrees)
//! run where, so the bits are the same for any thread count. Nothing is parallel below
//! [`par::PAR_MIN_ELEMENTS`] input elements.

use rayon::prelude::*;
use wide::{f32x8, f64x4};

use crate::error::{element_count, KernelError};
use crate::par;
use crate::simd::VFloat;
use crate::tensor::MAX_RANK;
use crate::transpose::transpose;

/// Elements per leaf of a row's reduction tree: long enough that the vector loop dominates,
/// short enough (32 KiB of f32) that a few leaves keep two threads busy on one long row.
pub const ROW_BLOCK: usize = 1 << 13;

/// Columns (lanes of the output row) per task of a column reduction: 1024 f32 accumulators
/// (4 KiB) stay in L1 while the task streams 4 KiB of every input row.
pub const COL_BLOCK: usize = 1024;

/// Rows folded per sweep of a column reduction (register reuse of the accumulators).
const COL_ROWS: usize = 4;

/// Input elements per parallel task when splitting over outputs.
pub const PAR_TASK_ELEMENTS: usize = 1 << 16;

pub use crate::reduce::ReduceOp;

/// f32 and f64: the element types of [`reduce_fast`], with the vector used for them.
pub trait FastFloat: Copy + Send + Sync + 'static {
    /// The vector type (8 x f32 or 4 x f64: 256-bit, AVX2 where available).
    type V: VFloat<Elem = Self>;
    /// `-0.0` (the identity of a sum: `+0 + -0 = +0` but `-0 + -0 = -0`).
    const NEG_ZERO: Self;
    /// Negative infinity.
    const NEG_INF: Self;
    /// Positive infinity.
    const INF: Self;
}

impl FastFloat for f32 {
    type V = f32x8;
    const NEG_ZERO: f32 = -0.0;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const INF: f32 = f32::INFINITY;
}

impl FastFloat for f64 {
    type V = f64x4;
    const NEG_ZERO: f64 = -0.0;
    const NEG_INF: f64 = f64::NEG_INFINITY;
    const INF: f64 = f64::INFINITY;
}

/// The identity element of `op`: `x (+) identity = x` for every `x` (including -0 and NaN).
#[inline(always)]
fn identity<T: FastFloat>(op: ReduceOp) -> T {
    match op {
        ReduceOp::Sum => T::NEG_ZERO,
        ReduceOp::Max => T::NEG_INF,
        ReduceOp::Min => T::INF,
    }
}

#[inline(always)]
fn apply<V: VFloat>(op: ReduceOp, a: V, b: V) -> V {
    match op {
        ReduceOp::Sum => a + b,
        ReduceOp::Max => a.max_xla(b),
        ReduceOp::Min => a.min_xla(b),
    }
}

#[inline(always)]
fn lanes<V: VFloat>(op: ReduceOp, v: V) -> V::Elem {
    match op {
        ReduceOp::Sum => v.reduce_add(),
        ReduceOp::Max => v.reduce_max_xla(),
        ReduceOp::Min => v.reduce_min_xla(),
    }
}

#[inline(always)]
fn scalar<T: FastFloat>(op: ReduceOp, a: T, b: T) -> T {
    apply(op, T::V::splat(a), T::V::splat(b)).lane(0)
}

/// The simplified problem: dims `e` with a reduced flag each (alternating kinds after merging).
struct Canon {
    e: [usize; MAX_RANK],
    red: [bool; MAX_RANK],
    r: usize,
}

/// Checks `reduce_dims` (in range, no repeats) and the buffers; returns the simplified shape
/// and the output size.
fn canonicalize(
    op: &'static str,
    src_len: usize,
    dims: &[usize],
    reduce_dims: &[usize],
    dst_len: usize,
) -> Result<(Canon, usize, usize), KernelError> {
    let rank = dims.len();
    if rank > MAX_RANK {
        return Err(KernelError::invalid(
            op,
            format!("rank {rank} exceeds MAX_RANK = {MAX_RANK}"),
        ));
    }
    let mut red = [false; MAX_RANK];
    for &d in reduce_dims {
        if d >= rank || std::mem::replace(&mut red[d], true) {
            return Err(KernelError::invalid(
                op,
                format!(
                    "reduce dimensions {reduce_dims:?} must be distinct dims of {dims:?} (rank \
                     {rank})"
                ),
            ));
        }
    }
    let total = element_count(op, dims)?;
    let out: usize = (0..rank).filter(|&d| !red[d]).map(|d| dims[d]).product();
    KernelError::check_len(op, "src", total, src_len)?;
    KernelError::check_len(op, "dst", out, dst_len)?;
    let mut c = Canon {
        e: [1; MAX_RANK],
        red: [false; MAX_RANK],
        r: 0,
    };
    for d in 0..rank {
        if dims[d] == 1 {
            continue;
        }
        if c.r > 0 && c.red[c.r - 1] == red[d] {
            c.e[c.r - 1] *= dims[d];
        } else {
            c.e[c.r] = dims[d];
            c.red[c.r] = red[d];
            c.r += 1;
        }
    }
    Ok((c, total, out))
}

/// `dst = init (+) reduce(src over reduce_dims)` for f32/f64 and `op` in [`ReduceOp`], with
/// `src` row-major of shape `dims` and `dst` row-major over the kept dims.
///
/// Errors (nothing written): a reduce dim out of range or repeated, rank above [`MAX_RANK`],
/// or a buffer length that differs from its shape.
pub fn reduce_fast<T: FastFloat>(
    src: &[T],
    dims: &[usize],
    reduce_dims: &[usize],
    op: ReduceOp,
    init: T,
    dst: &mut [T],
) -> Result<(), KernelError> {
    let (c, total, _) = canonicalize("reduce", src.len(), dims, reduce_dims, dst.len())?;
    if dst.is_empty() {
        return Ok(());
    }
    let (e, red, r) = (&c.e[..c.r], &c.red[..c.r], c.r);
    if total == 0 {
        // Empty reduction: every output is `init`.
        dst.fill(init);
        return Ok(());
    }
    match (r, red) {
        (0, _) => rows(src, 1, op, init, dst),
        (1, [false]) => rows(src, 1, op, init, dst),
        (1, [true]) | (2, [false, true]) => rows(src, e[r - 1], op, init, dst),
        (2, [true, false]) => columns(src, e[0], e[1], op, init, dst),
        (3, [false, true, false]) => columns(src, e[1], e[2], op, init, dst),
        _ => {
            // Move the kept dims outermost (their order kept), then reduce rows.
            let perm: Vec<usize> = (0..r)
                .filter(|&d| !red[d])
                .chain((0..r).filter(|&d| red[d]))
                .collect();
            let mut moved = vec![init; total];
            transpose(src, e, &perm, &mut moved)?;
            rows(&moved, total / dst.len(), op, init, dst)
        }
    }
    Ok(())
}

/// `dst[o] = init (+) reduce(src[o * len .. (o + 1) * len])`.
fn rows<T: FastFloat>(src: &[T], len: usize, op: ReduceOp, init: T, dst: &mut [T]) {
    let one = |o: usize| {
        let row = &src[o * len..][..len];
        let v = par::reduce_blocks(
            len,
            ROW_BLOCK,
            |r| block::<T>(&row[r], op),
            |a, b| scalar(op, a, b),
        );
        scalar(op, init, v)
    };
    if src.len() < par::PAR_MIN_ELEMENTS || dst.len() == 1 {
        // One row (or a small problem): the row's own tree is parallel if it is long.
        dst.iter_mut().enumerate().for_each(|(o, x)| *x = one(o));
    } else {
        let per_task = (PAR_TASK_ELEMENTS / len).max(1);
        dst.par_chunks_mut(per_task).enumerate().for_each(|(t, c)| {
            c.iter_mut()
                .enumerate()
                .for_each(|(k, x)| *x = one(t * per_task + k))
        });
    }
}

/// One leaf: four vector accumulators over the block (then combined (0+1)+(2+3)), the tail
/// loaded with the identity, then the lanes in a fixed tree.
#[inline]
fn block<T: FastFloat>(x: &[T], op: ReduceOp) -> T {
    let l = T::V::LANES;
    let id = identity::<T>(op);
    let mut acc = [T::V::splat(id); 4];
    let mut chunks = x.chunks_exact(4 * l);
    for c in &mut chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = apply(op, *a, T::V::load(&c[k * l..]));
        }
    }
    for (k, c) in chunks.remainder().chunks(l).enumerate() {
        acc[k] = apply(op, acc[k], T::V::load_partial(c, id));
    }
    let v = apply(op, apply(op, acc[0], acc[1]), apply(op, acc[2], acc[3]));
    lanes(op, v)
}

/// `dst[k1, j] = init (+) src[k1, 0, j] (+) src[k1, 1, j] (+) ...` for `src` of shape
/// `[dst.len() / k2, r, k2]`: each output folds its rows in order.
fn columns<T: FastFloat>(src: &[T], r: usize, k2: usize, op: ReduceOp, init: T, dst: &mut [T]) {
    let task = |k1: usize, j0: usize, out: &mut [T]| {
        let slab = &src[k1 * r * k2..][..r * k2];
        let l = T::V::LANES;
        let w = out.len();
        // Accumulators on the stack: COL_BLOCK lanes (the out chunk is at most that wide).
        let mut acc = [T::V::splat(init); COL_BLOCK / 4];
        let (nf, fill) = (w / l, identity::<T>(op));
        // Four rows per sweep: each accumulator stays in a register across them, and still
        // folds the rows in ascending order (the same bits as one row at a time).
        for rows in slab.chunks(COL_ROWS * k2) {
            let m = rows.len() / k2;
            for (v, acc_v) in acc.iter_mut().enumerate().take(nf) {
                let o = j0 + v * l;
                let mut a = *acc_v;
                for q in 0..m {
                    a = apply(op, a, T::V::load(&rows[q * k2 + o..]));
                }
                *acc_v = a;
            }
            if nf * l < w {
                let o = j0 + nf * l;
                let mut a = acc[nf];
                for q in 0..m {
                    let part = &rows[q * k2 + o..q * k2 + j0 + w];
                    a = apply(op, a, T::V::load_partial(part, fill));
                }
                acc[nf] = a;
            }
        }
        for (c, a) in out.chunks_mut(l).zip(&acc) {
            a.store_partial(c);
        }
    };
    let n_k1 = dst.len() / k2;
    let parallel = src.len() >= par::PAR_MIN_ELEMENTS;
    // Output chunks of COL_BLOCK lanes: `acc` holds COL_BLOCK / 4 vectors of at least 4 lanes.
    let width = COL_BLOCK;
    let run = |(k1, orow): (usize, &mut [T])| {
        if parallel {
            orow.par_chunks_mut(width)
                .enumerate()
                .for_each(|(c, o)| task(k1, c * width, o));
        } else {
            orow.chunks_mut(width)
                .enumerate()
                .for_each(|(c, o)| task(k1, c * width, o));
        }
    };
    if parallel && n_k1 > 1 {
        dst.par_chunks_mut(k2).enumerate().for_each(run);
    } else {
        dst.chunks_mut(k2).enumerate().for_each(run);
    }
}

/// Generic reduce: `dst[o] = f(...f(f(init, x[o, r_0]), x[o, r_1])..., x[o, r_last])`, the
/// reduced indices `r` in row-major order (XLA's reference order), for any element type and
/// combiner. Shapes and errors as [`reduce_fast`].
pub fn reduce<T: Copy + Send + Sync>(
    src: &[T],
    dims: &[usize],
    reduce_dims: &[usize],
    init: T,
    f: impl Fn(T, T) -> T + Sync + Send,
    dst: &mut [T],
) -> Result<(), KernelError> {
    KernelError::check_len("reduce", "src", element_count("reduce", dims)?, src.len())?;
    reduce_indexed(dims, reduce_dims, init, |i| src[i], f, dst)
}

/// Variadic reduce over accumulators of any type `A`: `dst[o] = f(...f(f(init, load(i_0)),
/// load(i_1))..., load(i_last))`, where `i_k` are the flat row-major input indices (of shape
/// `dims`) of output `o`'s reduced elements, in row-major order. `load` reads the operands,
/// e.g. `|i| (x[i], (i % n) as i32)` for an argmax along the last dim.
///
/// Errors: as [`reduce_fast`] (there is no input buffer to check: `load` must accept every
/// flat index below `prod(dims)`).
pub fn reduce_indexed<A: Copy + Send + Sync>(
    dims: &[usize],
    reduce_dims: &[usize],
    init: A,
    load: impl Fn(usize) -> A + Sync + Send,
    f: impl Fn(A, A) -> A + Sync + Send,
    dst: &mut [A],
) -> Result<(), KernelError> {
    let total = element_count("reduce", dims)?;
    canonicalize("reduce", total, dims, reduce_dims, dst.len())?;
    let rank = dims.len();
    // Strides of the kept and of the reduced dims, in their original order.
    let mut stride = [0usize; MAX_RANK];
    let mut acc = 1;
    for d in (0..rank).rev() {
        stride[d] = acc;
        acc *= dims[d];
    }
    let is_red = |d: usize| reduce_dims.contains(&d);
    let mut ke = [0usize; MAX_RANK];
    let mut ks = [0usize; MAX_RANK];
    let mut re = [0usize; MAX_RANK];
    let mut rs = [0usize; MAX_RANK];
    let (mut nk, mut nr) = (0, 0);
    for d in 0..rank {
        if is_red(d) {
            (re[nr], rs[nr]) = (dims[d], stride[d]);
            nr += 1;
        } else {
            (ke[nk], ks[nk]) = (dims[d], stride[d]);
            nk += 1;
        }
    }
    let (ke, ks, re, rs) = (&ke[..nk], &ks[..nk], &re[..nr], &rs[..nr]);
    let n_red: usize = re.iter().product();
    let one = |o: usize| {
        // The flat offset of output `o`'s first element.
        let (mut rest, mut base) = (o, 0);
        for d in (0..nk).rev() {
            base += (rest % ke[d]) * ks[d];
            rest /= ke[d];
        }
        let mut idx = [0usize; MAX_RANK];
        let (mut off, mut a) = (base, init);
        for _ in 0..n_red {
            a = f(a, load(off));
            // Row-major step over the reduced dims.
            for d in (0..nr).rev() {
                idx[d] += 1;
                off += rs[d];
                if idx[d] < re[d] {
                    break;
                }
                off -= rs[d] * re[d];
                idx[d] = 0;
            }
        }
        a
    };
    if total < par::PAR_MIN_ELEMENTS || dst.len() == 1 {
        dst.iter_mut().enumerate().for_each(|(o, x)| *x = one(o));
    } else {
        let per_task = (PAR_TASK_ELEMENTS / n_red.max(1)).max(1);
        dst.par_chunks_mut(per_task).enumerate().for_each(|(t, c)| {
            c.iter_mut()
                .enumerate()
                .for_each(|(k, x)| *x = one(t * per_task + k))
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
