//! Reduce over any set of dimensions of a row-major array of any rank: `out[kept] = init (+)
//! x[kept, r_0] (+) x[kept, r_1] (+) ...` over the reduced indices `r` (the kept dims, in
//! order, form the output shape).
//!
//! - [`reduce_fast`]: f32 / f64 sum, max, min (XLA max/min: NaN propagates, -0 < +0) on
//!   [`VFloat`] vectors. The shape is first simplified (extent-1 dims dropped, adjacent kept
//!   or reduced dims merged); then `[K, R]` (rows) reduces each contiguous row, `[K1, R, K2]`
//!   (columns) accumulates whole rows of `K2` lanes, and any other pattern is transposed to
//!   `[kept.., reduced..]` first (one scratch copy, then rows). [`reduce_rows`] /
//!   [`reduce_cols`] are the 2-D entry points of the same kernels.
//! - [`reduce`]: any element type and combiner (a monomorphized closure), in index order.
//! - [`reduce_indexed`]: variadic reduces (argmax, ...): the accumulator is any `Copy` type,
//!   built from each element's flat input index by a `load` closure that reads any number of
//!   operands.
//!
//! One engine: the f32/f64 rows and columns run the loop drivers the code `xla!` generates
//! calls ([`crate::fused::reduce_rows`], [`crate::fused::reduce_cols`]), with closures that
//! load the operand, so a reduction written with `xla!` and one called here are the same code
//! in the same order. (This module used to have kernels of its own: as fast on row sums, about
//! 12% faster on f32[4096,4096] column sums; README's reduction section has the measurement
//! of the one engine.)
//!
//! Determinism: every output's association order is fixed by the sizes alone (see the
//! drivers), so the bits are the same for any thread count. Nothing is parallel below
//! [`crate::par::PAR_MIN_ELEMENTS`] input elements.

mod generic;

pub use generic::{reduce, reduce_indexed};

use std::marker::PhantomData;

use xla_core::reduce_order::RUN_TIME_WIDTH_MIN_ELEMENTS;

use crate::error::element_count;
use crate::error::KernelError;
use crate::fused;
use crate::simd::{VFloat, F32V, F64V, L16F32, L4F64, L8F32, L8F64};
use crate::tensor::MAX_RANK;
use crate::transpose::transpose;

/// Input elements per parallel task when splitting over outputs.
pub const PAR_TASK_ELEMENTS: usize = 1 << 16;

/// Which fast reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// `a + b`.
    Sum,
    /// XLA max (NaN propagates, `-0 < +0`).
    Max,
    /// XLA min (NaN propagates, `-0 < +0`).
    Min,
}

/// f32 and f64: the element types of [`reduce_fast`], with the vector used for them.
pub trait FastFloat: Copy + Send + Sync + fused::Split + 'static {
    /// The vector type: the widest of the build target, as generated code uses.
    type V: VFloat<Elem = Self>;
    /// One AVX2 register of `Self` as [`crate::simd::Lanes`] (the column sums' run-time level).
    type V2: VFloat<Elem = Self>;
    /// One AVX-512 register of `Self` as [`crate::simd::Lanes`].
    type V5: VFloat<Elem = Self>;
    /// `+0.0` (the start of [`reduce_rows`] / [`reduce_cols`] sums, as XLA's `init = 0`).
    const ZERO: Self;
    /// `-0.0` (the identity of a sum: `+0 + -0 = +0` but `-0 + -0 = -0`).
    const NEG_ZERO: Self;
    /// Negative infinity.
    const NEG_INF: Self;
    /// Positive infinity.
    const INF: Self;
}

impl FastFloat for f32 {
    type V = F32V;
    type V2 = L8F32;
    type V5 = L16F32;
    const ZERO: f32 = 0.0;
    const NEG_ZERO: f32 = -0.0;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const INF: f32 = f32::INFINITY;
}

impl FastFloat for f64 {
    type V = F64V;
    type V2 = L4F64;
    type V5 = L8F64;
    const ZERO: f64 = 0.0;
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

/// `dst[o] = one(o)` for every output, `per_task` outputs per rayon task when `parallel`
/// (each output is computed alone, so the bits do not depend on the split).
fn each_output<T: Send>(
    dst: &mut [T],
    per_task: usize,
    parallel: bool,
    one: impl Fn(usize) -> T + Sync + Send,
) {
    crate::par::chunks(dst, per_task, parallel, |t, c| {
        c.iter_mut()
            .enumerate()
            .for_each(|(k, x)| *x = one(t * per_task + k))
    });
}

/// What [`reduce_rows`] / [`reduce_cols`] start from: `+0` for a sum (XLA's usual init), the
/// identity for max / min.
#[inline(always)]
fn start<T: FastFloat>(op: ReduceOp) -> T {
    match op {
        ReduceOp::Sum => T::ZERO,
        ReduceOp::Max | ReduceOp::Min => identity(op),
    }
}

/// `a (+) b` lane by lane.
#[inline(always)]
fn apply<V: VFloat>(op: ReduceOp, a: V, b: V) -> V {
    match op {
        ReduceOp::Sum => a + b,
        ReduceOp::Max => a.max_xla(b),
        ReduceOp::Min => a.min_xla(b),
    }
}

/// The lanes of `v` combined in the fixed tree of [`VFloat::reduce_add`].
#[inline(always)]
fn lanes<V: VFloat>(op: ReduceOp, v: V) -> V::Elem {
    match op {
        ReduceOp::Sum => v.reduce_add(),
        ReduceOp::Max => v.reduce_max_xla(),
        ReduceOp::Min => v.reduce_min_xla(),
    }
}

/// `a (+) b` on scalars, with exactly the vector op's semantics.
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
/// and the input size.
fn canonicalize(
    op: &'static str,
    src_len: usize,
    dims: &[usize],
    reduce_dims: &[usize],
    dst_len: usize,
) -> Result<(Canon, usize), KernelError> {
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
    Ok((c, total))
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
    let (c, total) = canonicalize("reduce", src.len(), dims, reduce_dims, dst.len())?;
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
        (0, _) | (1, [false]) => rows(src, 1, op, init, dst),
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

/// `op` over `T` as the reducer of [`fused`]'s drivers, the op a constant (`OP` is
/// [`ReduceOp`] as `u8`): a run-time `op` matched in the inner loop kept row sums at 1.8 ms
/// against the generated code's 1.3 ms on f32[4096,4096] (default build, Intel Xeon, `bash
/// scripts/bench.sh programs "row sum"`).
/// Generic over the vector type `V`, so one op serves the build's vectors and the run-time
/// level's.
struct Combiner<V, const OP: u8>(PhantomData<fn() -> V>);

/// [`ReduceOp`] as the `u8` of [`Combiner`]'s parameter.
const fn op_code(op: ReduceOp) -> u8 {
    match op {
        ReduceOp::Sum => 0,
        ReduceOp::Max => 1,
        ReduceOp::Min => 2,
    }
}

impl<V, const OP: u8> Combiner<V, OP> {
    /// The op this combiner applies.
    const OP: ReduceOp = match OP {
        0 => ReduceOp::Sum,
        1 => ReduceOp::Max,
        _ => ReduceOp::Min,
    };
}

/// `body` with the constant `$k` the [`op_code`] of `op` (one instance of `body` per op):
/// `Combiner::<V, $k>` in it is the op's reducer over any `V`.
macro_rules! with_combiner {
    ($op:expr, |$k:ident| $body:expr) => {
        match $op {
            ReduceOp::Sum => {
                const $k: u8 = op_code(ReduceOp::Sum);
                $body
            }
            ReduceOp::Max => {
                const $k: u8 = op_code(ReduceOp::Max);
                $body
            }
            ReduceOp::Min => {
                const $k: u8 = op_code(ReduceOp::Min);
                $body
            }
        }
    };
}

impl<V: VFloat<Elem: FastFloat>, const OP: u8> fused::Reducer<V> for Combiner<V, OP> {
    #[inline(always)]
    fn id(&self) -> V::Elem {
        identity(Self::OP)
    }
    #[inline(always)]
    fn v(&self, a: V, b: V) -> V {
        apply(Self::OP, a, b)
    }
    #[inline(always)]
    fn lanes(&self, x: V) -> V::Elem {
        lanes(Self::OP, x)
    }
    #[inline(always)]
    fn s(&self, a: V::Elem, b: V::Elem) -> V::Elem {
        scalar(Self::OP, a, b)
    }
}

/// `dst[o] = init (+) reduce(src[o * len .. (o + 1) * len])`: the generated code's row driver
/// ([`fused::reduce_rows`]), or for rows shorter than a vector the sequential fold.
fn rows<T: FastFloat>(src: &[T], len: usize, op: ReduceOp, init: T, dst: &mut [T]) {
    if len < T::V::LANES {
        each_output(dst, PAR_TASK_ELEMENTS, false, |o| {
            src[o * len..][..len]
                .iter()
                .fold(init, |a, &x| scalar(op, a, x))
        });
        return;
    }
    let per_task = (PAR_TASK_ELEMENTS / len).max(1);
    if src.len() < RUN_TIME_WIDTH_MIN_ELEMENTS || len < T::V5::LANES {
        with_combiner!(op, |K| {
            let c = Combiner::<T::V, K>(PhantomData);
            fused::reduce_rows(dst, len, per_task, init, c, |o, j| {
                T::V::load(&src[o * len + j..])
            })
        });
        return;
    }
    // At the run-time level's width, as the generated code's reductions of this size
    // (`RUN_TIME_WIDTH_MIN_ELEMENTS`): a sum's order is the level's own, the same as theirs.
    with_combiner!(op, |K| {
        fused::isa::reduce_rows(
            dst,
            len,
            per_task,
            init,
            Combiner::<T::V, K>(PhantomData),
            |o, j| T::V::load(&src[o * len + j..]),
            Combiner::<T::V2, K>(PhantomData),
            #[inline(always)]
            |o, j| T::V2::load(&src[o * len + j..]),
            Combiner::<T::V5, K>(PhantomData),
            #[inline(always)]
            |o, j| T::V5::load(&src[o * len + j..]),
        )
    });
}

/// `dst[k1, j] = init (+) (src[k1, 0, j] (+) src[k1, 1, j] (+) ...)` for `src` of shape
/// `[dst.len() / k2, r, k2]`: the generated code's column driver ([`fused::reduce_cols`]), or
/// for rows shorter than a vector the sequential fold.
fn columns<T: FastFloat>(src: &[T], r: usize, k2: usize, op: ReduceOp, init: T, dst: &mut [T]) {
    if k2 < T::V::LANES {
        each_output(dst, PAR_TASK_ELEMENTS, false, |o| {
            let (k1, j) = (o / k2, o % k2);
            (0..r).fold(init, |a, i| scalar(op, a, src[(k1 * r + i) * k2 + j]))
        });
        return;
    }
    let run = fused::COL_RUN.max(PAR_TASK_ELEMENTS / r.max(1));
    let at = |k1: usize, i: usize, j: usize| &src[(k1 * r + i) * k2 + j..];
    if k2 < T::V5::LANES {
        with_combiner!(op, |K| {
            let c = Combiner::<T::V, K>(PhantomData);
            fused::reduce_cols(dst, k2, 1, r, run, init, c, |k1, _, i, j| {
                T::V::load(at(k1, i, j))
            })
        });
        return;
    }
    // At the run-time level's width: each output folds its column in the same order at every
    // width (lanes are outputs), so the bits do not change with the level.
    with_combiner!(op, |K| {
        fused::isa::reduce_cols(
            dst,
            k2,
            1,
            r,
            run,
            init,
            Combiner::<T::V, K>(PhantomData),
            |k1, _, i, j| T::V::load(at(k1, i, j)),
            Combiner::<T::V2, K>(PhantomData),
            #[inline(always)]
            |k1, _, i, j| T::V2::load(at(k1, i, j)),
            Combiner::<T::V5, K>(PhantomData),
            #[inline(always)]
            |k1, _, i, j| T::V5::load(at(k1, i, j)),
        )
    });
}

/// `out[r] = start (+) x[r, 0] (+) ... (+) x[r, cols - 1]` for a row-major `rows x cols` `x`,
/// with `start` = +0 for a sum, -inf / +inf for max / min (so `cols == 0` gives it). The
/// 2-D case of [`reduce_fast`] (same kernel, same order).
pub fn reduce_rows<T: FastFloat>(
    op: ReduceOp,
    x: &[T],
    rows: usize,
    cols: usize,
    out: &mut [T],
) -> Result<(), KernelError> {
    reduce_fast(x, &[rows, cols], &[1], op, start(op), out)
}

/// `out[c] = start (+) x[0, c] (+) ... (+) x[rows - 1, c]` for a row-major `rows x cols` `x`
/// (`start` as [`reduce_rows`]). The 2-D case of [`reduce_fast`].
pub fn reduce_cols<T: FastFloat>(
    op: ReduceOp,
    x: &[T],
    rows: usize,
    cols: usize,
    out: &mut [T],
) -> Result<(), KernelError> {
    reduce_fast(x, &[rows, cols], &[0], op, start(op), out)
}

/// [`reduce_rows`] with [`ReduceOp::Sum`] on f32: `out[r] = sum_c x[r, c]`.
pub fn sum_rows_f32(
    x: &[f32],
    rows: usize,
    cols: usize,
    out: &mut [f32],
) -> Result<(), KernelError> {
    reduce_rows(ReduceOp::Sum, x, rows, cols, out)
}

/// [`reduce_cols`] with [`ReduceOp::Sum`] on f32: `out[c] = sum_r x[r, c]`.
pub fn sum_cols_f32(
    x: &[f32],
    rows: usize,
    cols: usize,
    out: &mut [f32],
) -> Result<(), KernelError> {
    reduce_cols(ReduceOp::Sum, x, rows, cols, out)
}

#[cfg(test)]
mod tests;
